# ruff: noqa: E501 — explanations are prose, one per line as the student reads them.
"""The exercises about queues: who owns which queue, offsets and the ProcessQueue, ordered send, orderly
consumption and its locks, broadcasting, and the capstone (labs 00, 05, 06, 07, 08, 09).

Teacher-only (never installed, never in a student copy): the plain explanations and hints, which
``python -m teacher.compile`` seals into ``rmqlab/course/bank.json`` under keys only the predictions give.
"""

from __future__ import annotations

from .declare import Exercise, Hint

TOUR_EXERCISES: tuple[Exercise, ...] = (
    # 00 · tour
    Exercise(
        "00.1",
        "AVG splits the sorted queue list into equal blocks: 8 queues / 2 consumers = 4 each.",
        hints=(
            Hint(
                "Count the TopicTest queues on both brokers, then split them evenly between the two consumers.",
                equals=(8, 2),
            ),
        ),
        hint="AllocateMessageQueueAveragely gives each consumer a contiguous block of the sorted queue list.",
    ),
    Exercise(
        "00.2",
        "c2's shutdown unregisters it at every broker; ConsumerManager.unregisterConsumer notifies the group, and c1 "
        "rebalances at once instead of waiting for its 20 s timer: all 8 queues.",
        hints=(
            Hint(
                "That is what c1 would own if it waited for its next 20 s rebalance. Does anything tell c1 sooner that c2 left?",
                equals=(4,),
            ),
        ),
        hint="Look at what a clean shutdown does at the brokers, and what the brokers then tell the rest of the group.",
    ),
)
"""Lab 00 (the tour): rebalancing among the consumers of a group."""

