# ruff: noqa: E501 — explanations are prose, one per line as the student reads them.
"""What each lab exercise says after a prediction: its explanation, near-miss hints, unit and points.

Kept out of the notebooks on purpose: the explanation of an exercise states its answer, so it must not
be in the student's notebook (source or output) before the student has predicted. A lab's check cell
names only the id (``check("03.1", answer_1, measured)``); :func:`rmqlab.exercises.check` looks the
rest up here. ``tests/test_student_copy.py`` checks that no id is missing or unused, and that no hint
gives its answer away.
"""

from __future__ import annotations

from .exercises import Exercise, Hint

EXERCISES: tuple[Exercise, ...] = (
    # 00 · tour
    Exercise("00.1", "AVG splits the sorted queue list into equal blocks: 8 queues / 2 consumers = 4 each."),
    Exercise("00.2", "One virtual clock, a seeded RNG and a sequence number per event: no wall time."),
    # 01 · producer send retry
    Exercise(
        "01.1",
        "ONEWAY runs sendDefaultImpl with timesTotal = 1: no retry, the exception ends it.",
        hints=(Hint("ONEWAY has no retryTimesWhenSend… setting: count what timesTotal is for this mode.", equals=(3,)),),
    ),
    Exercise("01.2", "The first attempt used the whole 3000 ms; the budget check (timeout < costTime) stops the loop."),
    Exercise("01.3", "The producer cannot tell 'not stored' from 'response lost', so it retries on broker-b: at-least-once."),
    # 02 · concurrent consumption
    Exercise(
        "02.1",
        "processConsumeResult treats indices ackIndex+1 .. size-1 as failed.",
        hints=(Hint("ack_index is the index of the last acknowledged message, counted from 0.", off_by=(1,)),),
    ),
    Exercise("02.2", "The local +1s are in client memory only; the broker judges the stored rt (0) → rt 1, level 3."),
    Exercise("02.3", "%RETRY%cg was made with 1 queue at c1's first heartbeat and is never resized: only queue 0 is in its route."),
    # 03 · delay levels
    Exercise(
        "03.1",
        "Levels 3..18 sum to 17 140 s = 4 h 45 min 40 s; the 17th failure (rt 16 ≥ 16) goes to %DLQ%cg.",
        unit="s",
        hints=(
            Hint("The first retry does not use level 1: the broker stores it with level 3 + reconsumeTimes.", equals=(6341, 12941)),
            Hint("Off by one delay level: 16 retries wait on 16 levels, the first of them level 3.", off_by=(7200, 10, 1800)),
        ),
    ),
    Exercise("03.2", "CommitLog caps the level at maxDelayLevel (18 = 2 h); the max itself is NOT capped at 16."),
    # 04 · dead-letter queue
    Exercise("04.1", "MixAll.getDLQTopic = '%DLQ%' + group; DLQ_NUMS_PER_GROUP = 1."),
    Exercise("04.2", "A re-send is a brand-new message (new UNIQ_KEY); keep business keys to deduplicate."),
    Exercise("04.3", "With retryQueueNums <= 0 the broker answers the send-back SUCCESS and stores nothing: no retry, no DLQ."),
    # 05 · offsets
    Exercise("05.1", "removeMessage returns the smallest key still in msgTreeMap: a low-water mark, pinned by the slow message."),
    Exercise("05.2", "Restart from the persisted low-water mark 1: slow, ok2, ok3 and ok4 are consumed again."),
    # 06 · ordered send
    Exercise("06.1", "sendSelectImpl makes a single attempt: no retry loop, the error reaches the caller."),
    Exercise("06.2", "3 % 4 = 3 on the shrunken list: order 3 moved queues, so events before and after the outage may interleave."),
    # 07 · orderly consumption
    Exercise(
        "07.1",
        "rt 0..3 are local tries; at rt 3 ≥ 3 the client sends it to %RETRY%cg and the broker diverts it to %DLQ%cg.",
        hints=(Hint("Off by one delivery: max_reconsume_times counts re-deliveries; the first delivery is not one of them.", off_by=(1,)),),
    ),
    Exercise(
        "07.2",
        "c1 last renewed at 1 s, so the broker entry is expired after 61 s; c2 retries at its rebalances (11 + 20 k s): 71 s.",
        unit="s",
        hints=(
            Hint("The broker keeps a lock entry for 60 s after the last renewal, not 30 s (that is the client's own expiry).", off_by=(30,)),
            Hint("The lease is right, but c2 only asks for locks at its rebalances: 20 s apart, from its start at 11 s.", off_by=(10,)),
        ),
    ),
    # 08 · broadcasting
    Exercise("08.1", "Every instance gets every message once; a failure is logged and dropped, never retried."),
    Exercise("08.2", "copySubscription adds the retry topic only in CLUSTERING; BROADCASTING has no retry at all."),
    # 09 · capstone
    Exercise("09.1", "Orderly + default maxReconsumeTimes (-1 → Integer.MAX_VALUE): a local retry every 1 s forever, blocking p4 and p5."),
    Exercise(
        "09.2",
        "Orderly with max N gives N + 1 deliveries, then %RETRY% → %DLQ%pay-cg, and the queue moves on.",
        hints=(Hint("Off by one: max_reconsume_times counts re-deliveries, and the first delivery is not a re-delivery.", off_by=(1,)),),
    ),
)
