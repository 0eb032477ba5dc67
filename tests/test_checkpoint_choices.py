"""A checkpoint offers only what the paused run makes plausible, and each wrong choice gets its own hint.

View-model level (no browser): :func:`rmqlab.widgets.frames.build_run` resolves the checkpoints of small runs and
the tests read the choices, the per-choice near-miss hints (:meth:`AskedCheckpoint.check`) and the page's JSON.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from rmqlab.widgets import Checkpoint, demo_lab
from rmqlab.widgets.checkpoints import AskedCheckpoint, CheckpointError, Choice
from rmqlab.widgets.frames import build_run
from test_offset_strip import lab05

from rmqlab import ConsumeConcurrentlyStatus, ConsumeOrderlyStatus, Lab, Message


def _asked(make_lab: Any, horizon: str, *checkpoints: Checkpoint) -> tuple[AskedCheckpoint, ...]:
    return build_run(make_lab, horizon=horizon, checkpoints=checkpoints).checkpoints


def failing() -> Lab:
    return demo_lab(listener="fail_all", max_reconsume_times=1)


def ordered_send() -> Lab:
    """Lab 06's tiny run: two brokers x 4 queues, order 3 sent with a modulo selector, no consumer."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("TopicTest")
    p = lab.add_producer("pg")
    for k in range(8):
        lab.at(f"{1 + k}s", p.send_with_selector, Message("TopicTest", f"order {k}"), lambda mqs, m, a: mqs[a % 8], k)
    return lab


def two_consumers(model: str) -> Lab:
    """Lab 08's run: c1 and c2 of group cg in ``model``; every message fails once."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=2)
    p = lab.add_producer("pg")

    def once(msgs: list[Any], ctx: Any) -> ConsumeConcurrentlyStatus:
        failed = (msgs[0].reconsume_times == 0 and model == "CLUSTERING") or msgs[0].body == "m1"
        return ConsumeConcurrentlyStatus.RECONSUME_LATER if failed else ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    for name in ("c1", "c2"):
        lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=once, name=name, message_model=model)
    for k in range(3):
        lab.at(f"{2 + k}s", p.send, Message("TopicTest", f"m{k + 1}"))
    return lab


def orderly_suspend() -> Lab:
    """Lab 07a's tiny run: a, bad, c on one queue of an orderly consumer; bad always suspends."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg", send_which_queue_start=0)

    def bad_suspends(msgs: list[Any], ctx: Any) -> ConsumeOrderlyStatus:
        bad = msgs[0].body == "bad"
        return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT if bad else ConsumeOrderlyStatus.SUCCESS

    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=bad_suspends, orderly=True, name="c1",
                     max_reconsume_times=3)  # fmt: skip
    for i, body in enumerate(("a", "bad", "c")):
        lab.at(f"{2 + i}s", p.send, Message("TopicTest", body))
    return lab


def test_a_send_back_offers_the_retry_path_of_its_group_only() -> None:
    """Where a failed message goes: the queue it came from, its group's retry queue, delay levels 1-5 around level 3
    (3 + reconsumeTimes 0), its group's DLQ, the ProcessQueue it is in, the group's consumed and dropped trays
    (dropped always: offered only in the run that drops, it gave lab 04's retryQueueNums = 0 answer away); nothing
    else."""
    (cp,) = _asked(failing, "2m", Checkpoint(before="send_back", ask="where"))
    assert [c.key for c in cp.choices] == [
        "queue:TopicTest@broker-a:0",
        "queue:%RETRY%cg@broker-a:0",
        "delay:broker-a:1", "delay:broker-a:2", "delay:broker-a:3", "delay:broker-a:4", "delay:broker-a:5",
        "queue:%DLQ%cg@broker-a:0",
        "pq:c1:TopicTest@broker-a:0",
        "done:cg",
        "dropped:cg",
    ]  # fmt: skip
    assert cp.answer == "delay:broker-a:3"
    assert [c.label for c in cp.choices if c.key.startswith("delay:")][:3] == [
        "delay level 1 · 1 s", "delay level 2 · 5 s", "delay level 3 · 10 s"]  # fmt: skip


