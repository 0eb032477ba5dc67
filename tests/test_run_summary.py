"""The last step of a run says what the run showed, in one plain sentence (not the offset it happened to persist)."""

from __future__ import annotations

import re

from rmqlab.widgets import Controller, demo_lab

from rmqlab import ConsumeConcurrentlyStatus as C
from rmqlab import Lab, Message
from rmqlab.core.i18n import speaking
from rmqlab.narrate import run_summary


def test_a_run_with_one_message_still_failing() -> None:
    lab = demo_lab(listener="fail_first").run(until="2m")  # fail_first: M0001 always fails, the others succeed
    assert run_summary(lab.trace, now_ms=lab.now) == (
        "End of the run at 2 m: 3 messages sent, 2 consumed and 1 still waiting for another try (up to 4 deliveries)"
        "; the offsets of 3 queues were saved."
    )


def test_a_run_where_every_message_dies() -> None:
    lab = demo_lab(listener="fail_all", max_reconsume_times=1).run(until="2m")
    assert run_summary(lab.trace, now_ms=lab.now) == (
        "End of the run at 2 m: 3 messages sent and 3 dead-lettered (up to 2 deliveries); the offsets of 3 queues "
        "were saved."
    )


def test_a_lost_response_shows_as_a_duplicate_and_nothing_moving_says_so() -> None:
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("TopicTest")
    p = lab.add_producer("pg", send_which_queue_start=0)
    lab.set_broker_fault("broker-a", lose_responses=True)
    lab.at("1s", p.send, Message("TopicTest", "m1"))
    lab.run(until="10s")
    assert run_summary(lab.trace, now_ms=lab.now) == (
        "End of the run at 10 s: 1 message sent and 1 stored more than once (a duplicate)."
    )
    assert run_summary([], now_ms=0) == "End of the run at 0 ms: no message moved."


def test_the_last_step_of_a_dashboard_run_says_it_and_names_the_code_of_each_fate() -> None:
    """The run's last Step only saved an offset: its first line is the summary, its second the code behind each fate
    the summary counts (not the offset commit the step happened to do, issue 30); the steps before keep their own
    captions, and "every event" mode still shows the bookkeeping as it is."""
    ctl = Controller(lambda: demo_lab(listener="fail_first"), horizon="2m")
    frames = ctl.frames
    assert frames is not None
    plain, source = frames.captions[-1]
    whole = demo_lab(listener="fail_first").run(until="2m")
    assert plain == run_summary(whole.trace, now_ms=whole.now) and plain.startswith("End of the run at 2 m: 3 messages")
    assert source.startswith(
        "in the source: sent: DefaultMQProducerImpl.sendDefaultImpl; consumed: "
        "ConsumeMessageConcurrentlyService.ConsumeRequest.run; retried: "
        "ConsumeMessageConcurrentlyService.processConsumeResult"
    )
    assert not any(c and c[0].startswith("End of the run") for c in frames.captions[:-1])
    assert re.search(r"\b[A-Z][a-z]+[A-Z]\w+|\w+\.\w+\(", plain) is None  # no Java identifier in the plain line
    ctl.every_event.value = True
    ctl.reset()
    raw = []
    while ctl.step_once():
        raw.append(ctl.caption_lines[0])
    assert len(raw) > len(frames) and not any(line.startswith("End of the run") for line in raw)
    assert ctl.caption_lines[0] == plain  # a Step past the last event says what the run showed, as Step's end does


def test_a_failed_fallback_send_of_a_stored_message_does_not_count_as_never_stored() -> None:
    """Lab 02b: c1 cannot reach broker-a, so its send-back and its own re-send of M0001 to %RETRY%cg fail; M0001 was
    stored (by pg) and is consumed after a local retry. The end caption read "1 message sent, 1 of them never stored
    (the send failed), 1 consumed": a message never stored cannot be consumed."""
    from rmqlab import EventKind as K
    from rmqlab import TraceEvent

    events = [
        TraceEvent(1, 1_000, K.SEND_ATTEMPT, "producer:pg", "M0001", {"topic": "TopicTest"}),
        TraceEvent(2, 1_000, K.STORED, "broker-a", "M0001", {"topic": "TopicTest"}),
        TraceEvent(3, 2_000, K.SEND_FAILED, "producer:c1/inner", "M0001", {}),
        TraceEvent(4, 7_000, K.CONSUMED, "consumer:c1", "M0001", {"status": "CONSUME_SUCCESS"}),
    ]
    said = run_summary(events, now_ms=40_000)
    assert "never stored" not in said and "1 consumed" in said
    assert "1 of them never stored" in run_summary([events[0], events[2]], now_ms=40_000)


