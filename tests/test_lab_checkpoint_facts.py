"""The numbers a checkpoint quotes are the run's, and no lab states a checkpoint's answer before it is asked.

Labs 02a, 04b, 05, 06, 07a, 07b, 08 and 09 (both languages) give their checkpoints their own question, hint and
explanation (issue 30: an explanation adds the *why*, with this run's numbers). Stop 32's review found lab 05 saying
"c1's listener is done with M0003" while the picture showed offset 2 still in process, and lab 07a's Markdown stating
the answer of its "when" question under the picture. Here, for each such checkpoint:

- every number its texts quote (``60 s``, ``offset 5``, ``queue 3``, ``-1``) is computed again from the run's trace
  and compared, as a multiset, with the numbers in the text (so a changed scenario or rule fails here, not in class);
- the lab's source (what a student reads before answering: the checkpoint's own literal texts, every Markdown cell
  and every code cell) never states the answer: a "when" answer's time, a "where" answer's place.

Runs are headless: each lab's source is executed with ``Dashboard`` recording what it builds (``test_lab_pictures``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from test_lab_pictures import LABS
from test_lab_pictures import _dashboards_of as _english_dashboards_of

from rmqlab import EventKind, TraceEvent, format_duration

NUMBER = re.compile(r"(?<![\w%.@:\-/])-?\d+(?:\.\d+)?(?![\w.]*\w)")
"""A number standing on its own: ``60`` in "60 s", ``5`` in "= 5", ``-1``; not the digits of M0002, ok2, c1,
%RETRY%cg:3, broker-a, 4.9.7 or lockBatchMQ."""


_ZH: dict[str, list[Any]] = {}


def _dashboards_of(path: Path, *, fresh: bool = False) -> list[Any]:
    """Every Dashboard the lab at ``path`` builds (run once per session, or its own run when ``fresh``); a Chinese
    lab runs in its own language, which is then set back."""
    if path.parent.name != "zh":
        return _english_dashboards_of(path, fresh=fresh)
    if path.name not in _ZH or fresh:
        import contextlib
        import io
        import runpy

        import rmqlab.widgets.dashboard as dashboard_module

        from rmqlab.core.i18n import current_language, set_language

        built: list[Any] = []
        original_init = dashboard_module.Dashboard.__init__

        def recording_init(self: Any, *args: Any, **kwargs: Any) -> None:
            original_init(self, *args, **kwargs)
            built.append(self)

        was = current_language()
        try:
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(dashboard_module.Dashboard, "__init__", recording_init)
                patch.chdir(path.parent)
                with contextlib.redirect_stdout(io.StringIO()):
                    runpy.run_path(str(path), run_name="__lab__")
        finally:
            set_language(was)
        if fresh:
            return built
        _ZH[path.name] = built
    return _ZH[path.name]


def numbers(text: str) -> list[str]:
    """The standalone numbers of ``text``, sorted (a multiset to compare)."""
    return sorted(NUMBER.findall(text))


def time_numbers(ms: int) -> list[str]:
    """The numbers of a time as the labs print it: 62000 → "1 m 2 s" → ["1", "2"]."""
    return numbers(format_duration(ms))


def _seconds(ms: int) -> str:
    return f"{ms / 1000:g}"


Facts = Callable[[Any, Any, Sequence[TraceEvent]], list[str]]


def _lab_02a(dash: Any, cp: Any, trace: Sequence[TraceEvent]) -> list[str]:
    """Where a failed (or unacknowledged) message goes: the rule's 3 of "3 + reconsumeTimes", its reconsumeTimes, the
    level it is parked at and when that level is due, in the explanation; the question and hint quote none. Where the
    copy comes back when its wait is over: the wait, in the explanation."""
    if cp.event.kind is EventKind.DELAY_DELIVERED:
        return time_numbers(int(cp.event.get("waited_ms")))
    assert cp.event.kind is EventKind.SEND_BACK, cp.name
    parked = [e for e in trace if e.kind is EventKind.SCHEDULED and e.msg_id == cp.event.msg_id
              and e.seq < cp.event.seq][-1]  # the broker parks the copy before the send-back's answer returns
    level, due = parked.get("level"), int(parked.get("due_ms"))
    return ["3", str(cp.event.get("reconsume_times")), str(level), *time_numbers(due)]


def _lab_04b(dash: Any, cp: Any, trace: Sequence[TraceEvent]) -> list[str]:
    if cp.ask == "whether":  # does c1 pull the queue M0001 is in
        nums = next(e.get("retry_queue_nums") for e in trace if e.kind is EventKind.ADMIN and e.get("retry_queue_nums"))
        waited = _seconds(int(next(e for e in trace if e.kind is EventKind.DELAY_DELIVERED
                                   and e.msg_id == "M0001").get("waited_ms")))  # fmt: skip
        held = next(e.get("queues") for e in trace if e.kind is EventKind.REBALANCED and e.get("topic") == "%RETRY%cg")
        listed = [q.rpartition(":")[2] for q in held]  # the route's queues: c1's first rebalance took them all
        drew = str(cp.event.get("queue")).rpartition(":")[2]  # M0003's queue
        question = [waited, str(nums)]
        return [*question, str(nums), waited, *listed, *listed, drew, *time_numbers(cp.event.time_ms)]
    if cp.event.kind is EventKind.DELIVERED:  # when M0001 is freed: no numbers quoted
        return []
    qid = str(cp.event.get("queue_id"))
    nums = next(e.get("retry_queue_nums") for e in trace if e.kind is EventKind.ADMIN and e.get("retry_queue_nums"))
    waited = _seconds(int(cp.event.get("waited_ms")))
    return [qid, str(nums), waited, qid, qid]  # question, then explanation; the hint quotes none


def _lab_05(dash: Any, cp: Any, trace: Sequence[TraceEvent]) -> list[str]:
    if cp.event.kind is EventKind.DELIVERED:  # what becomes of slow after the restart: no numbers quoted
        return []
    if cp.event.kind is EventKind.OFFSET_PERSISTED:  # when the broker's copy follows: the offset (question and
        # explanation), persistAllConsumerOffset's period and first delay (explanation, and the hint's schedule)
        from rmqlab.client.mq_client_instance import (
            PERSIST_CONSUMER_OFFSET_FIRST_DELAY_MS,
            PERSIST_CONSUMER_OFFSET_INTERVAL_MS,
        )

        offset = str(cp.event.get("offset"))
        return [offset, offset] + 2 * [_seconds(PERSIST_CONSUMER_OFFSET_INTERVAL_MS),
                                       _seconds(PERSIST_CONSUMER_OFFSET_FIRST_DELAY_MS)]
    held = int(cp.event.get("previous"))
    queue = cp.event.get("queue")
    done = sorted(int(e.get("queue_offset")) for e in trace if e.kind is EventKind.CONSUMED
                  and e.get("queue") == queue and int(e.get("queue_offset")) > held and e.time_ms < cp.event.time_ms)
    slow = next(e for e in trace if e.kind is EventKind.CONSUMED and e.get("queue_offset") == held
                and e.get("queue") == queue and e.time_ms == cp.event.time_ms)  # fmt: skip
    question = [str(done[0]), str(done[-1])]
    return [*question, _seconds(int(slow.get("took_ms"))), "1", str(cp.event.get("offset"))]


def _orderly_retry(dash: Any, cp: Any, trace: Sequence[TraceEvent]) -> list[str]:
    """07a and 09: when a suspended message comes back: its failure's time and the suspension."""
    failed = [e for e in trace if e.kind is EventKind.CONSUMED and e.msg_id == cp.event.msg_id
              and e.time_ms < cp.event.time_ms]  # fmt: skip
    pause = cp.event.time_ms - failed[-1].time_ms
    return [_seconds(failed[-1].time_ms), *time_numbers(pause)]


