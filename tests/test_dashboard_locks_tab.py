"""The Locks tab shows only where a lock can be taken: in a run with an orderly consumer (only
ConsumeMessageOrderlyService locks queues at the broker). Labs with concurrent consumers only showed an empty tab."""

from __future__ import annotations

from rmqlab.widgets import Dashboard, demo_lab

from rmqlab import ConsumeOrderlyStatus, Lab, Message


def orderly_lab() -> Lab:
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    lab.add_consumer(
        "cg", subscribe={"TopicTest": "*"}, listener=lambda m, c: ConsumeOrderlyStatus.SUCCESS, orderly=True, name="c1"
    )
    lab.at("1s", p.send, Message("TopicTest", "a"))
    return lab


def _tabs(dash: Dashboard) -> list[str]:
    return [label for label, _ in dash.tabs.buttons.options]


def test_no_locks_tab_without_an_orderly_consumer() -> None:
    dash = Dashboard(demo_lab, horizon="30s")
    assert "Locks" not in _tabs(dash) and "Locks" not in [v.title for v in dash.views]
    assert _tabs(dash) == ["ProcessQueues", "Space-time", "Retry timeline", "Topology", "Events"]


def test_a_locks_tab_with_an_orderly_consumer_run_ahead_or_not() -> None:
    assert "Locks" in _tabs(Dashboard(orderly_lab, horizon="30s"))
    assert "Locks" in _tabs(Dashboard(orderly_lab, horizon="30s", run_ahead=False))
