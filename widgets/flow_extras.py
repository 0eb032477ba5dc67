"""The marks only some message-flow pictures have (:mod:`widgets.flow_copies` says when): the "copy 2" badge of a
message stored a second time, a failed send try's faded crossed ghost on the queue it was sent to, their legend
lines; and the red cross that dropped and failed tokens share."""

from __future__ import annotations

from collections.abc import Callable

from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _

from .flow_canvas import Canvas, R
from .flow_model import FlowVM, TokenVM
from .flow_uncommitted import UNCOMMITTED_LEGEND
from .palette import token_colour
from .scene import Mark, text_width

__all__ = ["COPY_TIP", "EXTRA_CSS", "REFUSED", "copy_badge", "cross", "cross_legend", "extra_legend", "ghosts"]

COPY_BADGE = N_("#{n}")
COPY_TIP = N_("copy {n}: the broker stored this message id again (a duplicate)")
COPY_LEGEND = N_("#2: the same message stored a second time (copy 2, a duplicate)")
GHOST_TIP = N_("try {n} failed here: {error}")
GHOST_LEGEND = N_("faded, crossed: a send try that failed on this queue")
REFUSED = N_("refused before sending: the selector gave no queue")
"""A send that failed before any attempt (sendSelectImpl: the selector returned null or threw): its token's
tooltip, in the producer's "send failed" tray, and its legend line."""
"""A stored copy's badge and a failed try's ghost (:mod:`widgets.flow_copies`); their legend lines only on a picture
that has one."""
EXTRA_CSS = """
$ .rq-token.rq-ghost { opacity: 0.6; }
$ .rq-copy-badge { fill: var(--jp-brand-color1, #1976d2); stroke: #ffffff; stroke-width: 1; }
$ text.rq-copy-mark { fill: #ffffff; font-size: 11px; font-weight: 600; }
""".replace("$", '[data-testid="rq-flow"]')
"""Their classes, added to the flow's stylesheet only on a picture that has one (the others keep their bytes)."""


CROSS_FROM = 6.5
"""Where a cross' arms start, along each diagonal from the token's centre: beyond a label's half height (11 px
text), so no arm meets the number."""


def cross(cv: Canvas, key: str, tx: float, ty: float) -> None:
    """A red cross over a token (dropped, a send that failed, a failed try's ghost), open in the middle: its four
    arms run from just outside the label to just past the ring, so the message number stays readable."""
    lo, hi = CROSS_FROM, R * 0.8 + 2
    arms = " ".join(
        f"M{tx + sx * lo:.1f},{ty + sy * lo:.1f} L{tx + sx * hi:.1f},{ty + sy * hi:.1f}"
        for sx, sy in ((-1, -1), (1, 1), (-1, 1), (1, -1))
    )
    cv.marks.append(Mark("path", f"cross:{key}", d=arms, cls="rq-cross", role="cross"))


def copy_badge(cv: Canvas, t: TokenVM, tx: float, ty: float) -> None:
    """A blue "#2" pill across the token's foot (narrower than the gap to the next token): the same message id
    stored a second time."""
    words = _(COPY_BADGE).format(n=t.copy)
    w = text_width(words, 11) + 8
    cv.marks.append(Mark("rect", f"copy-badge:{t.key}", x=tx - w / 2, y=ty + R - 6, w=w, h=13, cls="rq-copy-badge",
                         role="badge"))  # fmt: skip
    cv.text(f"copy:{t.key}", tx, ty + R + 4, words, cls="rq-copy-mark", anchor="middle")


def ghosts(cv: Canvas, vm: FlowVM, label: Callable[[str], str]) -> None:
    """Each failed try: its message's token, faded and crossed, on the queue it was sent to (role ``ghost``, so a
    count of tokens counts messages only)."""
    for g in vm.ghosts:
        gx, gy = cv.token_at[g.key]
        tip = f"{g.msg_id} · " + _(GHOST_TIP).format(n=g.copy, error=g.why)
        text = label(g.msg_id)
        cv.marks.append(Mark("token", g.key, x=gx, y=gy, r=R, text=text, fill=g.colour, cls="rq-send_failed rq-ghost",
                             role="ghost", title=tip))  # fmt: skip
        cross(cv, g.key, gx, gy)


def extra_legend(vm: FlowVM) -> tuple[tuple[str, str, str], ...]:
    """Legend lines for the marks only some pictures have: a stored copy's badge, a failed try's ghost, a consumed
    message its queue's next owner delivers again (:mod:`widgets.flow_uncommitted`)."""
    sample = token_colour("M0001")
    lines: tuple[tuple[str, str, str], ...] = ()
    if any(t.copy > 1 for t in vm.tokens):
        lines += (("token", sample, _(COPY_LEGEND)),)
    if vm.ghosts:
        lines += (("token", f"{sample} rq-send_failed rq-ghost", _(GHOST_LEGEND)),)
    if any(t.state == "send_failed" and t.why == _(REFUSED) for t in vm.tokens):
        lines += (("token", f"{sample} rq-send_failed rq-refused", _(REFUSED)),)
    if any(t.uncommitted for t in vm.tokens):
        lines += (("token", f"{sample} rq-done rq-uncommitted", _(UNCOMMITTED_LEGEND)),)
    return lines


def cross_legend(cv: Canvas, items: tuple[tuple[str, str, str], ...], x: float, y: float) -> None:
    """The cross on the refused send's legend sample (the token it explains is crossed too)."""
    for i, (_glyph, style, _label) in enumerate(items):
        if "rq-refused" in style:
            lx, ly, d = x + 5, y + i * 14, 4.0
            arms = f"M{lx - d},{ly - d} L{lx + d},{ly + d} M{lx - d},{ly + d} L{lx + d},{ly - d}"
            cv.marks.append(Mark("path", f"legend-a:cross{i}", d=arms, cls="rq-cross", role="legend"))