QUEUE_EXERCISES: tuple[Exercise, ...] = (
    # 05 · offsets
    Exercise(
        "05.1",
        "removeMessage returns the smallest key still in msgTreeMap: a low-water mark, pinned by the slow message.",
        hints=(Hint("That is 'the last consumed message + 1'. Which offset is still in msgTreeMap?", equals=(5, 4)),),
        hint="Look at what ProcessQueue.removeMessage returns while the map still holds a message.",
    ),
    Exercise(
        "05.2",
        "Restart from the persisted low-water mark 1: slow, ok2, ok3 and ok4 are consumed again.",
        hints=(
            Hint(
                "The broker's offset is where the restart begins, and the slow message pinned it; count every offset from there.",
                equals=(1, 0),
            ),
        ),
        hint="A restarted consumer starts from the offset the broker has; everything from there is delivered again.",
    ),
    Exercise(
        "05.3",
        "The offset jumped to 5 in the client's memory at 62 s, but the persist timer (10 s, then every 5 s) last ran at "
        "60 s, with 1; no pull carried the 5 either. The restart reads 1 from the broker.",
        hints=(
            Hint(
                "That is the client's in-memory offset. Which copy does a restarted consumer read, and when was it last written?",
                equals=(5,),
            ),
        ),
        hint="Two copies: the client's in memory and the broker's. Which one survives a crash, and when is it written?",
    ),
    # 06 · ordered send
    Exercise(
        "06.1",
        "sendSelectImpl makes a single attempt: no retry loop, the connection error reaches the caller.",
        hints=(
            Hint(
                "retryTimesWhenSendFailed belongs to sendDefaultImpl's loop. Does the selector path have that loop?",
                equals=(3, 2),
            ),
        ),
        hint="Compare sendSelectImpl with sendDefaultImpl: which one has a retry loop?",
    ),
    Exercise(
        "06.2",
        "The selector hashes over the live list: 3 % 4 = 3 on broker-b's four queues, so order 3 moved from a3 to b3.",
        hints=(
            Hint(
                "The selector is called with the route's queue list as it is now, not as it was at 1 s.",
                equals=("TopicTest@broker-a:3",),
            ),
        ),
        hint="The selector runs again for every send, over the route's queue list at that moment.",
    ),
    Exercise(
        "06.3",
        "The request reached broker-a and was stored; only the response was late. A timeout says nothing about storage: a re-send is a duplicate.",
        hint="A timeout is the producer giving up waiting; it does not reach back into the broker.",
    ),
    Exercise(
        "06.4",
        "Only the 1 s event was stored: at 10 s a3's broker was down (one attempt, failed), at 45 s a3 was not in the route "
        "and the selector returned null. Strict order trades availability for order.",
        hints=(
            Hint(
                "The strict selector never moves order 3 to another queue. Which of the three sends find a3 reachable?",
                equals=(3, 2),
            ),
        ),
        hint="The strict selector never picks another queue: a send happens only when order 3's own queue is reachable.",
    ),
    # 07a · orderly consumption: local retries and the three locks
    Exercise(
        "07a.1",
        "rt 0..3 are local tries; at rt 3 ≥ 3 the client sends it to %RETRY%cg and the broker diverts it to %DLQ%cg.",
        hints=(
            Hint(
                "Off by one delivery: max_reconsume_times counts re-deliveries; the first delivery is not one of them.",
                off_by=(1,),
            ),
        ),
        hint="max_reconsume_times counts re-deliveries; the message is sent back once rt reaches the max.",
    ),
    Exercise(
        "07a.2",
        "submitConsumeRequestLater clamps the 120 000 ms request to 30 000 ms: deliveries at 3, 33, 63, 93, 123 and "
        "153 s (rt 0 … 5), and at rt 5 ≥ 5 checkReconsumeTimes sends it back.",
        unit="s",
        hints=(
            Hint("The listener's 2 minutes are not used as is: submitConsumeRequestLater bounds them.", equals=(603,)),
            Hint("The listener's value replaces the consumer's 1000 ms for that pause.", equals=(8, 9)),
            Hint("Off by one pause: max_reconsume_times=5 means six deliveries, so five pauses.", off_by=(30,)),
        ),
        hint="Work out the pause the queue really gets, then count the pauses until rt reaches the max.",
    ),
    Exercise(
        "07a.3",
        "The broker lock exists only in CLUSTERING (lockAll and lock(mq) are never called in BROADCASTING, where every instance "
        "consumes every queue); MessageQueueLock and the consume lock are held as always.",
        hints=(
            Hint(
                "In BROADCASTING every instance consumes every queue. Is there anything for the broker to arbitrate?",
                equals=(3,),
            ),
            Hint("The two local locks do not depend on the message model: a listener is running.", equals=(0, 1)),
        ),
        hint="Go through the three locks: which of them involves the broker, and is it used in BROADCASTING?",
    ),
    Exercise(
        "07a.4",
        "The client trusts its lock until 30 s after the last success (21 s): the loop checks before each message, so the "
        "delivery at 50 s runs and the one due at 52 s finds the lock expired.",
        unit="s",
        hints=(
            Hint(
                "Count from the last successful lock renewal, not from the moment the link was cut.",
                equals=(54, 55, 56),
            ),
            Hint("60 s is the broker's lease. How long does the client itself trust its copy?", equals=(80, 81, 82)),
        ),
        hint="The client keeps consuming until isLockExpired(): 30 s after its last successful lock, checked before each message.",
    ),
    Exercise(
        "07a.5",
        "Before each batch the loop checks the time since it began: 0, 25 and 50 s are not past 60 s; at 75 s it is, so the "
        "request resubmits itself 10 ms later and the waiting request for the other queue gets the thread.",
        hints=(
            Hint("The 60 s check runs before each message is taken, and 50 s is not more than 60 s.", equals=(2,)),
            Hint("With one thread and no yield the first queue would keep it; MAX_TIME_CONSUME_CONTINUOUSLY is 60 s.", equals=(4,)),
        ),
        hint="Before each message the loop compares the time since it began with MAX_TIME_CONSUME_CONTINUOUSLY (60 s).",
    ),
    # 07b · orderly consumption: failure, take-over and shutdown
    Exercise(
        "07b.1",
        "c1 last renewed at 1 s, so the broker entry is expired after 61 s; c2 retries at its rebalances (25 + 20 k s): 65 s.",
        unit="s",
        hints=(
            Hint(
                "The broker keeps a lock entry for 60 s after the last renewal, not 30 s (that is the client's own expiry).",
                equals=(45,),
            ),
            Hint(
                "The lease is right, but c2 only asks for locks at its rebalances: 20 s apart, from its start at 25 s.",
                equals=(61, 62),
            ),
        ),
        hint="The broker keeps c1's entry until 60 s after its last renewal, and c2 only asks at its own rebalances.",
    ),
    Exercise(
        "07b.2",
        "c1 finished M0001 after its ProcessQueue was dropped, so processConsumeResult skipped the commit; the broker still had "
        "offset 0 for queue 1 and c2 started there. Two deliveries.",
        hints=(
            Hint(
                "Orderly keeps order, not exactly-once. Did c1's commit of M0001 reach the broker before c2 started?",
                equals=(1,),
            ),
        ),
        hint="processConsumeResult commits only if the ProcessQueue is not dropped. Where did c2 start reading?",
    ),
    Exercise(
        "07b.3",
        "With autoCommit off, SUCCESS commits nothing; COMMIT commits everything taken so far (up to c, offset 2): 2 + 1 = 3. "
        "d and e stay in consumingMsgOrderlyTreeMap, uncommitted.",
        hints=(
            Hint("With auto-commit off, SUCCESS does not move the offset. Which status does?", equals=(5,)),
            Hint("The committed offset is the next one to consume: the last committed offset + 1.", equals=(2,)),
        ),
        hint="With auto-commit off only COMMIT moves the offset, and commit() returns the last committed offset + 1.",
    ),
    Exercise(
        "07b.4",
        "The batch a, bad, c fails as a whole: every message gets rt + 1, and at rt 2 ≥ 2 checkReconsumeTimes sends each of "
        "the three to %RETRY%cg, and the broker to %DLQ%cg. d, in the next batch, succeeds.",
        hints=(
            Hint("The listener returns one status for the whole batch. Which messages share bad's batch?", equals=(1,)),
        ),
        hint="The whole batch gets the batch's status, and checkReconsumeTimes judges each message in it.",
    ),
    # 08 · broadcasting
    Exercise(
        "08.1",
        "Every instance gets every message once; a failure is logged and dropped, never retried.",
        hints=(Hint("Each instance gets its own copy; now, is a failed copy retried in BROADCASTING?", equals=(4,)),),
        hint="Every instance gets its own copy. What does processConsumeResult do with a failure in BROADCASTING?",
    ),
    Exercise(
        "08.2",
        "The drop goes through removeMessage like a success: the map is empty, so the offset is the failed message's + 1.",
        hints=(Hint("A dropped message is not kept for a retry. Does it still pin the offset?", equals=(0,)),),
        hint="A dropped message goes through removeMessage like a consumed one.",
    ),
    Exercise(
        "08.3",
        "copySubscription adds the retry topic only in CLUSTERING; BROADCASTING has no retry at all.",
        hint="Look at DefaultMQPushConsumerImpl.copySubscription's switch on the message model.",
    ),
    # 09 · capstone
    Exercise(
        "09.1",
        "Orderly commit() is the last offset of a successful batch + 1: after p2 (offset 1) it is 2, and bad-card at offset 2 "
        "never succeeds, so the offset never passes it.",
        hints=(
            Hint("The offset to commit is the next one to consume, not the last one consumed.", equals=(1,)),
            Hint(
                "p4 and p5 are behind bad-card on the same queue. Can an orderly commit skip a message?",
                equals=(5, 4, 3),
            ),
        ),
        hint="An orderly commit is the last offset of a successful batch + 1, and the queue is consumed in order.",
    ),
    Exercise(
        "09.2",
        "Orderly with max N gives N + 1 deliveries, then %RETRY% → %DLQ%pay-cg, and the queue moves on.",
        hints=(
            Hint(
                "Off by one: max_reconsume_times counts re-deliveries, and the first delivery is not a re-delivery.",
                off_by=(1,),
            ),
        ),
        hint="Orderly with max N: how many deliveries before the message is sent back?",
    ),
    Exercise(
        "09.3",
        "Once bad-card is sent back past the max, the queue commits past it and p4, p5 run at once: the ordered stream goes "
        "on without its third payment.",
        hints=(
            Hint(
                "Dead-lettering does not hold the queue: what happens to p4 and p5 the moment bad-card leaves?",
                equals=(["p1", "p2"], ["p1", "p2", "bad-card", "p4", "p5"]),
            ),
        ),
        hint="Once bad-card is sent back, nothing holds the queue any more.",
    ),
)
