"""What a value a checkpoint hides reads as, while the question waits: words, not a lone "?".

A bare "?" in "into %RETRY%cg in ?." or "? 后拉取路由" looked like a rendering bug (revC defect 7); "in … (your
question)" / "…（待你回答）" says that the value is withheld on purpose, and why. The caption lines use these words
(:mod:`widgets.checkpoint_mask`); the pictures, whose texts were laid out for a time, the short "(hidden)" /
"（待答）": view texts, the clocks (:mod:`widgets.flow_clocks`), the retry timeline, the leases and the committed
offsets (:mod:`widgets.checkpoint_hide`).

Mirrors: nothing in RocketMQ; a teaching device of the lab's checkpoints.
"""

from __future__ import annotations

from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _

__all__ = ["HIDDEN_SHORT", "HIDDEN_WORDS", "hidden_short", "hidden_words"]

HIDDEN_WORDS = N_("… (your question)")
"""A hidden time in a caption line (HTML that wraps), in the current language."""
HIDDEN_SHORT = N_("(hidden)")
"""A hidden time or offset in a picture: its text was laid out for a time ("due in 30 s"), so the words are short
("due in (hidden)"); the caption above says "… (your question)"."""


def hidden_words() -> str:
    """:data:`HIDDEN_WORDS` in the current language (read when a mask is applied, so a language switch shows)."""
    return _(HIDDEN_WORDS)


def hidden_short() -> str:
    """:data:`HIDDEN_SHORT` in the current language."""
    return _(HIDDEN_SHORT)
