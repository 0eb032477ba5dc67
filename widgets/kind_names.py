"""The trace's event kinds as a person reads them in a box: the Jump box and the Events tab's kind filter.

A kind is the trace's own name (``consumed``, ``dead_lettered``), the same in every language: the Events table and
``show_trace`` print it, a cell passes it to ``jump_to_next``. In English the boxes show it bare; in Chinese they put
the Chinese term before it (``消费结果 consumed``), so the student reads the box and still learns the name the table
and the code use. The page's player gets these names with its words (:func:`widgets.player.player_words`, keys
``kind:<kind>``), so the Jump box it fills in the browser reads as the kernel's does.
"""

from __future__ import annotations

from rmqlab.core.i18n import gettext as _
from rmqlab.core.i18n import pgettext

__all__ = ["jump_label", "kind_name", "kind_names", "kind_words"]


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


def kind_name(kind: str) -> str:
    """``kind``'s name in a box (:func:`kind_names`; a kind it does not know stays as it is)."""
    return kind_names().get(kind, kind)


def jump_label(kind: str, ahead: int) -> str:
    """The Jump box's option for ``kind`` with ``ahead`` such events still to come: ``consumed (3)``."""
    return _("{kind} ({n})").format(kind=kind_name(kind), n=ahead)


def kind_words() -> dict[str, str]:
    """The names the page's player needs for its Jump box, keyed ``kind:<kind>`` among its words (only those that
    differ from the kind: none in English)."""
    return {f"kind:{kind}": name for kind, name in kind_names().items() if name != kind}
