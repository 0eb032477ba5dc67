"""The message-flow picture's drawing surface and shared geometry: sizes, the :class:`Canvas` every part appends its
marks to, the :class:`Columns` each part reads and extends, and the token grid."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rmqlab.core.i18n import N_

from .scene import Mark

if TYPE_CHECKING:
    from .flow_model import Place, TokenVM

__all__ = [
    "GAP",
    "GAP_SEND",
    "HOP_W",
    "LANES",
    "PAD",
    "ROW",
    "SLOT_TOKENS_PER_ROW",
    "STEP",
    "TOKENS_PER_ROW",
    "Canvas",
    "Columns",
    "R",
    "grid_height",
    "place_tokens",
    "pq_height",
]

R = 12.5
STEP = 28.0
PAD = 8.0
ROW = 22.0
GAP = 72.0
"""Between the brokers and the consumer instances: room for the "send back" and "dead letter" arrows' labels (the
outcome trays, under the instances, start right after it, level with the dead-letter arrow)."""
GAP_SEND = 40.0
"""Between the producers and the brokers: the one "send" arrow needs less."""
HOP_W = 14.0
"""Right margin of a broker column, where the schedule service's hop arrow (SCHEDULE → %RETRY%) runs."""
TOKENS_PER_ROW = 4
SLOT_TOKENS_PER_ROW = 3
"""Tokens per row in a broker's queue slot and in a ProcessQueue: three keep lab 00's two brokers and two consumers
within JupyterLab's output area with the file browser open (868 px, ``tests/test_flow_fits.py``); a fuller queue
grows a row."""


@dataclass(slots=True)
class Canvas:
    """The marks drawn so far, and where each token's centre is (the tokens are drawn last, on top)."""

    marks: list[Mark] = field(default_factory=list)
    token_at: dict[str, tuple[float, float]] = field(default_factory=dict)

    def text(
        self, key: str, x: float, y: float, text: str, cls: str = "", anchor: Any = "start", title: str = ""
    ) -> None:
        self.marks.append(Mark("text", key, x=x, y=y, text=text, cls=cls, anchor=anchor, title=title, role="label"))

    def rect(
        self,
        key: str,
        x: float,
        y: float,
        w: float,
        h: float,
        cls: str,
        role: str = "place",
        title: str = "",
        dash: str = "",
    ) -> None:
        self.marks.append(Mark("rect", key, x=x, y=y, w=w, h=h, cls=cls, role=role, title=title, dash=dash))


def pq_height(p: Place, n: int) -> float:
    """A ProcessQueue row: its tokens, plus a line for what it waits for (suspend, local retry), below the last row's
    reconsume badges (12 px drew lab 07a's "suspended · again in …" across token 2's badge)."""
    return max(ROW, grid_height(n, SLOT_TOKENS_PER_ROW)) + (16 if p.note else 0)


def grid_height(n: int, per_row: int = TOKENS_PER_ROW) -> float:
    rows = max(1, -(-n // per_row))
    return rows * STEP + 4


def place_tokens(cv: Canvas, tokens: Iterable[TokenVM], x: float, y: float, per_row: int = TOKENS_PER_ROW) -> None:
    """Token centres in a grid from (x, y) = the first centre."""
    for i, t in enumerate(tokens):
        cv.token_at[t.key] = (x + (i % per_row) * STEP, y + (i // per_row) * STEP)


@dataclass(slots=True)
class Columns:
    """Where the columns sit, as the parts left of them found it (x positions, widths, bottoms)."""

    by_place: dict[str, list[TokenVM]]
    places_in: dict[str, list[Place]]
    top: float
    prod_right: float = 0.0
    prod_bottom: float = 0.0
    bx0: float = 0.0
    col_w: float = 0.0
    label_w: float = 0.0
    lane_y: dict[str, tuple[float, float]] = field(default_factory=dict)
    broker_bottom: float = 0.0
    brokers_right: float = 0.0
    cx0: float = 0.0
    cons_w: float = 0.0
    cons_bottom: float = 0.0
    consumer_y: dict[str, float] = field(default_factory=dict)
    """The top of each consumer instance's box."""
    out_bottom: float = 0.0
    right: float = 0.0


LANES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("business", N_("topic queues"), ("business",)),
    ("schedule", "SCHEDULE_TOPIC_XXXX", ("delay",)),
    ("retry", N_("%RETRY% topics"), ("retry",)),
    ("dlq", N_("%DLQ% topics"), ("dlq",)),
)
"""The broker lanes, top to bottom: key, header, the place kinds a lane holds. Rows shared by all brokers."""
