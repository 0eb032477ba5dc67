"""The failures rmqlab words itself, as templates a reader can translate where it shows them.

RocketMQ's own messages (``the broker[…] not exist``, ``wait response timeout …``, a broker's remark such as
``topic[T] not exist, apply first please!``) are quoted as RocketMQ prints them. Some failures have no RocketMQ text,
or only part of one, because the lab makes them: a partition a teacher injected, a broker stopped in the lab, a
request with no time left, a fault injected into a broker's answer. The engine words those with the templates here.

The trace keeps them in English: it is data, the same in every language (the goldens compare it byte for byte).
Whoever shows a trace's text to a person — the captions (``rmqlab.narrate``), the trace table, a dashboard's Events
tab — passes it through :func:`translated`, which finds each template's English in the text and puts the template's
translation there, with the same values. In English that changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from string import Formatter

from .i18n import N_, current_language
from .i18n import gettext as _

__all__ = [
    "BROKER_DOWN",
    "CLOSED_BEFORE_RESPONSE",
    "CLOSED_BROKER_DOWN",
    "INJECTED_FAULT",
    "NETWORK_PARTITION",
    "NO_TIME_LEFT",
    "RESET_BEFORE_RESPONSE",
    "SEND_BACK_REJECTED",
    "TEMPLATES",
    "translated",
]  # fmt: skip

NETWORK_PARTITION = N_("network partition {client} / {broker}")
"""A client cut from a broker (``Lab.partition``); RocketMQ would only see its connection fail."""
BROKER_DOWN = N_("connect to {broker} failed: broker down")
"""``RemotingConnectException``'s own "connect to … failed", and why: the lab stopped the broker."""
CLOSED_BROKER_DOWN = N_("connection to {broker} closed: broker down")
"""A request in flight when the lab stopped its broker."""
NO_TIME_LEFT = N_("no time left for the request")
"""A send whose ``sendMsgTimeout`` budget was spent before this attempt."""
RESET_BEFORE_RESPONSE = N_("connection reset before the response arrived")
"""A response the lab's network fault dropped (``lose_responses``)."""
CLOSED_BEFORE_RESPONSE = N_("connection closed before the response arrived")
"""A request in flight when its connection went (broker restart, partition)."""
INJECTED_FAULT = N_("[{code}] injected fault")
"""A broker's error answer a teacher injected, as its remark (the code is RocketMQ's ``ResponseCode``)."""
SEND_BACK_REJECTED = N_("send back rejected (injected fault)")
"""A ``CONSUMER_SEND_MSG_BACK`` the lab made the broker refuse."""

TEMPLATES = (NETWORK_PARTITION, BROKER_DOWN, CLOSED_BROKER_DOWN, NO_TIME_LEFT, RESET_BEFORE_RESPONSE,
             CLOSED_BEFORE_RESPONSE, INJECTED_FAULT, SEND_BACK_REJECTED)  # fmt: skip

_VALUE = r"[^\s()\[\]（）；，、]+"
"""What a template's ``{field}`` matches in a text: a name (``c1/inner``, ``broker-a``, ``SYSTEM_BUSY``), no
spaces, brackets or punctuation (the text around it may close a bracket right after it)."""


def _pattern(template: str) -> re.Pattern[str]:
    parts = []
    for literal, field, _spec, _conversion in Formatter().parse(template):
        parts.append(re.escape(literal))
        if field is not None:
            parts.append(f"(?P<{field}>{_VALUE})")
    return re.compile("".join(parts))


_PATTERNS = tuple((template, _pattern(template)) for template in TEMPLATES)


def translated(text: str) -> str:
    """``text`` with each of :data:`TEMPLATES` it contains in the current language, its values kept:
    ``RemotingConnectException: network partition c1/inner / broker-a`` → ``RemotingConnectException:
    网络分区 c1/inner / broker-a`` in Chinese; ``text`` itself in English."""
    if current_language() == "en":
        return text
    for template, pattern in _PATTERNS:
        if template.partition("{")[0] in text:  # the literal start of the template: most texts have none
            text = pattern.sub(_filled(_(template)), text)
    return text


def _filled(words: str) -> Callable[[re.Match[str]], str]:
    """The replacement of one template's match: its translation, with the values the match found."""
    return lambda found: words.format(**found.groupdict())