def test_each_wrong_place_gets_the_hint_for_that_mistake() -> None:
    """The DLQ: the run's count against the max; the retry queue: not yet, it waits at a level first; a wrong level:
    the rule and this message's count; the consumed tray: not an acknowledgement; in place: it is sent back."""
    (cp,) = _asked(failing, "2m", Checkpoint(before="send_back", ask="where"))
    hints = {key: cp.check(key) for key in (c.key for c in cp.choices)}
    assert hints["delay:broker-a:3"] == (True, cp.explain)
    assert hints["queue:%DLQ%cg@broker-a:0"] == (False, (
        "Not yet: M0001 has been reconsumed 0 times and c1's own maxReconsumeTimes is 1; the broker dead-letters "
        "only when reconsumeTimes reaches it, and parks the copy in SCHEDULE_TOPIC_XXXX first."))  # fmt: skip
    assert hints["queue:%RETRY%cg@broker-a:0"][1].startswith("Not yet: the copy first waits in SCHEDULE_TOPIC_XXXX")
    assert hints["delay:broker-a:1"][1] == (
        "The broker picks the level as 3 + reconsumeTimes; M0001 has been reconsumed 0 times so far."
    )
    assert hints["done:cg"][1].startswith("RECONSUME_LATER is not an acknowledgement")
    assert hints["pq:c1:TopicTest@broker-a:0"][1].startswith("A concurrent consumer does not retry in place")
    assert hints["dropped:cg"][1] == (
        "Nothing is dropped here: the group has a retry queue, so the broker stores the send-back "
        "(at a delay level, in the retry topic or in the dead-letter topic).")  # fmt: skip
    assert len({text for right, text in hints.values() if not right}) == 6  # six mistakes, six different hints
    assert all("level 3" not in text for right, text in hints.values() if not right)  # a hint never tells


@pytest.mark.parametrize(("max_reconsume_times", "allowed"), [(-1, 16), (1, 1)])
def test_the_group_max_at_the_first_retry_is_the_send_backs_own(max_reconsume_times: int, allowed: int) -> None:
    """Stopped before the first ``scheduled`` (lab 04b), no send-back is recorded yet: the broker parks the copy
    before the client records its send-back. The hint reads the max that send-back carries (an unset one, -1, is
    16 in 4.9.7 ``DefaultMQPushConsumerImpl.getMaxReconsumeTimes``), never "None"."""

    def lab() -> Lab:
        return demo_lab(listener="fail_all", max_reconsume_times=max_reconsume_times)

    (cp,) = _asked(lab, "2m", Checkpoint(before="scheduled", ask="where"))
    right, hint = cp.check("queue:%DLQ%cg@broker-a:0")
    assert not right and hint.startswith(
        f"Not yet: M0001 has been reconsumed 0 times and c1's own maxReconsumeTimes is {allowed}; the broker"
    )


def test_a_dead_letter_hint_counts_the_tries_from_the_event() -> None:
    """The paused step holds the redelivery too: the hint counts the failing delivery (reconsumed once, max 1)."""
    (cp,) = _asked(failing, "2m", Checkpoint(before="dead_lettered", nth=2, ask="where"))
    assert cp.answer == "queue:%DLQ%cg@broker-a:0"
    right, hint = cp.check("queue:%RETRY%cg@broker-a:0")
    assert not right
    assert hint.startswith("M0002 has already been reconsumed 1 time, and c1's own maxReconsumeTimes is 1")


def test_a_send_offers_the_queues_of_its_topic_and_no_retry_places() -> None:
    """Lab 06's question (where order 3 is stored): the topic's eight queues on both brokers and, next to the
    producer, "send fails, not stored"; no delay level, DLQ, retry queue or tray — they do not exist for a send."""
    (cp,) = _asked(ordered_send, "10s", Checkpoint(before="stored", msg_id="M0004", ask="where"))
    assert cp.answer == "queue:TopicTest@broker-a:3"
    queues = [f"queue:TopicTest@broker-{b}:{q}" for b in "ab" for q in range(4)]
    assert [c.key for c in cp.choices] == [*queues, "failed:pg"]
    assert cp.choices[-1].label == "send fails, not stored"
    assert [c.label for c in cp.choices][3:5] == ["TopicTest:3 · broker-a", "TopicTest:0 · broker-b"]  # told apart
    assert "Look at the broker" in cp.check("queue:TopicTest@broker-b:3")[1]
    assert "Look at the queue number" in cp.check("queue:TopicTest@broker-a:0")[1]