def _lab_07a_locks(cp: Any, trace: Sequence[TraceEvent]) -> list[str]:
    """When c1 renews its broker lock: the renewal before (question, explanation), lockAll's period and the broker's
    lease (explanation). When c1 stops consuming after the cut: the cut and the last renewal (question), the client's
    trust (hint), then the last renewal, the last check that passed, the trust and the lock retries' spacing."""
    from rmqlab.broker.rebalance_lock_manager import BROKER_LOCK_MAX_LIVE_TIME_MS
    from rmqlab.client.consumer.process_queue import REBALANCE_LOCK_MAX_LIVE_TIME_MS

    mine = [e for e in trace if e.actor == cp.event.actor]
    renewed = [e.time_ms for e in mine if e.kind is EventKind.LOCK_RENEWED and e.get("queue") == "TopicTest@broker-a:0"]
    if cp.event.kind is EventKind.LOCK_RENEWED:
        return [_seconds(renewed[0]), _seconds(renewed[1] - renewed[0]), _seconds(renewed[0]),
                _seconds(BROKER_LOCK_MAX_LIVE_TIME_MS)]  # fmt: skip
    cut = [e.time_ms for e in trace if e.kind is EventKind.FAULT and e.time_ms < cp.event.time_ms][-1]
    last = [t for t in renewed if t < cut][-1]
    trust = _seconds(REBALANCE_LOCK_MAX_LIVE_TIME_MS)
    checked = [e.time_ms for e in mine if e.kind is EventKind.DELIVERED and e.time_ms < cp.event.time_ms][-1]
    retries = [e.time_ms for e in mine if e.kind is EventKind.WARNING and e.time_ms > cp.event.time_ms
               and str(e.get("message")).startswith("lockBatchMQ exception, TopicTest")]  # lockOneMQ: this queue only
    spacing = str(round((retries[1] - retries[0]) / 1000))
    return [_seconds(cut), _seconds(last), trust, _seconds(last), _seconds(checked), trust, spacing]


