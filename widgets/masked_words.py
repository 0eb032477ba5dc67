"""What a value a checkpoint hides reads as, while the question waits: words, not a lone "?".

A bare "?" in "into %RETRY%cg in ?." or "? 后拉取路由" looked like a rendering bug (revC defect 7); "in … (your
question)" / "…（待你回答）" says that the value is withheld on purpose, and why. Every mask uses these words: the
caption lines and view texts (:mod:`widgets.checkpoint_mask`), the clocks (:mod:`widgets.flow_clocks`), the retry
timeline, the leases and the committed offsets (:mod:`widgets.checkpoint_hide`).

Mirrors: nothing in RocketMQ; a teaching device of the lab's checkpoints.
"""

from __future__ import annotations

from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _

__all__ = ["HIDDEN_WORDS", "hidden_words"]

HIDDEN_WORDS = N_("… (your question)")
"""A hidden time or offset, in the current language."""


def hidden_words() -> str:
    """:data:`HIDDEN_WORDS` in the current language (read when a mask is applied, so a language switch shows)."""
    return _(HIDDEN_WORDS)
