"""The Locks tab marks a lock renewal that got no answer: lab 07a's cut-off picture, whose c1 loses its link to
broker-a at 25 s, fails its lockAll at 41 s and 61 s (RemotingConnectException), and the lease is not extended."""

from __future__ import annotations

from rmqlab.widgets.lease_fold import lease_model
from rmqlab.widgets.lease_scene import lease_scene

from tests.test_flow_clocks import cut_off_lab


def test_a_failed_renewal_is_a_marker_on_the_band_and_a_red_tick() -> None:
    lab = cut_off_lab()
    lab.run(until="62s")
    vm = lease_model(lab.snapshot())
    band = next(b for b in vm.bands if b.queue == "TopicTest@broker-a:0")
    failed = [(m.t_ms, m.text) for m in band.markers if m.kind == "failed"]
    assert failed == [
        (41_000, "c1's renewal failed (RemotingConnectException)"),  # lockAll, every 20 s
        (58_010, "c1's lock failed (RemotingConnectException)"),  # lockOneMQ: the ConsumeRequest's trust ran out
        (61_000, "c1's renewal failed (RemotingConnectException)"),
        (61_110, "c1's lock failed (RemotingConnectException)"),
    ]
    assert [m.t_ms for m in band.markers if m.kind == "renewed"] == [1_000, 21_000]  # none after the cut
    ticks = [m for m in lease_scene(vm).marks if m.role == "lease-failed"]
    assert len(ticks) == 4 and all("rq-failed" in m.cls for m in ticks)