@pytest.mark.parametrize(
    ("model", "answer", "offered", "absent"),
    [
        ("CLUSTERING", "delay:broker-a:3", {"queue:%DLQ%cg@broker-a:0", "queue:%RETRY%cg@broker-a:0", "done:cg"},
         {"dropped:c1", "pq:c2:TopicTest@broker-a:0"}),
        ("BROADCASTING", "dropped:c1", {"delay:broker-a:3", "done:c1", "pq:c1:TopicTest@broker-a:0"},
         {"queue:%DLQ%cg@broker-a:0", "queue:%RETRY%cg@broker-a:0", "pq:c2:TopicTest@broker-a:0"}),
    ],
)  # fmt: skip
def test_a_failure_in_each_message_model(model: str, answer: str, offered: set[str], absent: set[str]) -> None:
    """Lab 08's question asked on the consume result, so it fits both models: CLUSTERING offers the retry path;
    BROADCASTING offers the drop, the misreading "it is retried at level 3" with its hint, and no DLQ or retry queue
    (a broadcasting group has neither); another instance's copy is never a choice."""
    (cp,) = _asked(lambda: two_consumers(model), "30s", Checkpoint(before="consumed", ask="where"))
    keys = {c.key for c in cp.choices}
    assert (cp.answer, offered <= keys, keys & absent) == (answer, True, set())
    if model == "BROADCASTING":
        assert cp.check("delay:broker-a:3")[1].startswith("In BROADCASTING a failure is not sent back")


def test_when_offers_the_actors_clocks_and_the_usual_misreadings() -> None:
    """Lab 07a's question (when bad comes back after its suspension at 3 s): 4 s, the concurrent retry's 10 s later
    and the 30 s clamp, each wrong time with a hint that says early or late and why; no delay-level grid."""
    (cp,) = _asked(orderly_suspend, "20s", Checkpoint(before="delivered", nth=3, ask="when"))
    times = [int(c.key) for c in cp.choices]
    assert cp.answer == "4000" and 4000 in times and len(times) <= 5 and times == sorted(times)
    assert {13_000, 33_000} <= set(times)
    late = cp.check("13000")[1]
    assert late.startswith("Too late. That is a concurrent consumer's retry delay")
    assert cp.check("33000")[1].startswith("Too late. 30 s is the longest suspension a listener may ask for")
    assert all(cp.check(str(t))[1].startswith("Too early.") for t in times if t < 4000)
    assert all(abs(t - 4000) >= 1000 for t in times if t != 4000)  # no "4.02 s" beside the answer


def test_a_delay_question_offers_the_neighbouring_levels() -> None:
    (cp,) = _asked(failing, "2m", Checkpoint(before="delay_delivered", ask="when"))
    assert [c.key for c in cp.choices] == ["2000", "6000", "11000", "31000", "61000"]
    assert cp.check("31000") == (False, "Too late. That is delay level 4. The broker parked this copy at level 3 + "
                                        "its reconsumeTimes at the send-back.")  # fmt: skip


def test_the_page_gets_each_choices_hint_and_a_labs_own_hint_wins() -> None:
    (cp,) = _asked(failing, "2m", Checkpoint(before="send_back", ask="where"))
    page = {c["key"]: c["hint"] for c in cp.to_json()["choices"]}  # type: ignore[union-attr]
    assert page["delay:broker-a:3"] == "" and page["done:cg"] == cp.check("done:cg")[1]
    (own,) = _asked(failing, "2m", Checkpoint(before="send_back", ask="where", hint="Count the reconsumes."))
    assert {own.check(c.key)[1] for c in own.choices if c.key != own.answer} == {"Count the reconsumes."}


def test_an_optional_checkpoint_asks_nothing_on_a_run_without_its_event() -> None:
    """A knob may take the event away (lab 04's max_reconsume_times=0 leaves no second send-back): an optional
    checkpoint is left out; a required one still names what is wrong."""
    never = Checkpoint(before="send_back", nth=9, ask="where")
    assert _asked(failing, "2m", Checkpoint(before="send_back", nth=9, ask="where", optional=True)) == ()
    with pytest.raises(CheckpointError, match="nth=9 but this run has 6 such event"):
        _asked(failing, "2m", never)


