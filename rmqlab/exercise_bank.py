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
    Exercise(
        "00.1",
        "AVG splits the sorted queue list into equal blocks: 8 queues / 2 consumers = 4 each.",
        hints=(Hint("Count the TopicTest queues on both brokers, then split them evenly between the two consumers.", equals=(8, 2)),),
        hint="AllocateMessageQueueAveragely gives each consumer a contiguous block of the sorted queue list.",
    ),
    Exercise(
        "00.2",
        "c2's shutdown unregisters it at every broker; ConsumerManager.unregisterConsumer notifies the group, and c1 "
        "rebalances at once instead of waiting for its 20 s timer: all 8 queues.",
        hints=(Hint("That is what c1 would own if it waited for its next 20 s rebalance. Does anything tell c1 sooner that c2 left?", equals=(4,)),),
        hint="Look at what a clean shutdown does at the brokers, and what the brokers then tell the rest of the group.",
    ),
    # 01 · producer send retry
    Exercise(
        "01.1",
        "ONEWAY runs sendDefaultImpl with timesTotal = 1: no retry, the exception ends it.",
        hints=(Hint("ONEWAY has no retryTimesWhenSend… setting: count what timesTotal is for this mode.", equals=(3,)),),
        hint="Compare timesTotal in sendDefaultImpl for SYNC and for the other modes.",
    ),
    Exercise(
        "01.2",
        "onExceptionImpl re-sends the same request, and its header still holds the first attempt's queueId (index 2 → "
        "broker-a queue 2); selectOneMessageQueue(broker-a) ran (index 3 skipped, index 4 = broker-b) but only its broker "
        "name is used.",
        hints=(
            Hint(
                "That is the queue selectOneMessageQueue picked, as for the SYNC retry. onExceptionImpl keeps only the "
                "broker name of that pick: which queue id does the re-sent request header still carry?",
                equals=(0,),
            ),
        ),
        hint="Read what MQClientAPIImpl.onExceptionImpl re-sends, and what it takes from selectOneMessageQueue's answer.",
    ),
    Exercise(
        "01.3",
        "SYSTEM_BUSY (code 2) is not in retryResponseCodes in 4.9.x: sendDefaultImpl rethrows the MQBrokerException after "
        "the first attempt, even though broker-b is healthy.",
        hints=(
            Hint(
                "An error response is retried only if its code is in DefaultMQProducer.retryResponseCodes. Is "
                "SYSTEM_BUSY in the list above?",
                equals=(2, 3),
            ),
        ),
        hint="Look at which broker answers DefaultMQProducer.retryResponseCodes lists.",
    ),
    Exercise(
        "01.4",
        "Each broker stored the message before its flush timed out; retryAnotherBrokerWhenNotStoreOK keeps going for all "
        "1 + retryTimesWhenSendFailed attempts (a → b → a) and returns the last FLUSH_DISK_TIMEOUT result: three copies.",
        hints=(
            Hint("With retry_another_broker_when_not_store_ok=True a non-OK status does not end the loop.", equals=(1,)),
            Hint(
                "Count the attempts the loop makes (1 + retryTimesWhenSendFailed), and remember that every one of them "
                "was stored: only the flush timed out.",
                equals=(2,),
            ),
        ),
        hint="FLUSH_DISK_TIMEOUT is answered after the broker stored the message; count the attempts the loop makes.",
    ),
    Exercise("01.5", "The first attempt used the whole 3000 ms; the budget check (timeout < costTime) stops the loop.", hint="sendMsgTimeout is one budget for the whole send, checked before each attempt."),
    Exercise("01.6", "The producer cannot tell 'not stored' from 'response lost', so it retries on broker-b: at-least-once.", hint="The broker stored the message before the connection dropped; what does the producer do without a response?"),
    # 02a · concurrent consumption: failure and send-back
    Exercise(
        "02a.1",
        "processConsumeResult treats indices ackIndex+1 .. size-1 as failed.",
        hints=(Hint("ack_index is the index of the last acknowledged message, counted from 0.", off_by=(1,)),),
        hint="processConsumeResult counts msgs[0..ackIndex] as consumed and the rest as failed.",
    ),
    Exercise(
        "02a.2",
        "The first failure (stored rt 0) waits level 3 = 10 s, the second (rt 1) level 4 = 30 s: 1 + 10 + 30 = 41 s.",
        unit="s",
        hints=(
            Hint("The level grows with each retry: the broker picks 3 + the *stored* reconsumeTimes.", equals=(21,)),
            Hint("The first retry does not use level 1: the broker adds 3 to the stored reconsumeTimes.", equals=(7, 6)),
        ),
        hint="Each failure is stored with level 3 + its stored reconsumeTimes; add up the waits from the send at 1 s.",
    ),
    Exercise(
        "02a.3",
        "reconsumeTimes is a field of the stored record, set to rt + 1 by asyncConsumerSendMsgBack; the copy's "
        "properties come from the original, which never had a RECONSUME_TIME property.",
        hints=(
            Hint(
                "The count is right. Where does the broker keep it: in the message's properties, or in its own field of "
                "the CommitLog record?",
                equals=((1, "1"), (1, 1)),
            ),
        ),
        hint="asyncConsumerSendMsgBack copies the original's properties and sets the new copy's reconsumeTimes field.",
    ),
    # 02b · when the send-back fails, slow listeners, per-instance limits
    Exercise("02b.1", "The local +1s are in client memory only; the broker judges the stored rt (0) → rt 1, level 3.", hint="The local retries counted in client memory; the later CONSUMER_SEND_MSG_BACK carries only the CommitLog offset."),
    Exercise(
        "02b.2",
        "cleanExpireMsg runs 15, 30, 45 … min after the consumer started. At 15 min the message has run 14 min 59 s (not "
        "more than 15 min); at 30 min it is sent back with delay level 3 (10 s): 1800 + 10 = 1810 s, while the first call "
        "still runs.",
        unit="s",
        hints=(
            Hint(
                "At the first pass, 15 min after the consumer started, the message has been consuming for 14 min 59 s: "
                "cleanExpiredMsg wants *more than* consumeTimeout.",
                equals=(910, 900, 901, 911),
            ),
            Hint("cleanExpiredMsg sends it back with delay level 3: the retry waits before it is delivered.", equals=(1800,)),
            Hint("The slow listener is not interrupted, and the retry does not wait for it to return.", equals=(2401, 2411)),
        ),
        hint="cleanExpireMsg runs every consumeTimeout minutes from the consumer's start and uses delay level 3.",
    ),
    Exercise(
        "02b.3",
        "c2 consumed queue 1 and sent it back with max 3 (rt 0 < 3); the single %RETRY%cg queue belongs to c1 (first "
        "in the sorted client ids), whose send-back carries max 1: stored rt 1 ≥ 1 → %DLQ%cg after 2 deliveries.",
        hints=(
            Hint(
                "That is c2's own limit. Who consumes the retry (one %RETRY%cg queue, AVG allocation), and whose "
                "maxReconsumeTimes does that instance's send-back carry?",
                equals=(4,),
            ),
        ),
        hint="Find who consumes %RETRY%cg's single queue, and which maxReconsumeTimes that instance sends back.",
    ),
    # 03 · delay levels
    Exercise(
        "03.1",
        "Levels 3..18 sum to 17 140 s = 4 h 45 min 40 s; the 17th failure (rt 16 ≥ 16) goes to %DLQ%cg.",
        unit="s",
        hints=(
            Hint("The first retry does not use level 1: the broker stores it with level 3 + reconsumeTimes.", equals=(6341, 12941)),
            Hint("Off by one delay level: 16 retries wait on 16 levels, the first of them level 3.", off_by=(7200, 10, 1800)),
        ),
        hint="Sum the delays of the levels the 16 retries use, starting at level 3.",
    ),
    Exercise(
        "03.2",
        "The consumer's 20 travels in every send-back header (never capped at 16): 21 deliveries. Retries 1–16 wait levels "
        "3..18 (17 140 s); retries 17–20 would need levels 19–22, but CommitLog caps the level at maxDelayLevel 18 "
        "(2 h): 17 140 + 4 × 7 200 = 45 940 s.",
        unit="s",
        hints=(
            Hint(
                "That is the default schedule. maxReconsumeTimes is not capped at 16: the consumer's value is sent with "
                "every send-back and the broker uses it.",
                equals=(17140,),
            ),
            Hint(
                "Off by one 2 h wait: count the failing deliveries past the 16th retry — reconsume_times 16, 17, 18 and "
                "19 each wait the capped level.",
                off_by=(7200,),
            ),
        ),
        hint="The consumer's maxReconsumeTimes is sent with every send-back; CommitLog caps only the delay level.",
    ),
    # 04 · dead-letter queue
    Exercise("04.1", "MixAll.getDLQTopic = '%DLQ%' + group; DLQ_NUMS_PER_GROUP = 1.", hint="MixAll.getDLQTopic builds the name; DLQ_NUMS_PER_GROUP is the queue count."),
    Exercise(
        "04.2",
        "The dead-letter topic is named after the consumer group only (%DLQ%cg): both topics' dead letters share it, told "
        "apart by their RETRY_TOPIC property.",
        hints=(Hint("Look at what MixAll.getDLQTopic is given: a topic, or a group?", equals=(2,)),),
        hint="Which name does MixAll.getDLQTopic build, and from what?",
    ),
    Exercise(
        "04.3",
        "On the fallback path the client sends RECONSUME_TIME = rt + 1 and handleRetryAndDLQ tests that with >=: the "
        "second failure (rt 1 → header 2 ≥ 2) is dead-lettered, one delivery earlier than on the broker path.",
        hints=(
            Hint(
                "That is the broker path's count. On the fallback path, which number does the broker compare with the "
                "max: the stored count, or one the client has already incremented?",
                equals=(3,),
            ),
        ),
        hint="Compare which count each path tests against maxReconsumeTimes: the stored one, or the client's + 1.",
    ),
    Exercise(
        "04.4", "With retryQueueNums <= 0 the broker answers the send-back SUCCESS and stores nothing: no retry, no DLQ.",
        hint="asyncConsumerSendMsgBack checks retryQueueNums before it looks at the DLQ rule.",
    ),
    # 04b · stranded retry queues
    Exercise(
        "04b.1",
        "%RETRY%cg was made with 1 queue at c1's first heartbeat; createTopicInSendMessageBackMethod returns the existing "
        "topic as is, so updateSubGroup never resizes it.",
        hints=(Hint("updateSubGroup changes the group's config, not a topic that already exists.", equals=(4,)),),
        hint="createTopicInSendMessageBackMethod returns an existing topic unchanged.",
    ),
    Exercise(
        "04b.2",
        "The broker's route changed at 61 s; c1's next name-server poll (every 30 s from 10 ms) sees it at 90 s, and its "
        "next rebalance (every 20 s from 0 s) takes the new queues at 100 s.",
        unit="s",
        hints=(
            Hint("The broker changed at once, but the consumer learns routes from the name server, every 30 s.", equals=(61, 62)),
            Hint(
                "At 90 s the consumer knows the new route, but it assigns queues only at its rebalance, every 20 s.",
                equals=(90, 91),
            ),
        ),
        hint="The consumer re-reads routes every 30 s and assigns queues at its rebalance, every 20 s.",
    ),
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
        hints=(Hint("The broker's offset is where the restart begins, and the slow message pinned it; count every offset from there.", equals=(1, 0)),),
        hint="A restarted consumer starts from the offset the broker has; everything from there is delivered again.",
    ),
    Exercise(
        "05.3",
        "The offset jumped to 5 in the client's memory at 62 s, but the persist timer (10 s, then every 5 s) last ran at "
        "60 s, with 1; no pull carried the 5 either. The restart reads 1 from the broker.",
        hints=(Hint("That is the client's in-memory offset. Which copy does a restarted consumer read, and when was it last written?", equals=(5,)),),
        hint="Two copies: the client's in memory and the broker's. Which one survives a crash, and when is it written?",
    ),
    # 06 · ordered send
    Exercise(
        "06.1",
        "sendSelectImpl makes a single attempt: no retry loop, the connection error reaches the caller.",
        hints=(Hint("retryTimesWhenSendFailed belongs to sendDefaultImpl's loop. Does the selector path have that loop?", equals=(3, 2)),),
        hint="Compare sendSelectImpl with sendDefaultImpl: which one has a retry loop?",
    ),
    Exercise(
        "06.2",
        "The selector hashes over the live list: 3 % 4 = 3 on broker-b's four queues, so order 3 moved from a3 to b3.",
        hints=(Hint("The selector is called with the route's queue list as it is now, not as it was at 1 s.", equals=("TopicTest@broker-a:3",)),),
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
        hints=(Hint("The strict selector never moves order 3 to another queue. Which of the three sends find a3 reachable?", equals=(3, 2)),),
        hint="The strict selector never picks another queue: a send happens only when order 3's own queue is reachable.",
    ),
    # 07 · orderly consumption
    Exercise(
        "07.1",
        "rt 0..3 are local tries; at rt 3 ≥ 3 the client sends it to %RETRY%cg and the broker diverts it to %DLQ%cg.",
        hints=(Hint("Off by one delivery: max_reconsume_times counts re-deliveries; the first delivery is not one of them.", off_by=(1,)),),
        hint="max_reconsume_times counts re-deliveries; the message is sent back once rt reaches the max.",
    ),
    Exercise(
        "07.2",
        "submitConsumeRequestLater clamps the 120 000 ms request to 30 000 ms: deliveries at 3, 33, 63 and 93 s "
        "(rt 0 … 3), and at rt 3 ≥ 3 checkReconsumeTimes sends it back.",
        unit="s",
        hints=(
            Hint("The listener's 2 minutes are not used as is: submitConsumeRequestLater bounds them.", equals=(363,)),
            Hint("The listener's value replaces the consumer's 1000 ms for that pause.", equals=(6, 7)),
            Hint("Off by one pause: max_reconsume_times=3 means four deliveries, so three pauses.", off_by=(30,)),
        ),
        hint="Work out the pause the queue really gets, then count the pauses until rt reaches the max.",
    ),
    Exercise(
        "07.3",
        "The broker lock exists only in CLUSTERING (lockAll and lock(mq) are never called in BROADCASTING, where every instance "
        "consumes every queue); MessageQueueLock and the consume lock are held as always.",
        hints=(
            Hint("In BROADCASTING every instance consumes every queue. Is there anything for the broker to arbitrate?", equals=(3,)),
            Hint("The two local locks do not depend on the message model: a listener is running.", equals=(0, 1)),
        ),
        hint="Go through the three locks: which of them involves the broker, and is it used in BROADCASTING?",
    ),
    Exercise(
        "07.4",
        "The client trusts its lock until 30 s after the last success (21 s): the loop checks before each message, so the "
        "delivery at 50 s runs and the one due at 52 s finds the lock expired.",
        unit="s",
        hints=(
            Hint("Count from the last successful lock renewal, not from the moment the link was cut.", equals=(54, 55, 56)),
            Hint("60 s is the broker's lease. How long does the client itself trust its copy?", equals=(80, 81, 82)),
        ),
        hint="The client keeps consuming until isLockExpired(): 30 s after its last successful lock, checked before each message.",
    ),
    Exercise(
        "07.5",
        "c1 last renewed at 1 s, so the broker entry is expired after 61 s; c2 retries at its rebalances (11 + 20 k s): 71 s.",
        unit="s",
        hints=(
            Hint("The broker keeps a lock entry for 60 s after the last renewal, not 30 s (that is the client's own expiry).", off_by=(30,)),
            Hint("The lease is right, but c2 only asks for locks at its rebalances: 20 s apart, from its start at 11 s.", off_by=(10,)),
        ),
        hint="The broker keeps c1's entry until 60 s after its last renewal, and c2 only asks at its own rebalances.",
    ),
    Exercise(
        "07.6",
        "c1 finished M0001 after its ProcessQueue was dropped, so processConsumeResult skipped the commit; the broker still had "
        "offset 0 for queue 1 and c2 started there. Two deliveries.",
        hints=(Hint("Orderly keeps order, not exactly-once. Did c1's commit of M0001 reach the broker before c2 started?", equals=(1,)),),
        hint="processConsumeResult commits only if the ProcessQueue is not dropped. Where did c2 start reading?",
    ),
    Exercise(
        "07.7",
        "Before each batch the loop checks the time since it began: 0, 25 and 50 s are not past 60 s; at 75 s it is, so the "
        "request resubmits itself 10 ms later and the waiting request for the other queue gets the thread.",
        hints=(
            Hint("The 60 s check runs before each message is taken, and 50 s is not more than 60 s.", equals=(2,)),
            Hint("With one thread and no yield the first queue would keep it; MAX_TIME_CONSUME_CONTINUOUSLY is 60 s.", equals=(4,)),
        ),
        hint="Before each message the loop compares the time since it began with MAX_TIME_CONSUME_CONTINUOUSLY (60 s).",
    ),
    Exercise(
        "07.8",
        "With autoCommit off, SUCCESS commits nothing; COMMIT commits everything taken so far (up to c, offset 2): 2 + 1 = 3. "
        "d and e stay in consumingMsgOrderlyTreeMap, uncommitted.",
        hints=(
            Hint("With auto-commit off, SUCCESS does not move the offset. Which status does?", equals=(5,)),
            Hint("The committed offset is the next one to consume: the last committed offset + 1.", equals=(2,)),
        ),
        hint="With auto-commit off only COMMIT moves the offset, and commit() returns the last committed offset + 1.",
    ),
    Exercise(
        "07.9",
        "The batch a, bad, c fails as a whole: every message gets rt + 1, and at rt 2 ≥ 2 checkReconsumeTimes sends each of "
        "the three to %RETRY%cg, and the broker to %DLQ%cg. d, in the next batch, succeeds.",
        hints=(Hint("The listener returns one status for the whole batch. Which messages share bad's batch?", equals=(1,)),),
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
    Exercise("08.3", "copySubscription adds the retry topic only in CLUSTERING; BROADCASTING has no retry at all.", hint="Look at DefaultMQPushConsumerImpl.copySubscription's switch on the message model."),
    # 09 · capstone
    Exercise(
        "09.1",
        "Orderly commit() is the last offset of a successful batch + 1: after p2 (offset 1) it is 2, and bad-card at offset 2 "
        "never succeeds, so the offset never passes it.",
        hints=(
            Hint("The offset to commit is the next one to consume, not the last one consumed.", equals=(1,)),
            Hint("p4 and p5 are behind bad-card on the same queue. Can an orderly commit skip a message?", equals=(5, 4, 3)),
        ),
        hint="An orderly commit is the last offset of a successful batch + 1, and the queue is consumed in order.",
    ),
    Exercise(
        "09.2",
        "Orderly with max N gives N + 1 deliveries, then %RETRY% → %DLQ%pay-cg, and the queue moves on.",
        hints=(Hint("Off by one: max_reconsume_times counts re-deliveries, and the first delivery is not a re-delivery.", off_by=(1,)),),
        hint="Orderly with max N: how many deliveries before the message is sent back?",
    ),
    Exercise(
        "09.3",
        "Once bad-card is sent back past the max, the queue commits past it and p4, p5 run at once: the ordered stream goes "
        "on without its third payment.",
        hints=(Hint("Dead-lettering does not hold the queue: what happens to p4 and p5 the moment bad-card leaves?", equals=(["p1", "p2"], ["p1", "p2", "bad-card", "p4", "p5"])),),
        hint="Once bad-card is sent back, nothing holds the queue any more.",
    ),
)
