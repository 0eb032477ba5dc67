# ruff: noqa: E501 — prose, one paragraph per line as the student reads it.
"""What a lab used to say right under a check, or in the next question, that gives the answer away: now revealed
with the explanation, after a right prediction (:attr:`teacher.declare.Exercise.after`).

Most are the labs' "common belief vs. the source" boxes: the claim, and the 4.9.7 class that settles it.
"""

from __future__ import annotations

AFTER: dict[str, str] = {
    "00.2": "c1 did not wait for its timer. shutdown() unregisters c2 at every broker, and the broker's ConsumerManager tells the group's other consumers that the consumer ids changed; each rebalances at once, and its 20 s wait starts again from there. There is no fixed 20 s grid: every group change shifts the rebalances that follow.",
    "01a.1": "Key point: SYNC makes 1 + retryTimesWhenSendFailed attempts, with no back-off; ONEWAY: one attempt.",
    "01a.2": "Key point: ASYNC retries only failures without a response, re-sending the same request.",
    "01a.3": "Common belief vs. the source: \"The producer retries when the broker is busy.\" — In 4.9.7 DefaultMQProducer.retryResponseCodes does not contain SYSTEM_BUSY, so sendDefaultImpl rethrows the MQBrokerException itself after one attempt (5.3.0 adds SYSTEM_BUSY to the set). Retry it in your own code, with a pause, or add the code with addRetryResponseCode.\n\nKey point: only connection failures, timeouts inside the budget and the codes in retryResponseCodes are retried: SYSTEM_BUSY is not (4.9.x).",
    "01b.1": "Common belief vs. the source: \"FLUSH_DISK_TIMEOUT is an error that the broker retries.\" — It is a status of a message that was stored. The broker retries nothing; the retry is the client's (retryAnotherBrokerWhenNotStoreOK in DefaultMQProducer), every retry stores one more copy, and after the last attempt the caller still gets the last non-OK SendResult, not an exception.\n\nKey point: FLUSH_DISK_TIMEOUT & co. are statuses of a stored message; retryAnotherBrokerWhenNotStoreOK (a producer setting) retries them and stores a copy each time.",
    "01b.2": "Common belief vs. the source: \"Sync send retries 2 more times, each with 3 s.\" — The budget is shared (sendDefaultImpl checks timeout < costTime before each attempt); a timed-out first attempt leaves nothing, so the caller gets 'sendDefaultImpl call timeout'. Retries help against fast failures.\n\nKey point: one 3000 ms budget for all attempts: a timeout is not retried.",
    "01b.3": "Both copies carry the same id M0001 (UNIQ_KEY): consumers deduplicate on it (or on business keys).\n\nKey point: a retry after a lost response stores a duplicate.",
    "01b.4": "Key point: the last attempt's latency sets how long sendLatencyFaultEnable sidelines the broker: a success at 550 ms or more: 30 s; a failure: 600 s.",
    "02a.3": "Key point: reconsumeTimes is a field of the stored message, counted by the broker at each send-back.",
    "02b.1": "Key point: when the send-back fails, the client produces the %RETRY% message itself, and if that fails too it retries locally after 5 s with the offset pinned: the in-memory count is not what the broker judges.",
    "02b.2": "Key point: a listener running past consumeTimeout is sent back by cleanExpiredMsg while it still runs: two consumptions.",
    "02b.3": "Key point: maxReconsumeTimes travels with each send-back: instances with different values dead-letter at different counts.",
    "03.1": "Common belief vs. the source: \"Retries total ≈ 4 h 46 min.\" — that is the default's 16 retries (17 140 s). With maxReconsumeTimes 5 the same rule gives 5 retries on levels 3 to 7: exactly 400 s, 6 deliveries.\n\nKey point: N retries = N + 1 deliveries, the last after the delays of levels 3 to N + 2 in turn; the default's 16 retries = 17 deliveries.",
    "03.2": "Common belief vs. the source: \"maxReconsumeTimes > 16 is treated as 16.\" — the configured value travels in every send-back header; only the delay level is capped, by CommitLog at maxDelayLevel. max 18 → 19 deliveries, every retry from the 16th on 2 h apart.\n\nKey point: the level is capped at 18 (2 h): more retries each wait 2 h.",
    "03.3": "Key point: a broker crash re-delivers what moved since the last write of delayOffset.json.",
    "04.1": "Common belief vs. the source: \"The DLQ is %DLQ%group@group.\" — topic@group is the broker's stats key format; the topic is MixAll.getDLQTopic(group). And \"DLQ messages cannot be consumed (perm 2)\" is true only up to 4.9.1: 4.9.2+ creates it read+write (perm 6).\n\nKey point: the dead-letter topic is %DLQ%<group>, one queue.",
    "04.2": "Common belief vs. the source: \"Each topic has its own dead-letter queue.\" — The name is built from the consumer group only, and it has one queue: every topic the group consumes shares it.\n\nKey point: one dead-letter topic, shared by every topic of the group.",
    "04.3": "What the 4.9.7 source says: on the broker path, asyncConsumerSendMsgBack tests msgExt.getReconsumeTimes() >= maxReconsumeTimes on the stored count, then stores the new copy with the count + 1. On the fallback path, DefaultMQPushConsumerImpl.sendMessageBack builds the retry message with RECONSUME_TIME = count + 1, sendKernelImpl puts that into the request header, and handleRetryAndDLQ tests reconsumeTimes >= maxReconsumeTimes on the header value, storing it without a further + 1. Same >=, but one side is already incremented: the fallback path dead-letters one delivery earlier, with a count one lower. The trace shows a second 4.9.x detail: handleRetryAndDLQ sets delay level 0, but the request's own properties (with the client's DELAY = 3 + count) are put back on the message afterwards, so this dead letter first waits in SCHEDULE_TOPIC_XXXX (real topic %DLQ%cg). RocketMQ 5.0 changed the check to > and the delay to −1.\n\nKey point: the client fallback path dead-letters one delivery earlier than the broker path (4.9.x).",
    "04.4": "The consumer saw ok=True and moved its offset on; nothing in the client hints at the loss.\n\nCommon belief vs. the source: \"retryQueueNums 0 disables retry safely.\" — asyncConsumerSendMsgBack returns SUCCESS before it even looks at the DLQ rule, so every failed message is silently dropped. To dead-letter at once, keep one retry queue and have the listener set ctx.delay_level_when_next_consume = -1 (or give the consumer max_reconsume_times=0).\n\nKey point: retryQueueNums 0 does not dead-letter: the failed message is dropped without a trace in the client.",
    "04b.1": "Key point: %RETRY%<group> is created once, when the group first heartbeats, with the retryQueueNums of that moment; a send-back uses the current setting, so a queue beyond the topic's count is stored but never pulled.",
    "04b.2": "Key point: an updateTopic of %RETRY%<group> frees the stranded queues after the consumer's next route poll and rebalance.",
    "05.1": "Common belief vs. the source: \"The committed offset is the last consumed message.\" — ProcessQueue.removeMessage returns the smallest key still in msgTreeMap (or the highest offset + 1 once the map is empty): a low-water mark.\n\nKey point: the committed offset is the smallest key in msgTreeMap: one slow message pins it.",
    "05.2": "Key point: both ways, a restart re-consumes: listeners must be idempotent.",
    "05.3": "While slow runs, both copies say 1. When it finishes at 62 s the map empties and the client jumps to 5 — but the broker keeps 1 until the next persist tick. That gap is the second way a crash costs duplicates.\n\nKey point: the broker learns the offset only from pulls and persist ticks: a crash loses whatever it had not yet received.",
    "06.1": "Key point: selector sends make one attempt on the selector's queue; selector exceptions, null and timeouts reach the caller.",
    "06.3": "Key point: a timed-out send may still be stored: a re-send is a duplicate.",
    "06.4": "Key point: strict ordering stays ordered but is unavailable while a queue is gone.",
    "07a.1": "Past the max, checkReconsumeTimes sends the message to %RETRY%cg with delayLevel = 3 + reconsumeTimes, and the broker, seeing reconsumeTimes ≥ max in the request header, diverts it to %DLQ%cg. It lands there only after that delay (level 4 = 30 s here): in 4.9.7 SendMessageProcessor.asyncSendMessage sets delay level 0 for the DLQ, then replaces the message's properties with the request's, which still carry the client's level (5.0 fixed it).",
    "07a.3": "No lease, and \"c1 trusts it: no\" does not matter: in BROADCASTING every instance consumes every queue, so ConsumeRequest.run does not look at pq.locked at all. The two local locks still keep one thread per queue.\n\nKey point: the broker lease is CLUSTERING only; the two local locks are taken in both models.",
    "07b.1": "Common belief vs. the source: \"The broker lock expires after 30 s.\" — RebalanceLockManager keeps an entry for 60 s after its last renewal; 30 s is ProcessQueue's limit on how long the client trusts its own copy.\n\nKey point: a crashed holder's broker lease lasts 60 s after its last renewal; the next owner gets the queue at its first rebalance after that.",
    "07b.2": "Orderly consumption keeps the order of a queue; it does not make a queue move exactly-once.\n\nKey point: its in-flight message may be consumed again by the next owner.",
    "07b.4": "a and c never failed on their own, yet they were retried with bad and dead-lettered with it. With batches, a poison message takes its neighbours down.\n\nKey point: a failed batch is retried — and dead-lettered — as a whole.",
    "08.1": "Key point: BROADCASTING delivers each message to every instance.",
    "08.2": "The offset moves past the failed message exactly as past a consumed one: a restart will not see it again. That is what \"dropped\" means.\n\nCommon belief vs. the source: \"A failed message is always retried.\" — only in CLUSTERING. ConsumeMessageConcurrentlyService.processConsumeResult drops failures in BROADCASTING.\n\nKey point: in BROADCASTING a failure is dropped and its offset passed.",
    "08.3": "Key point: only CLUSTERING sends failures to %RETRY%<group>; BROADCASTING keeps its offsets in a local file per instance.",
    "09.1": "Key point: the committed offset stuck in front of the retried message confirms the local retry loop.",
    "09.3": "Key point: max_reconsume_times unblocks the queue, at the price of order: the dead-lettered message leaves the stream.",
}
"""By exercise id: the paragraph(s) shown after the explanation of a right prediction."""