def _lab_07a(dash: Any, cp: Any, trace: Sequence[TraceEvent]) -> list[str]:
    """When bad comes back; when c1 gives up on it (the max, twice, and the suspension before); when the other queue
    gets the one thread (no numbers); the lock questions (:func:`_lab_07a_locks`)."""
    if cp.event.kind in (EventKind.LOCK_RENEWED, EventKind.WARNING):
        return _lab_07a_locks(cp, trace)
    if cp.event.kind is EventKind.SEND_BACK:
        pause = [e.get("retry_in_ms") for e in trace if e.kind is EventKind.SUSPENDED and e.msg_id == cp.event.msg_id
                 and e.time_ms < cp.event.time_ms][-1]  # fmt: skip
        return [str(cp.event.get("max_reconsume_times"))] * 2 + time_numbers(int(pause))
    if cp.event.get("queue") == "TopicTest@broker-a:1":
        return []
    return _orderly_retry(dash, cp, trace)


def _lab_09(dash: Any, cp: Any, trace: Sequence[TraceEvent]) -> list[str]:
    """Where bad-card waits: the suspension it pauses for; when pay-1 gives up on it: the max, in the explanation only
    (the question says "the setting you found above": the picture is built from that answer, and a page that shows
    the solved lab's outputs would state it)."""
    if cp.ask == "where":
        return _orderly_retry(dash, cp, trace)[1:]
    return [str(cp.event.get("max_reconsume_times"))]


