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
        "removeMessage returns the smallest key still in msgTreeMap: a low-water mark, pinned by the slow message at offset 3 while ok4 is done.",
        hints=(
            Hint("That is 'the last consumed message + 1'. Which offset is still in msgTreeMap?", equals=(5, 4)),
            Hint("That was slow's offset in the picture's run. Which offset does slow have in this one?", equals=(1,)),
        ),
        hint="Look at what ProcessQueue.removeMessage returns while the map still holds a message.",
    ),
    Exercise(
        "05.2",
        "The committed offset stayed at slow's, 2, and the pulls and the persist timer carried it to the broker; the restart "
        "begins there: slow, ok3 and ok4 are consumed again.",
        hints=(
            Hint(
                "The broker's offset is where the restart begins, and the slow message pinned it; count every offset from there, slow's included.",
                equals=(2, 1, 0),
            ),
            Hint("That counts from offset 1, as in the picture's run. Where does slow sit in this one?", equals=(4,)),
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
        "sendSelectImpl makes a single attempt whatever retryTimesWhenSendFailed says: no retry loop, the connection error "
        "reaches the caller.",
        hints=(
            Hint(
                "retryTimesWhenSendFailed belongs to sendDefaultImpl's loop. Does the selector path have that loop?",
                equals=(6, 5, 3, 2),
            ),
        ),
        hint="Compare sendSelectImpl with sendDefaultImpl: which one has a retry loop?",
    ),
    Exercise(
        "06.2",
        "The selector hashes over the live list: 9 % 4 = 1 on broker-b's four queues, so order 9 moved from a1 (9 % 8) to b1.",
        hints=(
            Hint(
                "The selector is called with the route's queue list as it is now, not as it was at 1 s.",
                equals=("TopicTest@broker-a:1",),
            ),
            Hint("That is where order 3 went. Work out 9 modulo the number of queues the route lists now.", equals=("TopicTest@broker-b:3",)),
        ),
        hint="The selector runs again for every send, over the route's queue list at that moment.",
    ),
    Exercise(
        "06.3",
        "Each request reached broker-a and was stored; only the responses were late. A timeout says nothing about storage: "
        "the two re-sends are two duplicates, 4 messages for 2 events.",
        hints=(
            Hint("Count what the broker stored, not what the producer heard back: was each timed-out request stored?", equals=(0, 2)),
        ),
        hint="A timeout is the producer giving up waiting; it does not reach back into the broker.",
    ),
    Exercise(
        "06.4",
        "None: broker-a was down before pg first read the route (at its first send, 1 s), and the name server had already "
        "dropped a down broker's queues, so the route never listed a3; the strict selector returned null for all three "
        "sends and nothing was sent. Strict order trades availability for order.",
        hints=(
            Hint(
                "The strict selector never moves order 3 to another queue. Which of the three sends find a3 in the route?",
                equals=(3, 2),
            ),
            Hint("That is the picture's count, where broker-a was still up at the 1 s send. What did the route list at 1 s here?", equals=(1,)),
        ),
        hint="The strict selector never picks another queue: a send happens only when order 3's own queue is reachable.",
    ),
    # 07a · orderly consumption: local retries and the three locks
    Exercise(
        "07a.1",
        "rt 0 and 1 are local tries; at rt 1 ≥ 1 the client sends it to %RETRY%cg and the broker diverts it to %DLQ%cg.",
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
        "Before each batch the loop checks the time since it began: 0 and 40 s are not past 60 s; at 80 s it is, so the "
        "request resubmits itself 10 ms later and the waiting request for the other queue gets the thread.",
        hints=(
            Hint("The 60 s check runs before each message is taken, and 40 s is not more than 60 s.", equals=(1,)),
            Hint("With one thread and no yield the first queue would keep it; MAX_TIME_CONSUME_CONTINUOUSLY is 60 s.", equals=(4,)),
            Hint("That is the picture's count, with 25 s messages. Redo the check before each message with 40 s ones.", equals=(3,)),
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
        "c1 finished M0001 at 7 s, before c2 joined: processConsumeResult committed it in a ProcessQueue not yet dropped, and "
        "the rebalance at 10 s persisted that offset before letting the queue go. c2 started after M0001. One delivery: the "
        "duplicate in the picture came from a listener still running when its queue moved.",
        hints=(
            Hint(
                "That is the picture's count, where M0001 was still in c1's 25 s listener at 10 s. Where is it at 10 s here?",
                equals=(2,),
            ),
        ),
        hint="processConsumeResult commits only if the ProcessQueue is not dropped. Where did c2 start reading?",
    ),
    Exercise(
        "07b.3",
        "With autoCommit off, SUCCESS commits nothing; COMMIT commits everything taken so far (up to d, offset 3): 3 + 1 = 4. "
        "e stays in consumingMsgOrderlyTreeMap, uncommitted.",
        hints=(
            Hint("With auto-commit off, SUCCESS does not move the offset. Which status does?", equals=(5,)),
            Hint("The committed offset is the next one to consume: the last committed offset + 1.", equals=(3,)),
        ),
        hint="With auto-commit off only COMMIT moves the offset, and commit() returns the last committed offset + 1.",
    ),
    Exercise(
        "07b.4",
        "The batch a, bad fails as a whole: both messages get rt + 1, and at rt 2 ≥ 2 checkReconsumeTimes sends each of the "
        "two to %RETRY%cg, and the broker to %DLQ%cg. c and d, the next batch, succeed.",
        hints=(
            Hint("The listener returns one status for the whole batch. Which messages share bad's batch?", equals=(1,)),
            Hint("That is the picture's batch of 3. With batches of 2, which messages share bad's?", equals=(3,)),
        ),
        hint="The whole batch gets the batch's status, and checkReconsumeTimes judges each message in it.",
    ),
    # 08 · broadcasting
    Exercise(
        "08.1",
        "Every instance gets every message once, 3 copies for 3 instances; a failure is logged and dropped, never retried.",
        hints=(
            Hint("Each instance gets its own copy; now, is a failed copy retried in BROADCASTING?", equals=(6,)),
            Hint("In BROADCASTING the group does not share a message: how many instances get their own copy?", equals=(1,)),
        ),
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
        "copySubscription subscribes the retry topic at the consumer's start, from the message model alone: every CLUSTERING "
        "consumer has it, whether or not anything ever fails; BROADCASTING has no retry at all.",
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
        "Each bad-card blocks the queue for its 6 deliveries, then is sent back past the max and the queue commits past it: "
        "p3 runs after the first, p5 after the second, and the ordered stream goes on without its second and fourth payments.",
        hints=(
            Hint(
                "Dead-lettering does not hold the queue: what happens to the payments behind a bad-card the moment it leaves?",
                equals=(["p1"], ["p1", "bad-card", "p3", "bad-card", "p5"], ["p1", "p3"]),
            ),
        ),
        hint="Once bad-card is sent back, nothing holds the queue any more.",
    ),
)