TELLS: dict[str, tuple[str, ...]] = {
    "01a.1": ("ONEWAY: one attempt",),
    "01a.2": ("re-sending the same request",),
    "01a.3": ("SYSTEM_BUSY is not",),
    "01b.1": ("stores a copy each time",),
    "01b.2": ("a timeout is not retried",),
    "01b.3": ("stores a duplicate",),
    "01b.4": ("550 ms or more: 30 s",),
    "02a.3": ("counted by the broker at each send-back",),
    "02b.1": ("the in-memory count is not what the broker judges",),
    "02b.2": ("while it still runs: two consumptions",),
    "02b.3": ("dead-letter at different counts",),
    "03.1": ("16 retries = 17 deliveries",),
    "03.2": ("more retries each wait 2 h",),
    "03.3": ("re-delivers what moved since the last write",),
    "04.1": ("%DLQ%<group>, one queue",),
    "04.2": ("shared by every topic of the group",),
    "04.3": ("dead-letters one delivery earlier",),
    "04.4": ("dropped without a trace",),
    "04b.1": ("with the retryQueueNums of that moment", "stored but never pulled",),
    "05.1": ("one slow message pins it",),
    "05.2": ("a restart re-consumes",),
    "05.3": ("a crash loses whatever it had not yet received",),
    "06.1": ("one attempt on the selector's queue",),
    "06.3": ("a timed-out send may still be stored",),
    "06.4": ("unavailable while a queue is gone",),
    "07a.3": ("CLUSTERING only",),
    "07b.1": ("at its first rebalance after that",),
    "07b.2": ("may be consumed again by the next owner",),
    "07b.4": ("dead-lettered — as a whole",),
    "08.1": ("each message to every instance",),
    "08.2": ("a failure is dropped and its offset passed",),
    "08.3": ("only CLUSTERING sends failures",),
    "09.3": ("the dead-lettered message leaves the stream",),
}
"""By exercise id: the words with which a lab's "Key points" used to state that exercise's answer. They are the
revealed text's (in :data:`AFTER`, shown after a right prediction) and must appear in nothing a student reads before:
``tests/test_student_copy.py`` searches every markdown cell of the student copy for them."""
