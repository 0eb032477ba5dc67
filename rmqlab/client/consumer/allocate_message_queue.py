"""Queue allocation strategies (``AllocateMessageQueueStrategy``).

Mirrors: client/src/main/java/org/apache/rocketmq/client/consumer/rebalance/AllocateMessageQueueAveragely.java
    (AllocateMessageQueueAveragely.allocate)
Mirrors: client/src/main/java/org/apache/rocketmq/client/consumer/rebalance/AllocateMessageQueueAveragelyByCircle.java
    (AllocateMessageQueueAveragelyByCircle.allocate)
"""

from __future__ import annotations

from collections.abc import Sequence

from ...common.message_queue import MessageQueue

__all__ = ["allocate_averagely", "allocate_averagely_by_circle"]


def allocate_averagely(
    consumer_group: str, current_cid: str, mq_all: Sequence[MessageQueue], cid_all: Sequence[str]
) -> list[MessageQueue]:
    """``AllocateMessageQueueAveragely``: contiguous blocks, the first ``m % n`` consumers get one more.

    ``mq_all`` and ``cid_all`` must already be sorted (RebalanceImpl sorts both); a cid not in the
    list gets nothing. m=10, n=4 → 3, 3, 2, 2 queues; m=3, n=5 → the last two consumers get none.
    """
    if current_cid not in cid_all or not mq_all:
        return []
    index = cid_all.index(current_cid)
    m, n = len(mq_all), len(cid_all)
    mod = m % n
    if m <= n:
        size = 1
    elif mod > 0 and index < mod:
        size = m // n + 1
    else:
        size = m // n
    start = index * size if mod > 0 and index < mod else index * size + mod
    count = min(size, m - start)
    return [mq_all[(start + j) % m] for j in range(max(count, 0))]


def allocate_averagely_by_circle(
    consumer_group: str, current_cid: str, mq_all: Sequence[MessageQueue], cid_all: Sequence[str]
) -> list[MessageQueue]:
    """``AllocateMessageQueueAveragelyByCircle``: consumer i takes queues i, i+n, i+2n, …"""
    if current_cid not in cid_all:
        return []
    index = cid_all.index(current_cid)
    return [mq for j, mq in enumerate(mq_all) if j % len(cid_all) == index]
