"""A broker's storage: one CommitLog and a ConsumeQueue per (topic, queue id).

The CommitLog is the append-only log of every message the broker stored, whatever its topic; a
ConsumeQueue is an index into it (one entry per message of that queue, the entry's position being
the *queue offset* consumers commit). For ``SCHEDULE_TOPIC_XXXX`` the entry also carries the
delivery timestamp, as RocketMQ keeps it in the tags-code slot.

Mirrors: store/src/main/java/org/apache/rocketmq/store/CommitLog.java
    (CommitLog.asyncPutMessage, CommitLog.getMinOffset, CommitLog.getMaxOffset)
Mirrors: store/src/main/java/org/apache/rocketmq/store/ConsumeQueue.java
    (ConsumeQueue.putMessagePositionInfo, ConsumeQueue.getMaxOffsetInQueue)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..common.message import MessageExt

__all__ = ["CommitLog", "ConsumeQueue", "ConsumeQueueEntry"]


@dataclass(slots=True)
class ConsumeQueueEntry:
    """One index entry: where the message lives in the CommitLog, and (schedule topic) when it is due.

    Written once by ``put_message`` and only read after that. 4.9.7's 20-byte entry
    (``ConsumeQueue.putMessagePositionInfo``) holds the CommitLog offset, the size and the tags code; rmqlab keeps the
    offset and, for ``SCHEDULE_TOPIC_XXXX``, the delivery time that entry keeps in its tags-code slot.
    """

    commit_log_offset: int
    deliver_timestamp: int = 0


class CommitLog:
    """The broker's single append-only log. Offsets here are entry numbers, not bytes."""

    def __init__(self) -> None:
        self._entries: list[MessageExt | None] = []
        self.min_offset = 0

    def append(self, msg: MessageExt) -> int:
        """Store ``msg`` and return its CommitLog offset."""
        offset = len(self._entries)
        msg.commit_log_offset = offset
        self._entries.append(msg)
        return offset

    def get(self, offset: int) -> MessageExt | None:
        """``lookMessageByOffset``: the stored message, or ``None`` once deleted by retention (or not written yet)."""
        if offset < self.min_offset:
            return None
        try:
            return self._entries[offset]
        except IndexError:  # at or past max_offset
            return None

    def delete_before(self, offset: int) -> int:
        """Forget every entry below ``offset`` (retention); returns how many were deleted."""
        deleted = 0
        for i in range(self.min_offset, min(offset, len(self._entries))):
            if self._entries[i] is not None:
                self._entries[i] = None
                deleted += 1
        self.min_offset = max(self.min_offset, offset)
        return deleted

    def __len__(self) -> int:
        return len(self._entries) - self.min_offset

    @property
    def max_offset(self) -> int:
        """Offset the next message will get."""
        return len(self._entries)

    def live(self) -> list[MessageExt]:
        """Every message still kept (oldest first)."""
        return [m for m in self._entries[self.min_offset :] if m is not None]


@dataclass(slots=True)
class ConsumeQueue:
    """The index of one (topic, queue id) on one broker."""

    topic: str
    queue_id: int
    entries: list[ConsumeQueueEntry] = field(default_factory=list)
    min_offset: int = 0

    @property
    def max_offset(self) -> int:
        """``getMaxOffsetInQueue``: the offset the next entry will get."""
        return len(self.entries)

    def append(self, entry: ConsumeQueueEntry) -> int:
        """Add an entry; return its queue offset."""
        self.entries.append(entry)
        return len(self.entries) - 1
