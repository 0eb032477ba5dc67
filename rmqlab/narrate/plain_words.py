"""The words plain sentences share: ordinals, a queue as a beginner reads it, an error as a beginner would say it.

Used by :mod:`~rmqlab.narrate.plain` and :mod:`~rmqlab.narrate.plain_consuming`.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.i18n import N_
from ..core.i18n import gettext as _

__all__ = ["copy_words", "error_words", "ids_words", "ordinal", "queue_words"]


def ordinal(n: int) -> str:
    """``1`` → ``1st``, ``2`` → ``2nd``, ``11`` → ``11th``, ``23`` → ``23rd``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    forms = {"st": N_("{n}st"), "nd": N_("{n}nd"), "rd": N_("{n}rd"), "th": N_("{n}th")}  # 中文: 第 {n} 次
    return _(forms[suffix]).format(n=n)


def queue_words(queue: object) -> str:
    """``TopicTest@broker-a:0`` → ``TopicTest queue 0 on broker-a`` (anything else stays as it is)."""
    text = str(queue)
    topic, at, rest = text.partition("@")
    broker, colon, queue_id = rest.rpartition(":")
    if not at or not colon:
        return text
    return _("{topic} queue {queue_id} on {broker}").format(topic=topic, queue_id=queue_id, broker=broker)


def error_words(error: object) -> str:
    """A remoting exception or broker answer, as a beginner would say it."""
    text = str(error)
    for needle, words in (
        ("Connect", N_("the broker could not be reached")),
        ("reset before the response", N_("its answer was lost on the way back")),
        ("Timeout", N_("no answer came in time")),
        ("call timeout", N_("the time allowed for the send ran out")),
        ("SYSTEM_BUSY", N_("the broker said it is too busy")),
        ("NO_PERMISSION", N_("the broker refused it (no permission)")),
        ("TOPIC_NOT_EXIST", N_("the broker does not know the topic")),
        ("SUBSCRIPTION_GROUP_NOT_EXIST", N_("the broker does not know the group")),
        ("MESSAGE_ILLEGAL", N_("the broker rejected the message as invalid")),
        ("SERVICE_NOT_AVAILABLE", N_("the broker is not accepting writes")),
        ("SYSTEM_ERROR", N_("the broker had an internal error")),
        ("FLOW_CONTROL", N_("the broker asked it to slow down")),
    ):
        if needle in text:
            return _(words)
    return _("an error")


def ids_words(ids: Sequence[str]) -> str:
    """Up to three message ids, then how many more: ``M0001, M0002, M0003 and 4 more``."""
    if not ids:
        return _("nothing")
    shown = ", ".join(ids[:3])
    return shown + (_(" and {count} more").format(count=len(ids) - 3) if len(ids) > 3 else "")


def copy_words(msg: str, n: int) -> str:
    """Copy ``n`` (2 or more) of ``msg``: ``a second copy of M0001``, ``copy 3 of M0001`` (the picture's "#2" badge)."""
    return _("a second copy of {msg}").format(msg=msg) if n == 2 else _("copy {n} of {msg}").format(n=n, msg=msg)
