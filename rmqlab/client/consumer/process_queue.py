"""The client's ``ProcessQueue``: pulled-but-not-finished messages of one queue, in a real TreeMap.

The key fact for students: :meth:`remove_message` returns the offset the consumer commits, and that
is the **smallest key still in the map** (or ``queue_offset_max + 1`` once it is empty). One slow
message at a low offset pins the committed offset; after a crash everything above it is redelivered.

Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/consumer/ProcessQueue.java
    (ProcessQueue.putMessage, ProcessQueue.removeMessage, ProcessQueue.getMaxSpan, ProcessQueue.isLockExpired,
    ProcessQueue.isPullExpired, ProcessQueue.takeMessages, ProcessQueue.commit, ProcessQueue.rollback,
    ProcessQueue.makeMessageToConsumeAgain, ProcessQueue.hasTempMessage)
"""

from __future__ import annotations

from collections.abc import Iterable

from sortedcontainers import SortedDict

from ...common.message import MessageExt
from ...core.process import LocalLock

__all__ = ["REBALANCE_LOCK_INTERVAL_MS", "REBALANCE_LOCK_MAX_LIVE_TIME_MS", "ProcessQueue", "body_length"]

REBALANCE_LOCK_MAX_LIVE_TIME_MS = 30_000
"""The client stops trusting its broker lock 30 s after the last successful lock (broker: 60 s)."""
REBALANCE_LOCK_INTERVAL_MS = 20_000
"""``lockAll`` renews every orderly queue's broker lock every 20 s."""
PULL_MAX_IDLE_TIME_MS = 120_000


def body_length(msg: MessageExt) -> int:
    """``msg.getBody().length``: the bytes ``msgSize`` counts (UTF-8 for a ``str`` body).

    A lab may send any Python object as a body; it stands for a ``byte[]`` whose length the lab cannot know, so it
    counts 0 bytes. Send ``str`` or ``bytes`` bodies to see ``pullThresholdSizeForQueue`` act.
    """
    body = msg.body
    if isinstance(body, str):
        return len(body.encode("utf-8", "surrogatepass"))
    if isinstance(body, bytes | bytearray):
        return len(body)
    return 0


class ProcessQueue:
    """``msg_tree_map`` (offset → message) plus, for orderly consumers, ``consuming_msg_orderly_tree_map``."""

    def __init__(self, now: int = 0) -> None:
        self.msg_tree_map: SortedDict = SortedDict()
        self.consuming_msg_orderly_tree_map: SortedDict = SortedDict()
        self.msg_count = 0
        self.msg_size = 0
        """``msgSize``: the body bytes of the messages counted in :attr:`msg_count` (only bodies, as 4.9.7 says:
        "the size(MB) of a message only measured by message body, so it's not accurate")."""
        self.queue_offset_max = 0
        self.dropped = False
        self.locked = False
        self.last_lock_timestamp = now
        self.last_pull_timestamp = now
        self.last_consume_timestamp = now
        self.consuming = False
        self.try_unlock_times = 0
        self.consume_lock = LocalLock()
        """``getConsumeLock()``: held by an orderly consume thread around each listener call, so a rebalance cannot
        release the queue under it (``removeUnnecessaryMessageQueue`` waits up to 1 s for it)."""

    # ------------------------------------------------------------------ both modes
    def put_message(self, msgs: Iterable[MessageExt]) -> bool:
        """Insert by queue offset; return ``dispatchToConsume`` (map non-empty and was not consuming).

        An offset already in the map keeps its message and is not counted again. The batch goes in with one
        ``update`` (one sort of the keys, not one insertion per message): its offsets are distinct, the
        consecutive entries of one pull.
        """
        tree = self.msg_tree_map
        new = {msg.queue_offset: msg for msg in msgs if msg.queue_offset not in tree}
        if new:
            tree.update(new)
            self.msg_count += len(new)
            self.msg_size += sum(map(body_length, new.values()))
            self.queue_offset_max = next(reversed(new))  # the last message put, as Java sets it per new message
        dispatch = False
        if tree and not self.consuming:
            dispatch = True
            self.consuming = True
        return dispatch

    def remove_message(self, msgs: Iterable[MessageExt], now: int) -> int:
        """Remove consumed messages and return the offset to commit (−1 if the map was already empty)."""
        self.last_consume_timestamp = now
        tree = self.msg_tree_map
        if not tree:
            return -1
        for msg in msgs:
            if tree.pop(msg.queue_offset, None) is not None:
                self.msg_count -= 1
                self.msg_size -= body_length(msg)
        if tree:
            first_key: int = tree.peekitem(0)[0]  # firstKey(): the lowest offset still cached
            return first_key
        return self.queue_offset_max + 1  # emptied: everything up to the last message put is consumed

    def max_span(self) -> int:
        """``getMaxSpan``: last key − first key (0 when empty)."""
        tree = self.msg_tree_map
        return tree.peekitem(-1)[0] - tree.peekitem(0)[0] if tree else 0

    def is_lock_expired(self, now: int) -> bool:
        return now - self.last_lock_timestamp > REBALANCE_LOCK_MAX_LIVE_TIME_MS

    def is_pull_expired(self, now: int) -> bool:
        return now - self.last_pull_timestamp > PULL_MAX_IDLE_TIME_MS

    # ------------------------------------------------------------------ orderly only
    def take_messages(self, batch_size: int, now: int) -> list[MessageExt]:
        """Move up to ``batch_size`` smallest entries into the consuming map; none left → not consuming."""
        self.last_consume_timestamp = now
        taken: list[MessageExt] = []
        tree = self.msg_tree_map
        while tree and len(taken) < batch_size:
            offset, msg = tree.popitem(0)
            self.consuming_msg_orderly_tree_map[offset] = msg
            taken.append(msg)
        if not taken:
            self.consuming = False
        return taken

    def commit(self) -> int:
        """Forget the consuming map; return its last key + 1 (the offset to commit)."""
        consuming = self.consuming_msg_orderly_tree_map
        offset: int = consuming.peekitem(-1)[0]
        self.msg_count -= len(consuming)
        self.msg_size -= sum(body_length(msg) for msg in consuming.values())
        consuming.clear()
        return offset + 1

    def rollback(self) -> None:
        """Put every consuming entry back into ``msg_tree_map``."""
        self.msg_tree_map.update(self.consuming_msg_orderly_tree_map)
        self.consuming_msg_orderly_tree_map.clear()

    def make_message_to_consume_again(self, msgs: Iterable[MessageExt]) -> None:
        """Move these messages from the consuming map back to ``msg_tree_map``."""
        for msg in msgs:
            self.consuming_msg_orderly_tree_map.pop(msg.queue_offset, None)
            self.msg_tree_map[msg.queue_offset] = msg

    def has_temp_message(self) -> bool:
        return bool(self.msg_tree_map)