def test_a_when_question_pauses_before_the_moment_it_asks_about() -> None:
    """The paused clock never reads the answer (lab 07a's bad comes back at 4 s, when M0003 is also sent): the run
    pauses on the last step before 4 s, the paused moment is offered as "not at once", so the answer, in time order,
    is not the first button; the explanation is the caption of the step that holds the event."""
    built = build_run(orderly_suspend, horizon="20s", checkpoints=(Checkpoint(before="delivered", nth=3, ask="when"),))
    (cp,) = built.checkpoints
    assert built.snapshots[cp.frame].now_ms == 3_000 and cp.answer == "4000"
    times = [int(c.key) for c in cp.choices]
    assert times == sorted(times) and times[0] == 3_000 and times.index(4_000) == 1
    assert cp.check("3000")[1].startswith("Too early. Not at once:")
    assert "M0002" in cp.explain and "again" in cp.explain


def test_a_lock_checkpoint_can_name_its_queue() -> None:
    """An orderly consumer locks its group's %RETRY% queue too, before the topic's: ``queue`` picks the lock the
    lesson is about (lab 07b: c2 takes TopicTest's queue after crashed c1's lease runs out)."""

    def takeover() -> Lab:
        lab = Lab(seed=7)
        lab.add_broker("broker-a")
        lab.create_topic("TopicTest", queues=1)
        p = lab.add_producer("pg")
        c1 = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=lambda m, c: ConsumeOrderlyStatus.SUCCESS,
                              orderly=True, name="c1")  # fmt: skip
        lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=lambda m, c: ConsumeOrderlyStatus.SUCCESS,
                         orderly=True, name="c2", start="11s")  # fmt: skip
        lab.at("2s", p.send, Message("TopicTest", "a"))
        lab.at("10s", c1.crash)
        return lab

    first, topic = _asked(takeover, "90s", Checkpoint(before="lock_acquired", actor="consumer:c2", ask="who"),
                          Checkpoint(before="lock_acquired", actor="consumer:c2", queue="TopicTest@broker-a:0",
                                     ask="who", name="topic"))  # fmt: skip
    assert first.event.get("queue") == "%RETRY%cg@broker-a:0"
    assert (topic.event.get("queue"), topic.answer, [c.key for c in topic.choices]) == (
        "TopicTest@broker-a:0", "c2", ["c1", "c2"])  # fmt: skip
    assert topic.question == "Which instance takes the lock on TopicTest@broker-a:0 next?"
    with pytest.raises(CheckpointError, match=r"on TopicTest@broker-a:9$"):
        _asked(takeover, "90s", Checkpoint(before="lock_acquired", queue="TopicTest@broker-a:9", ask="who"))


def test_a_when_mask_hides_the_time_left_and_the_answers_time_only() -> None:
    """Paused at 3 s, answer 4 s: "1 s", "1000 ms" and "t = 4 s" are hidden; "11 s", "2.1 s", "level 4" stay."""
    from rmqlab.widgets.checkpoint_mask import mask_model, when_mask

    mask = when_mask(4_000, 3_000)
    said = "c1 pauses it for 1 s (waits 1000 ms), back at t = 4 s; not 11 s, 2.1 s or level 4; again in 1 s"
    assert mask(said) == (
        "c1 pauses it for … (your question) (waits … (your question)), back at t = … (your question); not 11 s, "
        "2.1 s or level 4; again in … (your question)"
    )
    note = Choice("k", "suspended · again in 1 s")
    assert mask_model((note,), mask) == (Choice("k", "suspended · again in (hidden)"),)
    assert mask_model((note,), None)[0] is note


def test_a_when_mask_leaves_kinds_alone_though_they_are_strings() -> None:
    """A space-time row's kind is a ``StrEnum``: masking the words of a paused frame must keep it a kind (it was
    turned into a plain ``"note"`` and the space-time picture of lab 03's paused step raised AttributeError)."""
    from rmqlab.widgets.checkpoint_mask import mask_model, when_mask
    from rmqlab.widgets.spacetime_model import ArrowKind, Row

    row = Row(1, 0, ArrowKind.NOTE, "consumer:c1", "consumer:c1", "again in 1 s", "consumer start (cg)", None)
    masked = mask_model((row,), when_mask(4_000, 3_000))[0]
    assert (type(masked.kind), masked.kind, masked.label) == (ArrowKind, ArrowKind.NOTE, "again in (hidden)")


