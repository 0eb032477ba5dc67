"""The trace's event kinds as a person reads them in a box: the Jump box and the Events tab's kind filter.

The Jump box names each kind in plain words (:func:`jump_names`: "a listener returns", not ``consumed``; "a
consumer starts, crashes or stops", not ``lifecycle``), the way a student thinks of the moment to jump to; the
Events tab's filter keeps the trace's names, which its table prints (below).

A kind is the trace's own name (``consumed``, ``dead_lettered``), the same in every language: the Events table and
``show_trace`` print it, a cell passes it to ``jump_to_next``. In English the boxes show it bare; in Chinese they put
the Chinese term before it (``消费结果 consumed``), so the student reads the box and still learns the name the table
and the code use. The page's player gets these names with its words (:func:`widgets.player.player_words`, keys
``kind:<kind>``), so the Jump box it fills in the browser reads as the kernel's does.
"""

from __future__ import annotations

from rmqlab.core.i18n import gettext as _
from rmqlab.core.i18n import pgettext

__all__ = ["jump_label", "jump_names", "kind_name", "kind_names", "kind_words"]


def kind_names() -> dict[str, str]:
    """Each event kind's name in a box, in the current language (the kind itself in English)."""
    return {
        "send_attempt": pgettext("event kind", "send_attempt"),
        "send_result": pgettext("event kind", "send_result"),
        "send_failed": pgettext("event kind", "send_failed"),
        "stored": pgettext("event kind", "stored"),
        "scheduled": pgettext("event kind", "scheduled"),
        "delay_delivered": pgettext("event kind", "delay_delivered"),
        "pulled": pgettext("event kind", "pulled"),
        "pull_deferred": pgettext("event kind", "pull_deferred"),
        "pull_empty": pgettext("event kind", "pull_empty"),
        "delivered": pgettext("event kind", "delivered"),
        "consumed": pgettext("event kind", "consumed"),
        "send_back": pgettext("event kind", "send_back"),
        "send_back_fallback": pgettext("event kind", "send_back_fallback"),
        "local_retry": pgettext("event kind", "local_retry"),
        "dead_lettered": pgettext("event kind", "dead_lettered"),
        "broadcast_dropped": pgettext("event kind", "broadcast_dropped"),
        "offset_updated": pgettext("event kind", "offset_updated"),
        "offset_persisted": pgettext("event kind", "offset_persisted"),
        "rebalanced": pgettext("event kind", "rebalanced"),
        "lock_batch": pgettext("event kind", "lock_batch"),
        "lock_acquired": pgettext("event kind", "lock_acquired"),
        "lock_renewed": pgettext("event kind", "lock_renewed"),
        "lock_refused": pgettext("event kind", "lock_refused"),
        "lock_expired": pgettext("event kind", "lock_expired"),
        "unlocked": pgettext("event kind", "unlocked"),
        "suspended": pgettext("event kind", "suspended"),
        "consume_request": pgettext("event kind", "consume_request"),
        "clean_expired": pgettext("event kind", "clean_expired"),
        "retention_deleted": pgettext("event kind", "retention_deleted"),
        "fault": pgettext("event kind", "fault"),
        "admin": pgettext("event kind", "admin"),
        "lifecycle": pgettext("event kind", "lifecycle"),
        "warning": pgettext("event kind", "warning"),
    }


def jump_names() -> dict[str, str]:
    """Each event kind as the Jump box says it: what happens, in plain words, in the current language."""
    return {
        "send_attempt": pgettext("jump to", "a send attempt"),
        "send_result": pgettext("jump to", "a send answered"),
        "send_failed": pgettext("jump to", "a send failed"),
        "stored": pgettext("jump to", "a message stored"),
        "scheduled": pgettext("jump to", "a message parked in a delay level"),
        "delay_delivered": pgettext("jump to", "a delay over (back to %RETRY%)"),
        "pulled": pgettext("jump to", "messages pulled"),
        "pull_deferred": pgettext("jump to", "a pull put off"),
        "pull_empty": pgettext("jump to", "a pull that found nothing"),
        "delivered": pgettext("jump to", "a listener starts"),
        "consumed": pgettext("jump to", "a listener returns"),
        "send_back": pgettext("jump to", "a message sent back"),
        "send_back_fallback": pgettext("jump to", "a failed send-back resent by the client"),
        "local_retry": pgettext("jump to", "a local retry"),
        "dead_lettered": pgettext("jump to", "a dead letter (%DLQ%)"),
        "broadcast_dropped": pgettext("jump to", "a broadcast message dropped"),
        "offset_updated": pgettext("jump to", "an offset updated in memory"),
        "offset_persisted": pgettext("jump to", "offsets persisted"),
        "rebalanced": pgettext("jump to", "a rebalance"),
        "lock_batch": pgettext("jump to", "a lock request"),
        "lock_acquired": pgettext("jump to", "a queue lock taken"),
        "lock_renewed": pgettext("jump to", "a queue lock renewed"),
        "lock_refused": pgettext("jump to", "a queue lock refused"),
        "lock_expired": pgettext("jump to", "an expired lock taken over"),
        "unlocked": pgettext("jump to", "a queue unlocked"),
        "suspended": pgettext("jump to", "a queue suspended"),
        "consume_request": pgettext("jump to", "an orderly queue handed to a consume thread"),
        "clean_expired": pgettext("jump to", "an expired message cleaned"),
        "retention_deleted": pgettext("jump to", "files deleted by retention"),
        "fault": pgettext("jump to", "a fault"),
        "admin": pgettext("jump to", "an admin command"),
        "lifecycle": pgettext("jump to", "a consumer starts, crashes or stops"),
        "warning": pgettext("jump to", "a warning"),
    }


def kind_name(kind: str) -> str:
    """``kind``'s name in a box (:func:`kind_names`; a kind it does not know stays as it is)."""
    return kind_names().get(kind, kind)


def jump_label(kind: str, ahead: int) -> str:
    """The Jump box's option for ``kind`` with ``ahead`` such events still to come: ``a listener returns (3)``."""
    return _("{kind} ({n})").format(kind=jump_names().get(kind, kind), n=ahead)


def kind_words() -> dict[str, str]:
    """The names the page's player needs for its Jump box, keyed ``kind:<kind>`` among its words: the same plain
    words as the kernel's (:func:`jump_names`)."""
    return {f"kind:{kind}": name for kind, name in jump_names().items()}
