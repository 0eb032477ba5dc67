"""The lab's wall clock: virtual milliseconds as the ``yyyyMMddHHmmss`` strings of 4.9.7's ``UtilAll``.

Every timestamp in the engine — a message's born and store timestamps, a lock's last update, a ProcessQueue's
last pull — is virtual milliseconds since the run began. RocketMQ keeps the same fields as wall-clock
milliseconds, and one setting is written as a date: ``consumeTimestamp`` (``CONSUME_FROM_TIMESTAMP``), a
``yyyyMMddHHmmss`` string. To read such a string the lab fixes its calendar: **virtual time 0 is
2000-01-01 00:00:00**, so ``"20000101000130"`` is 90 s into the run and ``"20000102040000"`` is day 1, 04:00
(retention's ``deleteWhen`` hour already counts days from that midnight). The lab clock has no time zone and no
daylight saving; a string names whole seconds.

Mirrors: common/src/main/java/org/apache/rocketmq/common/UtilAll.java
    (UtilAll.timeMillisToHumanString3, UtilAll.parseDate)
Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/consumer/DefaultMQPushConsumerImpl.java
    (DefaultMQPushConsumerImpl.checkConfig)
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from ..core.errors import ConfigError

__all__ = ["LAB_EPOCH", "YYYYMMDDHHMMSS", "check_consume_timestamp", "parse_date", "time_millis_to_human_string3"]

LAB_EPOCH = datetime(2000, 1, 1)
"""What virtual time 0 reads as on the lab's calendar."""
YYYYMMDDHHMMSS = "yyyyMMddHHmmss"
"""``UtilAll.YYYYMMDDHHMMSS``, the pattern ``consumeTimestamp`` is written in."""
_FORMAT = "%Y%m%d%H%M%S"
_FOURTEEN_DIGITS = re.compile(r"\d{14}")


def time_millis_to_human_string3(ms: int) -> str:
    """``UtilAll.timeMillisToHumanString3``: virtual ``ms`` as ``yyyyMMddHHmmss`` (the milliseconds dropped).

    ``DefaultMQPushConsumer``'s default ``consumeTimestamp`` is this of "now − 30 min" when the consumer object is
    created: ``"19991231233000"`` for a consumer created at 0 ms.
    """
    return (LAB_EPOCH + timedelta(milliseconds=ms)).strftime(_FORMAT)


def parse_date(text: str) -> int | None:
    """``UtilAll.parseDate(text, YYYYMMDDHHMMSS)`` as virtual ms; ``None`` for anything that is not 14 digits
    naming a real date and time. (4.9.7's ``checkConfig`` refuses at ``start()`` what ``SimpleDateFormat`` cannot
    read, but that parser is lenient: month 13 is January of the next year. The lab refuses both, when the consumer
    is made: see :func:`check_consume_timestamp`.)"""
    if not _FOURTEEN_DIGITS.fullmatch(text):
        return None
    try:
        when = datetime.strptime(text, _FORMAT)
    except ValueError:
        return None
    return (when - LAB_EPOCH) // timedelta(milliseconds=1)


def check_consume_timestamp(value: Any) -> str:
    """``consume_timestamp`` as given, if :func:`parse_date` can read it; else a ConfigError naming it."""
    if isinstance(value, str) and parse_date(value) is not None:
        return value
    raise ConfigError(
        "consume_timestamp",
        value,
        f"a {YYYYMMDDHHMMSS} string of the lab clock, where virtual 0 ms is 20000101000000 "
        "(e.g. '20000101000130' for 90 s)",
    )