def test_a_dead_letter_when_offers_the_retry_counts_a_learner_gets_wrong() -> None:
    """Lab 03's question (when does the broker write the always-failing M0001 to the DLQ, asked at its 16th failure,
    parked at level 18 until 4 h 45 m 40 s): the wrong times are retry mistakes — now (one retry fewer), the level-17
    wait, one retry more (+2 h) and 18 retries for 16 (+4 h) — never a broker's housekeeping clock."""

    def always_fails() -> Lab:
        return demo_lab(listener="fail_all")

    (cp,) = _asked(always_fails, "10h", Checkpoint(before="dead_lettered", ask="when"))
    answer = int(cp.answer)
    times = [int(c.key) for c in cp.choices]
    hour = 3_600_000
    assert times[1:] == [answer - hour, answer, answer + 2 * hour, answer + 4 * hour]
    assert 0 <= times[0] - (answer - 2 * hour) < 1_000  # the paused moment: the 16th failure, just after its send-back
    hints = [cp.check(str(t))[1] for t in times if t != answer]
    assert hints[0].startswith("Too early. Not yet: at this send-back M0001's reconsumeTimes was 15, below")
    assert hints[1].startswith("Too early. That is delay level 17, the previous wait.")
    assert hints[2].startswith("Too late. One retry too many:")
    assert hints[3].startswith("Too late. That counts two retries more than c1 allows: its maxReconsumeTimes is 16")
    assert not any("clock is due" in h for h in hints)


def crashed_while_slow() -> Lab:
    """Lab 05's crash run: ok0, slow (60 s listener), ok2–ok4 at 1..5 s; c1 crashes at 30 s and restarts at 40 s."""
    return lab05(crash=True)


@pytest.mark.parametrize(
    ("language", "stored", "pulled"),
    [("en", "broker-a's queue TopicTest:0", "c1's ProcessQueue TopicTest:0"),
     ("zh", "broker-a 的队列 TopicTest:0", "c1 的 ProcessQueue TopicTest:0")],
)  # fmt: skip
def test_a_stored_queue_and_a_consumers_process_queue_of_it_read_apart(language: str, stored: str, pulled: str) -> None:
    """revD 6: lab 05's crash question offered "TopicTest:0" and "TopicTest:0 (c1)", one place to a student's eye."""
    from rmqlab.core.i18n import speaking

    ask = Checkpoint(before="delivered", msg_id="M0002", nth=2, pause_before="pulled", ask="where")
    with speaking(language):
        (cp,) = _asked(crashed_while_slow, "2m", ask)
    labels = {c.key: c.label for c in cp.choices}
    assert labels["queue:TopicTest@broker-a:0"] == stored
    assert labels["pq:c1:TopicTest@broker-a:0"] == pulled
    assert cp.answer == "pq:c1:TopicTest@broker-a:0"


