"""A dashboard's run in a page with no kernel: the player and every picture, with the run's frames inside.

:func:`static_player_html` is what ``Dashboard.static_html()`` gives (and so ``save_html``, an nbconvert export of
an executed notebook, the docs site and Voila's first paint): the static SVG of the current step (what a reader
without JavaScript sees), the frames of every picture (:func:`widgets.frames.encode`) and ``scene.js`` inlined in
one ``<script type="module">``, which mounts the same player and the same scene drawing the live widgets use.
Step, Back, Play, scrub, Jump and the checkpoints then work in a page opened from disk, and the picture at step
k is the live widget's at step k (the same frames, decoded by the same code). No network, no file beside it.
The checkpoints' answers, explanations and hints, and the frames past each question, are in the page sealed
(:mod:`widgets.page_seal`): the page opens them with the choice a student clicks.
"""

from __future__ import annotations

import hashlib
import html
import json
import pathlib
import re
from collections.abc import Sequence
from typing import Any

from rmqlab.core.i18n import gettext as _

from .base import SnapshotView
from .checkpoint_answered import answer_fixes
from .event_log import EventLog
from .event_table import TABLE_CSS, event_table_html, event_table_json
from .framed import FramedView
from .frames import RunFrames
from .page_seal import seal_player, seal_tail, unlock_keys
from .player import player_words
from .scene import BASE_CSS, SceneView

__all__ = ["static_player_html"]

_SCRIPT = pathlib.Path(__file__).with_name("scene.js")
BUDGET_BYTES = 2_000_000
"""At most this much frame data per page: pictures past it (tabs, in dashboard order) stay at the current step."""


def _script_source() -> str:
    """``scene.js`` as an inline module (its ``export`` lines dropped; ``</`` escaped so no text ends the script)."""
    source = re.sub(r"^export .*$", "", _SCRIPT.read_text(encoding="utf-8"), flags=re.MULTILINE)
    return source.replace("</", "<\\/")


def _first_paint(frames: RunFrames, view: FramedView, frame: int) -> tuple[str, dict[str, Any]]:
    """``view`` at ``frame`` (-1: its current picture) as static HTML, and the traits its live widget would have."""
    if isinstance(view, SceneView):
        current = frames.scenes(view)[frame] if frame >= 0 or view.current is None else view.current
        return current.to_svg(), {"scene": current.to_json(), "duration_ms": 350}
    if isinstance(view, EventLog):
        vm = view.model(frames.snapshots[frame]) if frame >= 0 or view.vm is None else view.vm
        table = event_table_json(vm)
        return event_table_html(table), {"kind": "table", "table": table}
    raise TypeError(f"view={type(view).__name__}: the static page draws scene views and the event log")


def static_player_html(
    frames: RunFrames,
    views: Sequence[SnapshotView],
    *,
    frame: int,
    fallback: str = "",
    near: int = 0,
    live: tuple[str, Sequence[str]] = ("", ()),
) -> str:
    """The player and ``views`` (scene views and the Events table move with it; others show their text) at
    ``frame``; ``fallback`` is what stands in the player's place without JavaScript (default: the frame's clock and
    caption). ``frame`` -1: the views' current pictures, which are no frame (Step then goes on from frame ``near``;
    ``live`` gives that position's clock and caption lines)."""
    # ids from the content: the same run gives the same page, byte for byte; two runs in one page never collide
    digest = hashlib.sha256(repr((frames.positions, frames.captions, frame, [v.title for v in views])).encode())
    n = digest.hexdigest()[:12]
    run = f"static-{n}"
    player_id = f"rq-static-{n}-player"
    scenes: list[dict[str, Any]] = []
    parts = [
        f'<div class="rq-static-dashboard" data-testid="rq-static-dashboard" data-run="{html.escape(run)}">',
        f"<style>{BASE_CSS}{TABLE_CSS}</style>",
        f'<div id="{player_id}">',
        fallback
        or f"<p>{html.escape(frames.clock(max(frame, 0)))}</p>"
        + "".join(f"<div>{html.escape(t)}</div>" for t in frames.captions[max(frame, 0)]),
        "</div>",
    ]
    spent = 0
    for i, view in enumerate(views):
        parts.append(f"<h4>{html.escape(_(view.title))}</h4>")
        if isinstance(view, FramedView):
            scene_id = f"rq-static-{n}-view-{i}"
            first, now = _first_paint(frames, view, frame)
            parts.append(f'<div id="{scene_id}">{first}</div>')
            encoded = view.page_frames(frames)
            spent += len(json.dumps(encoded, separators=(",", ":")))
            if spent > BUDGET_BYTES and i > 0:  # the main picture always moves; a tab past the budget stays
                stays = _("This picture stays at this step here: the run is too long to embed it.")
                parts.append(f"<p><i>{stays}</i></p>")
                continue
            sealed = seal_tail(encoded, frames.checkpoints, view.title, answer_fixes(view, frames, encoded))
            traits = {"run": run, "frames": sealed, **now}
            scenes.append({"id": scene_id, "traits": traits})
        else:
            parts.append(f"<pre>{html.escape(view.text)}</pre>")
    said = {f: a.caption for f, a in frames.answered.items()}
    data = seal_player(frames.player_json(), frames.checkpoints, said)  # no answer in the page (widgets/page_seal.py)
    player = {"kind": "player", "data": {**data, "run": run}, "position": frame, "interval": 200, "answers": [],
              "unlocked": unlock_keys(frames.checkpoints, frame if frame >= 0 else near),
              "live_clock": live[0], "live_caption": list(live[1]), "live_near": near,
              **({"words": words} if (words := player_words()) else {})}  # fmt: skip
    payload = json.dumps({"player": player, "scenes": scenes}, separators=(",", ":")).replace("</", "<\\/")
    parts.append(
        f'<script type="module">{_script_source()}\nrqlabMountStatic("{player_id}", {payload});</script></div>'
    )
    return "".join(parts)
