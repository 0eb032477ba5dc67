# ruff: noqa: E501 — explanations are prose, one per line as the student reads them.
"""The exercises about retries: a producer's send retry, the consumer's send-back, delay levels, the DLQ and
stranded retry queues (labs 01, 02a, 02b, 03, 04, 04b).

Teacher-only (never installed, never in a student copy): the plain explanations and hints, which
``python -m teacher.compile`` seals into ``rmqlab/course/bank.json`` under keys only the predictions give.
"""

from __future__ import annotations

from .declare import Exercise, Hint

RETRY_EXERCISES: tuple[Exercise, ...] = (
    # 01a · producer send: which failures are retried, and where; 01b · statuses, the shared timeout, duplicates, slow brokers
    Exercise(
        "01a.1",
        "ONEWAY runs sendDefaultImpl with timesTotal = 1: no retry, the exception ends it.",
        hints=(
            Hint("ONEWAY has no retryTimesWhenSend… setting: count what timesTotal is for this mode.", equals=(3,)),
        ),
        hint="Compare timesTotal in sendDefaultImpl for SYNC and for the other modes.",
    ),
    Exercise(
        "01a.2",
        "MQClientAPIImpl.onExceptionImpl asks selectOneMessageQueue(broker-a) for a broker to avoid the failed one, "
        "keeps only the broker name of that pick and re-sends the same RemotingCommand (a new opaque, the same "
        "header) to broker-b's address: the queue id chosen for the first attempt, 3, travels with the retry.",
        hints=(
            Hint(
                "A SYNC retry goes through sendDefaultImpl's loop and picks a new queue. The ASYNC retry is made in "
                "MQClientAPIImpl.onExceptionImpl: what does it take from selectOneMessageQueue's answer, and what "
                "does it re-send?",
                equals=(0, 1),
            ),
            Hint(
                "That is the picture's run. This producer's round robin starts one queue further: which queue did "
                "m1's first attempt use, and what does the ASYNC retry keep of it?",
                equals=(2,),
            ),
        ),
        hint="Read what MQClientAPIImpl.onExceptionImpl re-sends, and what it takes from selectOneMessageQueue's answer.",
    ),
    Exercise(
        "01a.3",
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
        "01b.1",
        "Each broker stored the message before its flush timed out; retryAnotherBrokerWhenNotStoreOK keeps going for all "
        "1 + retryTimesWhenSendFailed attempts (a → b → a) and returns the last FLUSH_DISK_TIMEOUT result: three copies.",
        hints=(
            Hint(
                "With retry_another_broker_when_not_store_ok=True a non-OK status does not end the loop.", equals=(1,)
            ),
            Hint(
                "Count the attempts the loop makes (1 + retryTimesWhenSendFailed), and remember that every one of them "
                "was stored: only the flush timed out.",
                equals=(2,),
            ),
        ),
        hint="FLUSH_DISK_TIMEOUT is answered after the broker stored the message; count the attempts the loop makes.",
    ),
    Exercise(
        "01b.2",
        "The first attempt used the whole 3000 ms; the budget check (timeout < costTime) stops the loop.",
        hint="sendMsgTimeout is one budget for the whole send, checked before each attempt.",
    ),
    Exercise(
        "01b.3",
        "The producer cannot tell 'not stored' from 'response lost', so it retries on broker-b: at-least-once.",
        hint="The broker stored the message before the connection dropped; what does the producer do without a response?",
    ),
    Exercise(
        "01b.4",
        "The 1 200 ms answer came back at 2 200 ms; 1 200 ms falls in latencyMax's 1000 row, so notAvailableDuration is 60 000 ms from then: 62 200 ms. Every send of the run, 5–35 s, walks past broker-a's queues.",
        unit="ms",
        hints=(
            Hint(
                "That is how long broker-a stays out, not until when: from which moment is it counted?",
                equals=(60_000,),
            ),
            Hint(
                "updateFaultItem runs when the attempt ends, after the 1 200 ms answer, not when the send starts.",
                equals=(61_000,),
            ),
            Hint(
                "1 200 ms is above 1000 in latencyMax: which row of the table is the largest entry not above it?",
                equals=(32_200, 31_000, 122_200, 121_000),
            ),
            Hint(
                "That is the picture's 600 ms answer: look the new latency up in the table.",
                equals=(31_600,),
            ),
            Hint(
                "A success is rated too: the attempt's latency, not its outcome, picks the duration.",
                equals=(0, 1000, 2200),
            ),
        ),
        hint="Look 1 200 ms up in latencyMax (the largest entry not above it) and add that row's notAvailableDuration to the time the attempt ended.",
    ),
    # 02a · concurrent consumption: failure and send-back
    Exercise(
        "02a.1",
        "processConsumeResult treats indices ackIndex+1 .. size-1 as failed.",
        hints=(Hint("ack_index is the index of the last acknowledged message, counted from 0.", off_by=(1,)),),
        hint="processConsumeResult counts msgs[0..ackIndex] as consumed and the rest as failed.",
    ),
    Exercise(
        "02a.2",
        "The first failure (stored rt 0) waits level 3 = 10 s, the second (rt 1) level 4 = 30 s, the third (rt 2) "
        "level 5 = 1 m: 1 + 10 + 30 + 60 = 101 s.",
        unit="s",
        hints=(
            Hint("The level grows with each retry: the broker picks 3 + the *stored* reconsumeTimes.", equals=(31, 21)),
            Hint(
                "The first retry does not use level 1: the broker adds 3 to the stored reconsumeTimes.",
                equals=(17, 16, 7),
            ),
            Hint("That is the third delivery. Three failures mean three waits before the fourth.", equals=(41,)),
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
    Exercise(
        "02b.1",
        "The local +1s are in client memory only; the broker judges the stored rt (0) → rt 1, level 3.",
        hint="The local retries counted in client memory; the later CONSUMER_SEND_MSG_BACK carries only the CommitLog offset.",
    ),
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
            Hint(
                "cleanExpiredMsg sends it back with delay level 3: the retry waits before it is delivered.",
                equals=(1800,),
            ),
            Hint(
                "The slow listener is not interrupted, and the retry does not wait for it to return.",
                equals=(2401, 2411),
            ),
        ),
        hint="cleanExpireMsg runs every consumeTimeout minutes from the consumer's start and uses delay level 3.",
    ),
    Exercise(
        "02b.3",
        "The broker judges each send-back by the maxReconsumeTimes in *that* request's header "
        "(SendMessageProcessor.asyncConsumerSendMsgBack: stored reconsumeTimes >= maxReconsumeTimes → %DLQ%). "
        "c1 sent back rt 0 and rt 1 with max 5 (two retries); c2 took over the queues and sent back rt 2 with max 1: "
        "2 >= 1, so the third delivery was the last.",
        hints=(
            Hint(
                "That counts with c1's limit for the whole life of the message. After 20 s, whose "
                "ConsumerSendMsgBackRequestHeader does the broker read?",
                equals=(6,),
            ),
            Hint(
                "reconsumeTimes is stored with the message, not counted per instance: when c2 first gets the "
                "message, how many times has it already been retried?",
                equals=(4, 5),
            ),
        ),
        hint="Follow reconsumeTimes through each send-back, and read which instance's maxReconsumeTimes each carries.",
    ),
    # 03 · delay levels
    Exercise(
        "03.1",
        "Levels 3..7 (10 s, 30 s, 1 m, 2 m, 3 m) sum to 400 s; the 6th failure (rt 5 ≥ 5) goes to %DLQ%cg.",
        unit="s",
        hints=(
            Hint(
                "The first retry does not use level 1: the broker stores it with level 3 + reconsumeTimes.",
                equals=(106, 226),
            ),
            Hint(
                "Off by one delay level: 5 retries wait on 5 levels, the first of them level 3.",
                off_by=(180, 240, 10),
            ),
            Hint(
                "That is the default's schedule (−1 → 16 retries). This consumer allows 5.",
                equals=(17140,),
            ),
        ),
        hint="Sum the delays of the levels the 5 retries use, starting at level 3.",
    ),
    Exercise(
        "03.2",
        "The consumer's 18 travels in every send-back header (never capped at 16): 19 deliveries. Retries 1–16 wait levels "
        "3..18 (17 140 s); retries 17–18 would need levels 19–20, but CommitLog caps the level at maxDelayLevel 18 "
        "(2 h): 17 140 + 2 × 7 200 = 31 540 s.",
        unit="s",
        hints=(
            Hint(
                "That is the default schedule. maxReconsumeTimes is not capped at 16: the consumer's value is sent with "
                "every send-back and the broker uses it.",
                equals=(17140,),
            ),
            Hint(
                "Off by one 2 h wait: count the failing deliveries past the 16th retry — reconsume_times 16 and 17 each "
                "wait the capped level.",
                off_by=(7200,),
            ),
        ),
        hint="The consumer's maxReconsumeTimes is sent with every send-back; CommitLog caps only the delay level.",
    ),
    Exercise(
        "03.3",
        "delayOffset.json is first written 10 s after the store starts (ScheduleMessageService.start: persist at a "
        "fixed rate of flushDelayOffsetInterval, 10 000 ms). That write at 10 s already holds level 2's offset past "
        '"late" (delivered at 5 s), so the restart\'s load() reads it back and "late" is not delivered again: '
        "once. Only progress made after the last write is replayed.",
        hints=(
            Hint(
                "Twice is what the crash at 9.999 s gave, before any write. Between 9.999 s and 10.5 s the "
                "ScheduleMessageService wrote delayOffset.json once: what did it hold for level 2?",
                equals=(2,),
            ),
            Hint("A parked or delivered message is never lost in this crash: it lives in the CommitLog.", equals=(0,)),
        ),
        hint="Find when delayOffset.json is written (flushDelayOffsetInterval) and compare with the crash time.",
    ),
    # 04 · dead-letter queue
    Exercise(
        "04.1",
        "MixAll.getDLQTopic = '%DLQ%' + group, here %DLQ%invoices; DLQ_NUMS_PER_GROUP = 1, whatever the failed topic's "
        "queue count.",
        hints=(
            Hint("The name is built from the consumer group, not from the topic the message came from.",
                 equals=(("%DLQ%Orders", 1), ("%DLQ%Orders", 4))),
            Hint("The DLQ's queue count is a constant per group (DLQ_NUMS_PER_GROUP), not the failed topic's.",
                 equals=(("%DLQ%invoices", 4),)),
        ),
        hint="MixAll.getDLQTopic builds the name; DLQ_NUMS_PER_GROUP is the queue count.",
    ),
    Exercise(
        "04.2",
        "The dead-letter topic is named after the consumer group only: %DLQ%billing and %DLQ%audit, each shared by both "
        "topics' dead letters of its group, told apart by their RETRY_TOPIC property.",
        hints=(
            Hint("Look at what MixAll.getDLQTopic is given: a topic, or a group? Count those.", equals=(4,)),
            Hint("One dead-letter topic serves every topic of a group, but each group has its own.", equals=(1,)),
        ),
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
        "04.4",
        "The copy parked before 5 s came back on %RETRY%cg at 11 s and failed again, with its retries used up. But by "
        "then retryQueueNums was 0, and asyncConsumerSendMsgBack answers such a send-back SUCCESS and stores nothing "
        "before it looks at the DLQ rule: no retry, no DLQ.",
        hints=(
            Hint("Its retries were used up, so the DLQ rule would send it there. Which does asyncConsumerSendMsgBack "
                 "check first: the group's retry queues, or the DLQ rule?", equals=("%DLQ%cg",)),
            Hint("The parked copy did come back on %RETRY%cg at 11 s. Follow its second send-back.",
                 equals=("%RETRY%cg", "SCHEDULE_TOPIC_XXXX")),
        ),
        hint="asyncConsumerSendMsgBack checks retryQueueNums before it looks at the DLQ rule.",
    ),
    # 04b · stranded retry queues
    Exercise(
        "04b.1",
        "%RETRY%cg was made with 2 queues at c1's first heartbeat, the retryQueueNums of that moment; "
        "createTopicInSendMessageBackMethod returns the existing topic as is, so the later updateSubGroup never resizes it.",
        hints=(
            Hint("updateSubGroup changes the group's config, not a topic that already exists.", equals=(4,)),
            Hint("The picture's topic got 1 queue because that was the group's setting when c1 first heartbeated. What was it here?", equals=(1,)),
        ),
        hint="createTopicInSendMessageBackMethod returns an existing topic unchanged.",
    ),
    Exercise(
        "04b.2",
        "The route changed at 125 s; c1's next name-server poll (every 30 s from 10 ms) sees it at 150 s, and its "
        "next rebalance (every 20 s from 0 s) takes the new queues at 160 s.",
        unit="s",
        hints=(
            Hint(
                "The broker changed at once, but the consumer learns routes from the name server, every 30 s.",
                equals=(125, 126),
            ),
            Hint(
                "At 150 s the consumer knows the new route, but it assigns queues only at its rebalance, every 20 s.",
                equals=(150, 151),
            ),
        ),
        hint="The consumer re-reads routes every 30 s and assigns queues at its rebalance, every 20 s.",
    ),
)
