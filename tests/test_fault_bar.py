"""The fault bar lists every fault in force at the step, whatever injected it (issue 30).

Labs 01a, 01b, 02b and 06 inject their faults from the script (``lab.at(…, lab.broker_down, …)``,
``set_broker_fault``, a partition), not with the buttons, and the bar read "no injected faults" while broker-a was
down. It is checked here against the engine's own state at every step of those labs' dashboards (a broker down in
the snapshot, its non-default fault settings, a crashed consumer), and on a small run for the windows' times.
"""

from __future__ import annotations

import pytest
from rmqlab.widgets.active_faults import fault_windows, fault_words, faults_text
from rmqlab.widgets.controller import Controller
from test_lab_captions import _dashboards

from rmqlab import Lab, Message


def _bar(c: Controller) -> str:
    return c.fault_list.value


@pytest.mark.parametrize("source", ["01a_send_retry.py", "01b_send_status_timeout.py", "02b_send_back_failures.py",
                                    "06_ordered_send.py"])  # fmt: skip
def test_every_scripted_fault_in_force_is_listed_at_every_step(source: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every frame of the lab's dashboards (the steps a student takes), its bar's words against its snapshot."""
    shown = 0
    for run in _dashboards(source, monkeypatch):
        frames = run.frames  # the frames the lab's dashboard built
        for position, snap in zip(frames.positions, frames.snapshots, strict=True):
            bar = faults_text(frames.faults, position)
            for broker in snap.brokers:
                assert (f"{broker.name} down" in bar) == (not broker.up), (source, run.index, snap.now_ms, bar)
                for setting, value in broker.faults:
                    if value in (None, False, 0, "PUT_OK"):  # the setting's default: no fault
                        continue
                    words = fault_words(broker.name, setting, value)
                    assert words in bar and " = " not in bar, (source, run.index, snap.now_ms, setting, bar)
            for consumer in snap.consumers:
                assert (f"{consumer.client_id} crashed" in bar) == consumer.crashed, (source, snap.now_ms, bar)
            assert ("no active faults" in bar) == ("active faults:" not in bar)
            shown += "active faults:" in bar
    assert shown, f"{source}: no step shows a fault, though the lab scripts one"


def _scripted() -> Lab:
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("TopicTest")
    p = lab.add_producer("pg")
    for k in range(6):
        lab.at(f"{k + 1}s", p.send, Message("TopicTest", f"m{k}"))
    lab.at("2s", lab.broker_down, "broker-a")
    lab.at("4500ms", lab.broker_up, "broker-a")
    return lab


def test_a_scripted_broker_outage_shows_with_its_window_and_a_button_fault_beside_it() -> None:
    c = Controller(_scripted, horizon="10s")
    assert _bar(c) == '<div data-testid="rmq-faults" role="status">no active faults</div>'
    c.seek_time("3s")
    assert "active faults: broker-a down (2 s – 4.500 s)" in _bar(c)
    c.seek_time("5s")
    assert "no active faults" in _bar(c)
    c.inject("partition", "pg", "broker-b")  # a button's fault: in force from now, and listed as injected
    assert "active faults: link pg – broker-b cut (since 5 s)" in _bar(c)
    assert "injected:" in _bar(c) and "partition" in _bar(c)
    c.seek_time("3s")
    assert "active faults: broker-a down (2 s – 4.500 s)" in _bar(c) and "link pg" not in _bar(c)


def test_a_run_not_known_ahead_gives_the_start_only_and_settings_turned_off_end_a_window() -> None:
    c = Controller(_scripted, horizon="10s", run_ahead=False)
    c.seek_time("3s")
    assert "active faults: broker-a down (since 2 s)" in _bar(c)
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.set_broker_fault("broker-a", put_status="FLUSH_DISK_TIMEOUT")
    lab.at("3s", lab.set_broker_fault, "broker-a", put_status="PUT_OK")
    lab.run(until="5s")
    (window,) = fault_windows(lab.trace)
    label = "broker-a's store answers every put FLUSH_DISK_TIMEOUT"
    assert (window.label, window.start_ms, window.end_ms) == (label, 0, 3000)


def test_a_broker_setting_is_said_in_plain_words_not_its_parameter_name() -> None:
    """Labs 06 and 07b slow broker-a down: the bar read "broker-a: response_delay_ms = 5000"."""
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.at("1s", lab.set_broker_fault, "broker-a", response_delay_ms="5s", lose_responses=False)
    lab.at("2s", lab.set_broker_fault, "broker-a", reject_send_back=True, send_error="SYSTEM_BUSY")
    lab.run(until="3s")
    assert [w.label for w in fault_windows(lab.trace)] == [
        "broker-a answers 5 s late",
        "broker-a refuses every send-back",
        "broker-a answers every send SYSTEM_BUSY",
    ]
