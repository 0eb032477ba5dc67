"""Long polling as 4.9.7's broker runs it (``PullRequestHoldService``): a held pull is answered when a message its
subscription takes arrives, or at the service's first 5 s check after the 15 s the client allowed; the checks run on a
5 s grid that starts with the broker process."""

from __future__ import annotations

from dataclasses import replace

from rmqlab import ConsumeConcurrentlyStatus, EventKind, Lab, Message
from rmqlab.core.timers import TimerKind
from rmqlab.remoting.protocol import PullMessageRequest, PullResult, PullStatus


def _lab(tags: str = "*", start: int = 0) -> tuple[Lab, list[int]]:
    """One broker, one queue of T, one consumer; also the times the broker receives a pull of T (a consumer pulls
    again at once when a held pull is answered, so after the first these are the times held pulls were answered)."""
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    lab.add_consumer(
        "cg",
        name="c1",
        subscribe={"T": tags},
        listener=lambda m, c: ConsumeConcurrentlyStatus.CONSUME_SUCCESS,
        start=start,
    )
    broker = lab.brokers["broker-a"]
    process_request = broker.process_request
    pulls_of_t: list[int] = []

    def recording(request: object, opaque: int | None) -> object:
        if isinstance(request, PullMessageRequest) and request.mq.topic == "T":
            pulls_of_t.append(lab.now)
        return process_request(request, opaque)

    broker.process_request = recording  # type: ignore[method-assign]
    return lab, pulls_of_t


def test_an_idle_held_pull_is_answered_at_the_first_check_15_s_after_its_suspension() -> None:
    lab, pulls_of_t = _lab()
    lab.at(7300, lab.add_producer("pg").send, Message("T", "x"))
    lab.run(until=45_000)
    # held at 0, woken by the message at 7,300 and pulled again; that pull is suspended at 7,300, its 15 s are up at
    # 22,300, and the check that sees it runs at 25,000 (the broker started at 0); the next one is suspended at 25,000
    # and answered by the check at 40,000
    assert pulls_of_t == [0, 7300, 25_000, 40_000]


def test_the_checks_restart_with_the_broker() -> None:
    lab, pulls_of_t = _lab()
    lab.at(3000, lab.broker_down, "broker-a")
    lab.at(12_345, lab.broker_up, "broker-a")
    lab.run(until=50_000)
    # the pull retried every 3 s reaches the restarted broker at 13,000; its checks run at 12,345 + 5 s × k, and the
    # first at or after 28,000 is 32,345
    assert pulls_of_t == [0, 13_000, 32_345, 47_345]


def test_a_message_of_another_tag_leaves_the_pull_held_until_the_next_check() -> None:
    lab, pulls_of_t = _lab(tags="a")
    lab.at(7300, lab.add_producer("pg").send, Message("T", "x", tags="b"))
    lab.run(until=12_000)
    empty = [(e.time_ms, e.data["status"], e.data["next_offset"]) for e in lab.trace.of_kind(EventKind.PULL_EMPTY)]
    # the arriving "b" does not match the held pull's subscription: it stays held; the 10 s check finds the queue
    # beyond its offset (a check matches any tag), processes it again, and the read finds nothing it takes
    assert empty == [(10_000, "NO_MATCHED_MSG", 1)]
    assert pulls_of_t == [0, 10_000]


def test_an_arrival_after_the_deadline_answers_the_pull_whatever_its_tag() -> None:
    lab, pulls_of_t = _lab(tags="a", start=1000)
    lab.at(17_000, lab.add_producer("pg").send, Message("T", "x", tags="b"))
    lab.run(until=19_000)
    # suspended at 1 s, its 15 s are up at 16 s, the next check is at 20 s; the "b" message at 17 s does not match,
    # but notifyMessageArriving also answers any pull of the queue whose time is up
    assert pulls_of_t == [1000, 17_000]
    empty = [(e.time_ms, e.data["status"]) for e in lab.trace.of_kind(EventKind.PULL_EMPTY)]
    assert empty == [(17_000, "NO_MATCHED_MSG")]


def test_a_message_of_a_subscribed_tag_wakes_the_pull_at_once() -> None:
    lab, pulls_of_t = _lab(tags="a")
    lab.at(7300, lab.add_producer("pg").send, Message("T", "x", tags="a"))
    lab.run(until=12_000)
    assert [e.time_ms for e in lab.trace.of_kind(EventKind.PULLED)] == [7300]
    assert pulls_of_t == [0, 7300]


def test_one_check_thread_per_broker_and_the_pulls_held_by_queue() -> None:
    lab, _ = _lab()
    lab.run(until=7000)
    checks = lab.snapshot().timers_of(TimerKind.HOLD_CHECK)
    assert [(t.owner, t.due_ms) for t in checks] == [("broker-a", 10_000)]
    hold = lab.brokers["broker-a"].pull_request_hold_service
    assert list(hold.pull_request_table) == [("%RETRY%cg", 0), ("T", 0)]  # (topic, queue id), in the order first used
    held = hold.held_pulls("T", 0)
    assert [(p.suspend_timestamp, p.timeout_millis, p.pull_from_this_offset) for p in held] == [(0, 15_000, 0)]


def test_a_woken_pull_is_not_held_again_and_stores_no_offset() -> None:
    lab, _ = _lab()
    broker = lab.brokers["broker-a"]
    lab.run(until=14_999)
    (held,) = broker.pull_request_hold_service.held_pulls("T", 0)
    request = replace(held.request_command, commit_offset=5)  # as if it carried the consumer's offset
    processor = broker.pull_message_processor
    woken = processor.process_request(request, held.opaque, broker_allow_suspend=False)
    assert isinstance(woken, PullResult) and woken.status is PullStatus.NO_NEW_MSG
    assert broker.consumer_offsets[("cg", "T", 0)] == 0  # what the 10 s persist stored: a woken request stores none
    assert broker.pull_request_hold_service.held_pulls("T", 0) == (held,)  # nor is it suspended again
    processor.process_request(request, held.opaque, broker_allow_suspend=True)  # as it first came: both
    assert broker.consumer_offsets[("cg", "T", 0)] == 5
    assert len(broker.pull_request_hold_service.held_pulls("T", 0)) == 2