def _lab_07b(dash: Any, cp: Any, trace: Sequence[TraceEvent]) -> list[str]:
    if cp.event.kind is EventKind.LIFECYCLE:  # when c1's shutdown ends: its unlock, then the request's timeout
        mine = [e for e in trace if e.actor == cp.event.actor and e.time_ms <= cp.event.time_ms]
        unlocked = [e.time_ms for e in mine if e.kind is EventKind.UNLOCKED][-1]
        timed_out = [e.time_ms for e in mine if e.kind is EventKind.WARNING][-1]
        return [_seconds(unlocked), _seconds(timed_out)]
    if cp.event.kind in (EventKind.OFFSET_UPDATED, EventKind.CONSUMED):  # manual commit, ROLLBACK: no number
        return []
    if cp.event.kind is EventKind.SUSPENDED:  # where a is after its batch fails: the try counted for it
        return [str(cp.event.get("reconsume_times"))]
    if cp.event.kind is EventKind.DELIVERED:  # M0001's second delivery: the queue it moved on, in both texts
        return [str(cp.event.get("queue")).rsplit(":", 1)[1]] * 2  # the question's queue, the explanation's
    if cp.event.kind is not EventKind.LOCK_ACQUIRED or "crash_at_s" in dash.knob_values():
        return []  # the crashed holder's lock: no numbers quoted
    queue = cp.event.get("queue")
    asks = [e.time_ms for e in trace if e.kind is EventKind.LOCK_BATCH and e.actor == cp.event.actor
            and e.get("via") == "lock"]  # fmt: skip
    period = asks[1] - asks[0]
    refused = [e.time_ms for e in trace if e.kind is EventKind.LOCK_REFUSED and e.actor == cp.event.actor
               and e.get("queue") == queue]  # fmt: skip
    dropped = next(e.time_ms for e in trace if e.kind is EventKind.REBALANCED and queue in (e.get("removed") or []))
    unlocked = next(e.time_ms for e in trace if e.kind is EventKind.UNLOCKED and e.get("queue") == queue)
    qid = queue.rsplit(":", 1)[1]
    question = [_seconds(asks[0]), qid]
    hint = [_seconds(period)]
    explain = ([_seconds(period), _seconds(asks[0])]
               + [_seconds(t) for t in refused] + [qid, _seconds(dropped), _seconds(unlocked),
               _seconds(unlocked - dropped)] + time_numbers(cp.event.time_ms))  # fmt: skip
    return question + hint + explain


def _lab_06(dash: Any, cp: Any, trace: Sequence[TraceEvent]) -> list[str]:
    """Order 4's event goes to mqs[4 % 8] of the route the producer holds at 10 s; order 3's failed on mqs[3 % 8].
    Stored anyway: order 3 (its queue, a3), the broker's delay and the send's timeout (question and explanation)."""
    if cp.event.kind is EventKind.SEND_ATTEMPT:
        delay = next(e.get("response_delay_ms") for e in trace if e.kind is EventKind.FAULT
                     and e.get("response_delay_ms"))  # fmt: skip
        timeout = str(cp.event.get("timeout_ms"))
        return [str(cp.event.get("queue_id")), _seconds(int(delay)), timeout, timeout, timeout]  # the hint's too
    if cp.event.kind is EventKind.SEND_FAILED and "selector" not in dash.knob_values():
        # the failing selectors: order 3 (question; by_order_id later puts it in a3, 3 % 8), 0 attempts (explanation)
        order = next(e.get("queue_id") for e in trace
                     if e.kind is EventKind.SEND_ATTEMPT and e.get("broker") == "broker-a")  # fmt: skip
        return [str(order), str(cp.event.get("attempts"))]
    from rmqlab.client.producer.default_mq_producer import POLL_NAME_SERVER_INTERVAL_MS

    poll = _seconds(POLL_NAME_SERVER_INTERVAL_MS)
    # the 45 s questions pause at the picture's last step before the send (10 s) and say what the poll will do
    paused = _seconds(trace[dash.controller.frames.positions[cp.frame] - 1].time_ms)
    if cp.event.time_ms > 30_000 and cp.ask == "where":  # order 3 after the route poll: paused, poll ×2, order, send
        return [paused, poll, "3", _seconds(cp.event.time_ms), poll]
    lab = dash.controller.replay.make_lab()
    mqs = sorted((q.broker_name, i) for q in lab.namesrv.route("TopicTest").queue_datas
                 for i in range(q.write_queue_nums))  # fmt: skip
    if cp.ask == "whether":  # strict order 3 at 45 s: the pause, the poll, the order and the send's time; 3 % 8
        wanted = next(mqs.index((e.get("broker"), int(e.get("queue_id")))) for e in trace
                      if e.kind is EventKind.SEND_ATTEMPT and e.get("broker") == "broker-a")  # fmt: skip
        return [paused, poll, str(wanted), _seconds(cp.event.time_ms), str(wanted), str(len(mqs))]
    if cp.event.time_ms < 2_000:  # the tiny run: order 3's first event's queue (its order, its queue id), order 5
        first = next(e for e in trace if e.kind is EventKind.SEND_ATTEMPT)
        index = mqs.index((cp.event.actor, int(cp.event.get("queue_id"))))
        return [str(first.get("queue_id"))] * 2 + [str(index)] * 2 + [str(len(mqs)), str(index), str(index)]
    queue_of = {e.msg_id: (e.get("broker"), int(e.get("queue_id"))) for e in trace
                if e.kind is EventKind.SEND_ATTEMPT}  # fmt: skip
    index = mqs.index((cp.event.actor, int(cp.event.get("queue_id"))))
    failed = next(e.msg_id for e in trace if e.kind is EventKind.SEND_FAILED and e.time_ms == cp.event.time_ms)
    failed_index = mqs.index(queue_of[failed])
    question = [str(failed_index), str(index), _seconds(cp.event.time_ms)]
    # orders 3 and 4 of 8 queues: an order id below 8 is its own index (order 3 → mqs[3 % 8])
    explain = [_seconds(cp.event.time_ms), str(len(mqs)), poll, str(index), str(len(mqs)), str(failed_index),
               str(failed_index), str(len(mqs))]
    return [*question, poll, *explain]