def test_an_orderly_last_send_back_is_on_its_way_to_the_dlq_not_waiting_for_another_try() -> None:
    """An orderly consumer past maxReconsumeTimes sends the message back at a delay level whose real topic is
    %DLQ%: until that delay is over it is on its way to the dead-letter topic (lab 07a's summary read "still waiting
    for another try"), then dead-lettered."""
    early = demo_lab(orderly=True, listener="fail_all", max_reconsume_times=1).run(until="30s")
    assert run_summary(early.trace, now_ms=early.now) == (
        "End of the run at 30 s: 3 messages sent and 3 on their way to the dead-letter topic (up to 2 deliveries); the "
        "offsets of 2 queues were saved."
    )
    late = demo_lab(orderly=True, listener="fail_all", max_reconsume_times=1).run(until="4m")
    assert "3 dead-lettered" in run_summary(late.trace, now_ms=late.now)
    assert "on their way" not in run_summary(late.trace, now_ms=late.now)


def _failing_lab(max_reconsume_times: int = 16, retry_queue_nums: int | None = None) -> Lab:
    """Lab 04's tiny run: one queue, c1 of cg always fails, one message a second from 1 s."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=lambda m, c: C.RECONSUME_LATER, name="c1",
                     max_reconsume_times=max_reconsume_times)  # fmt: skip
    if retry_queue_nums is not None:
        lab.update_subscription_group("cg", retry_queue_nums=retry_queue_nums)
    for i in range(3):
        lab.at(f"{i + 1}s", p.send, Message("TopicTest", f"m{i}"))
    return lab


def test_each_message_is_counted_once_by_its_fate() -> None:
    """Issue 30: with retryQueueNums 0 the broker answers the send-back SUCCESS and stores nothing (4.9.7
    SendMessageProcessor.asyncConsumerSendMsgBack): the messages are lost, not "retried, still waiting for another
    try"; a message that goes to the DLQ at its first send-back was never retried; a message consumed after a retry
    is counted once, as consumed."""
    lost = _failing_lab(retry_queue_nums=0).run(until="1m")
    assert run_summary(lost.trace, now_ms=lost.now) == (
        "End of the run at 1 m: 3 messages sent and 3 lost (sent back to a group with no retry queue); the offset of "
        "1 queue was saved."
    )
    at_once = _failing_lab(max_reconsume_times=0).run(until="1m")
    assert run_summary(at_once.trace, now_ms=at_once.now) == (
        "End of the run at 1 m: 3 messages sent and 3 dead-lettered; the offset of 1 queue was saved."
    )
    again = demo_lab(listener="fail_twice").run(until="2m")
    said = run_summary(again.trace, now_ms=again.now)
    assert said.startswith("End of the run at 2 m: 3 messages sent and 3 consumed (3 of them after a retry, up to 3 ")
    assert "retried" not in said and "waiting" not in said


def test_stored_sends_that_were_not_send_ok_are_said() -> None:
    """Lab 01b: broker-a stores but answers FLUSH_DISK_TIMEOUT; the summary says so (its plain words, and the status
    in the source line)."""
    lab = flush_timeouts().run(until="5s")
    assert run_summary(lab.trace, now_ms=lab.now) == (
        "End of the run at 5 s: 2 messages sent and 2 stored but not flushed to disk in time."
    )
    frames = Controller(flush_timeouts, horizon="10s").frames
    assert frames is not None
    source = frames.captions[-1][1]
    assert "not SEND_OK: MQClientAPIImpl.processSendResponse (FLUSH_DISK_TIMEOUT × 2)" in source


def flush_timeouts() -> Lab:
    """Lab 01b's first run, small: broker-a stores M0001 and M0002 (at 1 s, 2 s) but answers FLUSH_DISK_TIMEOUT."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    lab.set_broker_fault("broker-a", put_status="FLUSH_DISK_TIMEOUT")
    for i in range(2):
        lab.at(f"{i + 1}s", p.send, Message("TopicTest", f"m{i}"))
    return lab


