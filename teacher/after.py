# ruff: noqa: E501 — prose, one paragraph per line as the student reads it.
"""What a lab used to say right under a check, or in the next question, that gives the answer away: now revealed
with the explanation, after a right prediction (:attr:`teacher.declare.Exercise.after`).

Most are the labs' "common belief vs. the source" boxes: the claim, and the 4.9.7 class that settles it.
"""

from __future__ import annotations

AFTER: dict[str, str] = {
    "00.2": "c1 did not wait for its timer. shutdown() unregisters c2 at every broker, and the broker's ConsumerManager tells the group's other consumers that the consumer ids changed; each rebalances at once, and its 20 s wait starts again from there. There is no fixed 20 s grid: every group change shifts the rebalances that follow.",
    "01a.3": "Common belief vs. the source: \"The producer retries when the broker is busy.\" — In 4.9.7 DefaultMQProducer.retryResponseCodes does not contain SYSTEM_BUSY, so sendDefaultImpl rethrows the MQBrokerException itself after one attempt (5.3.0 adds SYSTEM_BUSY to the set). Retry it in your own code, with a pause, or add the code with addRetryResponseCode.",
    "01b.2": "Common belief vs. the source: \"Sync send retries 2 more times, each with 3 s.\" — The budget is shared (sendDefaultImpl checks timeout < costTime before each attempt); a timed-out first attempt leaves nothing, so the caller gets 'sendDefaultImpl call timeout'. Retries help against fast failures.",
    "03.1": "Common belief vs. the source: \"Retries total ≈ 4 h 46 min.\" — exactly 17 140 s of delay, 17 deliveries, and the DLQ copy carries reconsumeTimes 17.",
    "03.2": "Common belief vs. the source: \"maxReconsumeTimes > 16 is treated as 16.\" — the configured value travels in every send-back header; only the delay level is capped, by CommitLog at maxDelayLevel. max 20 → 21 deliveries, every retry from the 16th on 2 h apart.",
    "04.1": "Common belief vs. the source: \"The DLQ is %DLQ%group@group.\" — topic@group is the broker's stats key format; the topic is MixAll.getDLQTopic(group). And \"DLQ messages cannot be consumed (perm 2)\" is true only up to 4.9.1: 4.9.2+ creates it read+write (perm 6).",
    "05.3": "While slow runs, both copies say 1. When it finishes at 62 s the map empties and the client jumps to 5 — but the broker keeps 1 until the next persist tick. That gap is the second way a crash costs duplicates.",
    "08.2": "The offset moves past the failed message exactly as past a consumed one: a restart will not see it again. That is what \"dropped\" means.\n\nCommon belief vs. the source: \"A failed message is always retried.\" — only in CLUSTERING. ConsumeMessageConcurrentlyService.processConsumeResult drops failures in BROADCASTING.",
}
"""By exercise id: the paragraph(s) shown after the explanation of a right prediction."""