def _no_numbers(dash: Any, cp: Any, trace: Sequence[TraceEvent]) -> list[str]:
    return []


def _lab_08(dash: Any, cp: Any, trace: Sequence[TraceEvent]) -> list[str]:
    """CLUSTERING's send-back: the client's delayLevel 0 and the level the broker picks (explanation); the
    BROADCASTING questions quote no number."""
    if not cp.answer.startswith("delay:"):
        return []
    return ["0", cp.answer.rsplit(":", 1)[1]]


FACTS: dict[str, Facts] = {
    "02a_consume_failure_send_back": _lab_02a,
    "04b_stranded_retry_queues": _lab_04b,
    "05_offsets_process_queue": _lab_05,
    "06_ordered_send": _lab_06,
    "07a_orderly_locks": _lab_07a,
    "07b_orderly_failover": _lab_07b,
    "08_broadcasting_vs_clustering": _lab_08,
    "09_capstone": _lab_09,
}
"""Per lab whose checkpoints have their own texts: the numbers those texts quote, from the run."""
SOURCES = [f"{stem}.py" for stem in FACTS] + [f"zh/{stem}.py" for stem in FACTS]


def _whole_trace(dash: Any) -> list[TraceEvent]:
    """The dashboard's run to its end, built afresh from its own factory (the picture itself stays where it is)."""
    from rmqlab.widgets.replay import Replay

    replay = dash.controller.replay
    fresh = Replay(replay.make_lab, horizon=replay.horizon_ms, max_idle_steps=replay.max_idle_steps,
                   faults=replay.faults)
    fresh.run_to_end()
    return list(fresh.lab.trace)


def _own_texts(cp: Any) -> str:
    """What the lab wrote for the checkpoint, filled: its question, hint and explanation; the explanation without its
    leading "Right: <answer>." (the answer's label is the button's, from the run)."""
    return " ".join((cp.question, cp.hint if cp.lab_hint else "", cp.explain))


@pytest.mark.parametrize("name", SOURCES)
def test_the_numbers_a_checkpoint_quotes_are_the_runs(name: str) -> None:
    """Every number in a checkpoint's question, own hint and explanation is the run's (a multiset match)."""
    stem = Path(name).stem
    asked = 0
    for dash in _dashboards_of(LABS / name):
        trace = _whole_trace(dash)
        for cp in dash.controller.checkpoints:
            asked += 1
            answer_label = next(c.label for c in cp.choices if c.key == cp.answer)
            quoted = numbers(_own_texts(cp).replace(answer_label, " ", 1))
            expected = FACTS[stem](dash, cp, trace)
            assert quoted == sorted(expected), (name, cp.name, _own_texts(cp))
    assert asked >= 1, name


def test_the_number_finder() -> None:
    """Identifiers keep their digits; quantities are found."""
    assert numbers("slow (M0002) in its 60 s listener, ok2 … ok4; queueOffsetMax + 1 = 5 on %RETRY%cg:3") == [
        "1", "5", "60"]
    assert numbers("4.9.7 lockBatchMQ c1 broker-a TopicTest@broker-a:1 maxReconsumeTimes -1") == ["-1"]
    assert time_numbers(62_000) == ["1", "2"]