def test_the_last_steps_summary_is_at_the_time_its_clock_shows() -> None:
    """Lab 01b's last caption read "End of the run at 10 s" under "t = 8 s": finding the end ran the clock on to the
    horizon after the frame's clock was read. The summary's time is the clock of the frame it is shown on."""
    frames = Controller(flush_timeouts, horizon="10s").frames
    assert frames is not None
    assert frames.now_ms[-1] == 10_000 and frames.clock(len(frames) - 1).startswith("t = 10 s ")  # the run's end
    assert frames.captions[-1][0].startswith("End of the run at 10 s: ")
    assert frames.now_ms[-2] == 2_000 and not frames.captions[-2][0].startswith("End of the run")  # the last event


def _takeover() -> Lab:
    """Lab 07b's first picture: orderly c1 consumes a, suspends on bad (forever), pulls c, crashes at 10 s; c2 of the
    same group starts at 11 s and takes the queue's lock when c1's lease expires."""
    from rmqlab import ConsumeOrderlyStatus as O

    def bad_suspends(msgs: list[Message], ctx: object) -> O:
        return O.SUSPEND_CURRENT_QUEUE_A_MOMENT if msgs[0].body == "bad" else O.SUCCESS

    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg", send_which_queue_start=0)
    c1 = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=bad_suspends, orderly=True, name="c1")
    for i, body in enumerate(("a", "bad", "c")):
        lab.at(f"{2 + i}s", p.send, Message("TopicTest", body))
    lab.at("10s", c1.crash)
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=bad_suspends, orderly=True, name="c2", start="11s")
    return lab


def test_a_message_pulled_behind_one_being_retried_is_counted_where_it_waits() -> None:
    """Lab 07b: 3 sent, M0001 consumed, M0002 suspended again and again by c2; M0003, pulled by c2 behind it, has no
    consume result. The summary counted it nowhere ("3 sent, 1 consumed, 1 still waiting"); it says where it waits,
    named from the engine's state at the frame's clock (c2's ProcessQueue of the queue), and its source line the
    pull."""
    frames = Controller(_takeover, horizon="90s").frames
    assert frames is not None
    plain, source = frames.captions[-1]
    assert plain == (
        "End of the run at 1 m 30 s: 3 messages sent, 1 consumed, 1 still waiting for another try (up to 27 "
        "deliveries) and M0003 waits behind M0002 in c2; the offset of 1 queue was saved."
    )  # stop 34: "1 pulled by c2 (…), not consumed" did not say that it waits behind the message c2 retries
    assert "pulled: DefaultMQPushConsumerImpl.pullMessage" in source
    held = [pq for c in frames.snapshots[-1].consumers if c.client_id == "c2" for pq in c.process_queues]
    assert [(pq.queue, pq.msg_tree_ids) for pq in held if pq.msg_tree_ids] == [
        ("TopicTest@broker-a:0", ("M0002", "M0003"))  # the engine's state the caption reads
    ]


def test_a_run_with_no_consumer_says_its_messages_are_stored() -> None:
    """Lab 01a/01b/06's producer-only runs: the stored messages are counted (stored, no consumer), not left out."""
    lab = flush_timeouts().run(until="5s")
    assert run_summary(lab.trace, now_ms=lab.now, state=lab.snapshot()) == (
        "End of the run at 5 s: 2 messages sent, 2 stored (no consumer) and 2 stored but not flushed to disk in time."
    )


def _last_caption(lab: str, index: int) -> str:
    """The last caption of the ``index``-th dashboard lab ``lab`` builds (the lab's own run, stepped headless)."""
    import pytest
    from test_lab_captions import _dashboards

    with pytest.MonkeyPatch.context() as patch:
        frames = _dashboards(lab, patch)[index].frames
    assert frames is not None and frames.complete
    return str(frames.captions[-1][0])


def test_retried_messages_in_retry_queues_no_route_lists_are_stranded_not_waiting() -> None:
    """Lab 04b's first picture: %RETRY%cg was written with 4 queues and read with 1; M0001, M0002 and M0004 went to
    queues 2 and 3, which no route lists: no consumer will pull them until the topic is updated. The summary said
    "3 still waiting for another try" (stop 34's review); the queue's listing is read from the engine's state."""
    end = _last_caption("04b_stranded_retry_queues.py", 0)
    assert end.endswith(" and 3 never pulled, stranded in retry queues that no route lists.")
    assert "waiting for another try" not in end


def test_messages_delivered_again_after_a_restart_are_counted() -> None:
    """Lab 05's crash picture: c1 crashes at 30 s before its offset past M0001 is saved and restarts at 40 s; M0002
    (still in its slow listener at the crash) and M0003–M0005 are delivered again. "5 consumed" hid it."""
    end = _last_caption("05_offsets_process_queue.py", 2)  # its third: the first two run crash-free
    assert "5 consumed (4 of them delivered twice: again after a restart)" in end
    lab = demo_lab().run(until="2m")  # nobody restarts: nothing is delivered twice
    assert "twice" not in run_summary(lab.trace, now_ms=lab.now)


