"""A step's caption leads with the event that matters (stop 34's review, item 5), by one rule over every step:
a retry decision, a fault, a lifecycle or lock change, an orderly ConsumeRequest giving its thread back; then, at a
checkpoint's pause, the events of what the question is about (its event's consumer, then its message); then an
offset that jumps past several messages; then the consumers' other results; sends and deliveries last. The count of
the step's other events names the messages they consumed. Read from the labs' own dashboards (never by frame index:
frames are found by their checkpoint, their clock or their words)."""

from __future__ import annotations

import pytest
from test_lab_captions import _dashboards

from rmqlab.narrate import narrate
from rmqlab.narrate.steps import step_caption


def _frames(lab: str, index: int, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    frames = _dashboards(lab, monkeypatch)[index].frames
    assert frames is not None and frames.complete
    return frames


def _paused(lab: str, index: int, monkeypatch: pytest.MonkeyPatch, question: int = 0) -> str:
    frames = _frames(lab, index, monkeypatch)
    return str(frames.captions[frames.checkpoints[question].frame][0])


def test_a_pause_leads_with_what_its_question_is_about_unless_that_tells_the_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Lab 09's first pause (before bad-card's first delivery) asks where bad-card (M0003) will wait: it led with "pay-
    producer sends M0004", now with pay-1 fetching bad-card itself; lab 02a's pause asks about c1's M0001. Lab 08's
    BROADCASTING picture (its second question) asks where c1's failed copy of M0001 goes (answer: c1 drops it): it
    kept "pg sends M0001" (revD), as if "c1 fetches M0001" named the answer, the "dropped · c1" tray, by naming c1;
    only "c1 drops the failed M0001" does (tests/test_lab_pictures.py: a pause never says its answer)."""
    paused = _paused("09_capstone.py", 0, monkeypatch)
    assert paused.startswith("pay-1 fetches M0003 from Payments queue 0 on broker-a.")
    assert _paused("02a_consume_failure_send_back.py", 0, monkeypatch).startswith(
        "c1 fetches M0001 from TopicTest queue 0 on broker-a."
    )
    assert _paused("08_broadcasting_vs_clustering.py", 1, monkeypatch, question=1).startswith(
        "c1 fetches M0001 from TopicTest queue 0 on broker-a."
    )


def test_an_offset_that_jumps_leads_its_step(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lab 05: at 62 s the slow M0002 is done and c1's offset jumps from 1 to 5 (the step said only "done with
    M0002"); lab 07b's autoCommit-off picture: COMMIT moves the offset from 0 to 3 (it said "done with M0003")."""
    frames = _frames("05_offsets_process_queue.py", 0, monkeypatch)
    at_62 = [c[0] for c, t in zip(frames.captions, frames.now_ms, strict=True) if t == 62_000]
    assert at_62 == [
        "c1's offset on TopicTest queue 0 on broker-a jumps from 1 to 5: every message before it is done. "
        "(and 1 more: M0002 consumed, see the Events tab)"
    ]
    frames = _frames("07b_orderly_failover.py", 3, monkeypatch)
    jump = "c1's offset on TopicTest queue 0 on broker-a jumps from 0 to 3"
    assert any(c[0].startswith(jump) for c in frames.captions)


def test_an_orderly_consumer_giving_its_thread_back_leads_its_step(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lab 07a's last picture: after 60 s on queue 0 the ConsumeRequest gives the thread back (the step said "done
    with M0006", and the yield was bookkeeping, not shown)."""
    frames = _frames("07a_orderly_locks.py", 4, monkeypatch)
    at_77 = [c for c, t in zip(frames.captions, frames.now_ms, strict=True) if t == 77_000]
    assert at_77[0][0].startswith(
        "c1 has consumed TopicTest queue 0 on broker-a for over 60 s in a row, so it gives the thread back"
    )
    assert at_77[0][1].startswith("in the source: ConsumeMessageOrderlyService")


def test_the_count_of_other_events_names_the_messages_they_consumed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lab 09's second picture: the step where M0003 goes to the dead-letter topic also consumes M0004 and M0005,
    which waited behind it; "(and 10 more)" hid them (9 more since bad-card's 7 s delivery is its own step)."""
    frames = _frames("09_capstone.py", 1, monkeypatch)
    dead = [c[0] for c in frames.captions if "goes to the dead-letter topic %DLQ%pay-cg" in c[0]]
    assert dead == [
        "pay-1 has retried M0003 5 times, its limit, so it goes to the dead-letter topic %DLQ%pay-cg. (and 9 more: "
        "M0004, M0005 consumed, see the Events tab)"
    ]


def test_without_a_subject_a_send_still_leads_a_plain_send_step() -> None:
    """Away from a pause, the rule is unchanged for a send that is stored and fetched at once: the send (the cause)
    leads, the fetch is counted."""
    from rmqlab.widgets import demo_lab

    lab = demo_lab().run(until="1500ms")
    captions = [c for c in narrate(lab.trace) if c.meaningful and c.time_ms == 1_000]
    sends = [c for c in captions if c.kind.value in ("send_attempt", "stored", "pulled", "send_result")]
    assert step_caption(sends).plain.startswith("pg sends M0001")


def test_a_tray_answer_is_told_by_the_sentence_that_puts_the_message_there_in_either_language() -> None:
    """The pause's guard (widgets.checkpoint_lead): a "consumed · cg" or "dropped · c1" answer is said by the plain
    sentence that puts the message there, in the caption's language, not by the owner's name alone."""
    from rmqlab.widgets.checkpoint_lead import _place_words

    from rmqlab.core.i18n import speaking

    assert _place_words("dropped:c1") == ["drops the failed"]
    assert _place_words("done:cg") == ["'s listener is done with"]
    with speaking("zh"):
        assert _place_words("dropped:c1") == ["丢弃了消费失败的"] and _place_words("done:cg") == ["的监听器消费"]