def _read_while_it_waits(source: str, name: str) -> str:
    """The text a student reads while the picture of checkpoint ``name`` waits: the picture's own cell (its code shows
    the checkpoint's literal question, hint and explanation: only ``{answer}``-style names are filled in later) and
    the cells after it, up to the next exercise, heading or picture."""
    cells = source.split("# %%")
    at = next(i for i, c in enumerate(cells) if f'name="{name}"' in c)
    out = [cells[at]]
    for cell in cells[at + 1 :]:
        head = cell.split("### ", 1)[0].split("\n# ## ", 1)[0]
        out.append(head)
        if head != cell or "Dashboard(" in cell or "nbgrader" in cell:
            break
    return "".join(out)


ONCE_A_SECOND = ("every second", "once a second", "每秒")


@pytest.mark.parametrize("name", SOURCES)
def test_no_lab_states_a_checkpoints_answer_while_it_waits(name: str) -> None:
    """Stop 32: lab 07a's Markdown under the picture said "after suspendCurrentQueueTimeMillis (1000 ms)" and "retries
    every second" while the picture asked when bad comes back. What a student reads while a checkpoint waits never
    states its answer: a "when" answer's time or the time left to it (in s or ms), a "where" answer's place."""
    source = (LABS / name).read_text()
    said = []
    for dash in _dashboards_of(LABS / name):
        frames = dash.controller.frames
        for cp in dash.controller.checkpoints:
            text = _read_while_it_waits(source, cp.name)
            if cp.ask == "when":
                answer = int(cp.answer)
                left = answer - frames.now_ms[cp.frame]
                words = {format_duration(answer), f"{answer / 1000:g} s", f"{answer} ms", f"{left} ms", f"{left:,} ms",
                         format_duration(left), f"{left / 1000:g} s"} | (set(ONCE_A_SECOND) if left == 1000 else set())
                said += [(cp.name, w) for w in words if re.search(rf"(?<![\w.,–-]){re.escape(w)}(?![\w])", text)]
            elif cp.ask == "where":
                label = next(c.label for c in cp.choices if c.key == cp.answer)
                said += [(cp.name, label)] if label in text else []
    assert said == [], (name, said)


def test_the_leak_check_finds_a_stated_answer() -> None:
    """Lab 07a as it was: the Markdown under its picture stated the suspension."""
    old = ('# %% tags=["nbval-ignore-output"]\ndash = Dashboard(f, checkpoints=[Checkpoint(name="when bad comes back", '
           'explain="Right: {answer}. It waits 1000 ms.")])\n# %% [markdown]\n# The retry is local: after '
           '`suspendCurrentQueueTimeMillis` (1 s).\n#\n# ### Exercise 1\n# 4 s')
    text = _read_while_it_waits(old, "when bad comes back")
    assert "1000 ms" in text and "(1 s)" in text and "4 s" not in text


def test_a_labs_texts_are_filled_from_the_run_and_a_wrong_name_is_an_error() -> None:
    """``{answer}``, ``{time}``, ``{since}`` and the event's fields come from the run; an unknown name fails the
    build naming the names it may use (never a text shown with a raw ``{...}``)."""
    from rmqlab.widgets import Checkpoint, demo_lab
    from rmqlab.widgets.checkpoints import CheckpointError
    from rmqlab.widgets.frames import build_run

    def failing() -> Any:
        return demo_lab(listener="fail_all", max_reconsume_times=1)

    asked = Checkpoint(before="delivered", nth=2, ask="when", question="When is {msg} back?",
                       explain="Right: {answer}, {since} after its failure; at {time} (reconsumeTimes "
                               "{reconsume_times}).")
    cp = build_run(failing, horizon="2m", checkpoints=[asked]).checkpoints[0]
    label = next(c.label for c in cp.choices if c.key == cp.answer)
    assert cp.question == f"When is {cp.event.msg_id} back?"
    assert cp.explain.startswith(f"Right: {label}, ") and "{" not in cp.explain
    assert f"at {format_duration(cp.event.time_ms)} (reconsumeTimes {cp.event.get('reconsume_times')})" in cp.explain
    with pytest.raises(CheckpointError, match="since"):
        build_run(failing, horizon="2m", checkpoints=[Checkpoint(before="delivered", nth=2, ask="when",
                                                                  explain="{nope}")])