def test_broadcasting_counts_each_instances_dropped_copy() -> None:
    """Lab 08's BROADCASTING picture: c1 and c2 each fail and drop their own copy of the 3 messages: 6 copies were
    dropped, 3 by each (the summary read "3 dropped" beside 6 crossed tokens)."""
    end = _last_caption("08_broadcasting_vs_clustering.py", 1)
    assert "3 messages sent and 6 copies dropped without a retry (3 by c1 and 3 by c2)" in end


def test_messages_waiting_behind_a_suspended_one_are_named() -> None:
    """Lab 09's first picture: pay-1 suspends M0003 again and again; M0004 and M0005, pulled behind it in the same
    orderly ProcessQueue, wait for it (named from the engine's state, not "2 pulled by pay-1 … not consumed")."""
    end = _last_caption("09_capstone.py", 0)
    assert "1 still waiting for another try (up to 28 deliveries) and M0004 and M0005 wait behind M0003 in pay-1" in end


def test_a_send_the_selector_refused_is_counted_apart_from_the_sent() -> None:
    """Lab 06's strict picture: 12 messages, M0009 refused by strict_by_order_id (null: MQClientException before any
    send), M0005's one attempt failed, 10 stored. The summary read "11 messages sent, 2 of them never stored … and
    10 stored", which does not add up (revD defect 4). Its orderly consumer c1, started at 46 s, consumes broker-b's 9;
    M0001 stays on broker-a, which is down."""
    end = _last_caption("06_ordered_send.py", 4)
    assert end == (
        "End of the run at 50 s: 12 messages, 1 refused before sending (the selector gave no queue), 1 sent and "
        "never stored (the send failed), 9 consumed and 1 stored at the broker, not pulled yet."
    )


def test_messages_pulled_and_not_consumed_and_the_saved_offsets_read_as_a_sentence() -> None:
    """Lab 07a's cut-link picture ended "7 pulled by c1 (TopicTest@broker-a:0), not consumed and the offset of 1
    queue saved" (revD): the pulled messages say where from, and the offsets saved are a clause of their own."""
    end = _last_caption("07a_orderly_locks.py", 3)
    said = r"\d+ pulled by c1 from TopicTest@broker-a:0 but not consumed; the offset of 1 queue was saved\.$"
    assert re.search(said, end)


def test_a_dead_letter_retention_deleted_is_still_dead_lettered_and_said_deleted() -> None:
    """Lab 04's 72 h picture: refund 17's dead letter and its first copy go at 3 d 4 h; order 19, the newest entry
    (the file being written), stays. The end caption counts refund 17 by its fate and says it is gone."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=lambda m, c: C.RECONSUME_LATER, max_reconsume_times=0)
    lab.at("1s", producer.send, Message("T", "refund 17"))
    lab.at("2m", producer.send, Message("T", "order 19"))
    lab.run(until="78h")
    assert run_summary(lab.trace, now_ms=lab.now, state=lab.snapshot()) == (
        "End of the run at 3 d 6 h: 2 messages sent, 2 dead-lettered and 1 since deleted by retention (stored 72 h "
        "before or more); the offset of 1 queue was saved."
    )


def test_broadcasting_counts_each_instances_consumed_copy() -> None:
    """Lab 08's "Where the offsets live": c1 and c2 each consume their own copy of the 3 messages, 6 tokens in two
    "consumed" trays: the end caption read "3 messages sent and 3 consumed" (revF 7). A clustering run still counts
    messages."""
    end = _last_caption("08_broadcasting_vs_clustering.py", 2)
    assert "3 messages sent and 6 copies consumed (3 by c1 and 3 by c2)" in end
    lab = demo_lab().run(until="2m")  # one CLUSTERING consumer: each message once
    assert "copies" not in run_summary(lab.trace, now_ms=lab.now)


def test_broadcasting_copies_consumed_read_in_chinese() -> None:
    """The per-instance count in Chinese says consumed, not dropped (the dropped words' "{consumer} 丢弃 {n} 份")."""
    with speaking("zh"):
        end = _last_caption("08_broadcasting_vs_clustering.py", 2)
    assert "6 份副本被消费（c1 消费 3 份，c2 消费 3 份）" in end, end