def rollback_b() -> Lab:
    """Lab 07b's autoCommit run: a … e on one queue of an orderly consumer with autoCommit off; the listener returns
    ROLLBACK for b the first time, COMMIT for c, SUCCESS otherwise."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg", send_which_queue_start=0)
    rolled: list[str] = []

    def listener(msgs: Any, ctx: Any) -> ConsumeOrderlyStatus:
        ctx.auto_commit = False
        if msgs[0].body == "b" and not rolled:
            rolled.append(msgs[0].msg_id)
            return ConsumeOrderlyStatus.ROLLBACK
        return ConsumeOrderlyStatus.COMMIT if msgs[0].body == "c" else ConsumeOrderlyStatus.SUCCESS

    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=listener, orderly=True, name="c1")
    for i, body in enumerate("abcde"):
        lab.at(f"{2 + i}s", p.send, Message("TopicTest", body))
    return lab


ORDERLY_LOCAL = ["queue:TopicTest@broker-a:0", "pq:c1:TopicTest@broker-a:0", "done:cg", "dropped:cg"]


@pytest.mark.parametrize(("make_lab", "msg_id", "nth", "status"), [
    (rollback_b, "M0002", 1, "ROLLBACK"),
    (orderly_suspend, "M0002", 1, "SUSPEND_CURRENT_QUEUE_A_MOMENT"),
    (orderly_suspend, "M0002", 3, "SUSPEND_CURRENT_QUEUE_A_MOMENT"),
])  # fmt: skip
def test_an_orderly_failure_short_of_its_max_offers_no_retry_place(
    make_lab: Any, msg_id: str, nth: int, status: str
) -> None:
    """An orderly consumer keeps what it fails (ProcessQueue.rollback, makeMessageToConsumeAgain) until reconsumeTimes
    passes maxReconsumeTimes: no delay level, %RETRY% or %DLQ% on offer (revF 4: 07b offered 11 places, 7 of them
    impossible), and each wrong place its own hint."""
    (cp,) = _asked(make_lab, "30s", Checkpoint(before="consumed", msg_id=msg_id, nth=nth, ask="where"))
    assert (cp.event.get("status"), cp.answer) == (status, "pq:c1:TopicTest@broker-a:0")
    assert [c.key for c in cp.choices] == ORDERLY_LOCAL
    hints = {key: cp.check(key)[1] for key in ORDERLY_LOCAL if key != cp.answer}
    assert hints["queue:TopicTest@broker-a:0"] == (
        f"{status} is the client's own business: an orderly consumer hands nothing back to the broker's queue until "
        "reconsumeTimes passes maxReconsumeTimes (checkReconsumeTimes).")  # fmt: skip
    assert hints["done:cg"].startswith(f"{status} is not a success")
    assert hints["dropped:cg"].startswith("An orderly consumer drops no message it failed")


def test_an_orderly_failure_past_its_max_still_offers_the_send_back_path() -> None:
    """The 4th suspend of 07a's bad (maxReconsumeTimes 3) is sent back (checkReconsumeTimes → sendMessageBack): its
    question offers the delay levels around 3 + reconsumeTimes, %RETRY%cg and %DLQ%cg."""
    (cp,) = _asked(orderly_suspend, "30s", Checkpoint(before="consumed", msg_id="M0002", nth=4, ask="where"))
    keys = [c.key for c in cp.choices]
    assert cp.answer == "delay:broker-a:6"
    assert {"queue:%RETRY%cg@broker-a:0", "queue:%DLQ%cg@broker-a:0", "delay:broker-a:4", "delay:broker-a:8"} <= set(
        keys
    )


def slow_unlock_shutdown() -> Lab:
    """Lab 07b's clean shutdown: a … f on one queue of an orderly c1 from 2 s; broker-a answers 4 s late from 7.5 s;
    c1 shuts down at 8 s and waits for unlockAll's answer up to its 1,000 ms timeout (it ends at 9.001 s)."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg", send_which_queue_start=0)
    c1 = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=lambda msgs, ctx: ConsumeOrderlyStatus.SUCCESS,
                          orderly=True, name="c1")  # fmt: skip
    for i, body in enumerate("abcdef"):
        lab.at(f"{2 + i}s", p.send, Message("TopicTest", body))
    lab.at("7.5s", lab.set_broker_fault, "broker-a", response_delay_ms="4s")
    lab.at("8s", c1.shutdown)
    return lab


def test_when_choices_share_the_precision_the_answer_needs() -> None:
    """07b's shutdown ends at 9.001 s: its choices read "t = 8 s | 9.001 s | 20 s | 21 s", the right one the only
    non-round one (revF 10). Every choice now reads to the millisecond when one needs it."""
    (cp,) = _asked(slow_unlock_shutdown, "15s", Checkpoint(before="lifecycle", actor="consumer:c1", nth=2, ask="when"))
    assert cp.answer == "9001"
    labels = [c.label for c in cp.choices]
    assert all(re.fullmatch(r"t = (\d+ m )?\d+\.\d{3} s", label) for label in labels), labels
    assert [c.label for c in cp.choices if c.key == cp.answer] == ["t = 9.001 s"]
    (round_cp,) = _asked(orderly_suspend, "20s", Checkpoint(before="delivered", nth=3, ask="when"))
    assert all(not re.search(r"\.\d{3} s", c.label) for c in round_cp.choices)  # round times stay round
