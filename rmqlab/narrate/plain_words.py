"""The words plain sentences share: ordinals, a queue as a beginner reads it, an error as a beginner would say it.

Used by :mod:`~rmqlab.narrate.plain` and :mod:`~rmqlab.narrate.plain_consuming`.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["error_words", "ids_words", "ordinal", "queue_words"]


def ordinal(n: int) -> str:
    """``1`` → ``1st``, ``2`` → ``2nd``, ``11`` → ``11th``, ``23`` → ``23rd``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def queue_words(queue: object) -> str:
    """``TopicTest@broker-a:0`` → ``TopicTest queue 0 on broker-a`` (anything else stays as it is)."""
    text = str(queue)
    topic, at, rest = text.partition("@")
    broker, colon, queue_id = rest.rpartition(":")
    if not at or not colon:
        return text
    return f"{topic} queue {queue_id} on {broker}"


def error_words(error: object) -> str:
    """A remoting exception or broker answer, as a beginner would say it."""
    text = str(error)
    for needle, words in (
        ("Connect", "the broker could not be reached"),
        ("Timeout", "no answer came in time"),
        ("call timeout", "the time allowed for the send ran out"),
        ("SYSTEM_BUSY", "the broker said it is too busy"),
        ("NO_PERMISSION", "the broker refused it (no permission)"),
        ("TOPIC_NOT_EXIST", "the broker does not know the topic"),
        ("SUBSCRIPTION_GROUP_NOT_EXIST", "the broker does not know the group"),
        ("MESSAGE_ILLEGAL", "the broker rejected the message as invalid"),
        ("SERVICE_NOT_AVAILABLE", "the broker is not accepting writes"),
        ("SYSTEM_ERROR", "the broker had an internal error"),
        ("FLOW_CONTROL", "the broker asked it to slow down"),
    ):
        if needle in text:
            return words
    return "an error"


def ids_words(ids: Sequence[str]) -> str:
    """Up to three message ids, then how many more: ``M0001, M0002, M0003 and 4 more``."""
    if not ids:
        return "nothing"
    shown = ", ".join(ids[:3])
    return shown + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
