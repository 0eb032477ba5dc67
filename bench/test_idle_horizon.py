"""The idle-horizon benchmark's harness (its figures go in bench/README.md, never in an assertion)."""

from __future__ import annotations

import pytest

from bench.idle_horizon import idle_lab, main, measure, run_child, steps_by_kind, switch_off
from rmqlab.client.consumer.offset_store import RemoteBrokerOffsetStore


def test_an_idle_lab_runs_long_polling_only_and_records_nothing() -> None:
    lab = idle_lab(4)
    lab.run(until=3_600_000)
    assert len(lab.consumer("c1").process_queue_table) == 5  # four queues of T and the %RETRY% queue
    figures = measure(4, 0.05)
    assert figures["events_per_hour"] == 0  # an idle long poll leaves no trace
    assert figures["steps_per_hour"] > 0


def test_the_callgrind_child_runs_the_idle_lab_to_the_given_time_and_prints_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--queues", "2", "--run-until", "20000"]) == 0
    assert capsys.readouterr().out == ""


def test_an_idle_hour_is_long_polls_and_the_periodic_timers() -> None:
    per_hour = steps_by_kind(4)
    # five queues (four of T and the %RETRY% queue), each held 15 s (suspended on a check, answered three checks
    # later) then pulled again: 4 × 60 rounds of 5; the broker's hold service checks every 5 s, however many it holds
    assert per_hour["pull"] == 5 * 4 * 60
    assert per_hour["hold_check"] == 12 * 60
    assert per_hour["persist_offset"] == 12 * 60  # persistAll every 5 s
    assert set(per_hour) <= {"hold_check", "pull", "persist_offset", "rebalance", "heartbeat", "route_poll",
                             "channel_scan"}  # fmt: skip


def test_without_persist_all_no_offset_is_sent_after_20_s(monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[int] = []
    monkeypatch.setattr(RemoteBrokerOffsetStore, "persist_all", RemoteBrokerOffsetStore.persist_all)  # put back after
    monkeypatch.setattr(
        RemoteBrokerOffsetStore, "persist_offset", lambda self, mq, offset: sent.append(self.consumer.context.now)
    )
    run_child(2, 40_000, "persist_all")
    assert sorted(set(sent)) == [10_000, 15_000, 20_000]  # persistAll's rounds up to the switch, none after


def test_an_unknown_part_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="part='persist'"):
        switch_off("persist")
