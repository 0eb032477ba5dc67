"""A digest of every lab dashboard's frames, to show that a change in how frames are built changes no byte of them.

Runs each ``labs/NN_*.py`` as :mod:`bench.frame_cost` does (every dashboard it builds, recorded), builds its run's
frames and every framed view's page frames (all tabs, as a static page embeds them), and writes per dashboard the
SHA-256 of their JSON (player data + each view's delta-encoded frames, keys sorted). Run it on two checkouts and
compare (``--check`` exits 1 and names the dashboards that differ):

    python -m bench.frames_digest --out before.json            # on the old checkout (its PYTHONPATH)
    python -m bench.frames_digest --check before.json          # on the new one
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from bench.frame_cost import dashboards_of

ROOT = Path(__file__).resolve().parents[1]


def digests(lab: Path) -> list[str]:
    """The SHA-256 of each dashboard's frames, in the order the lab builds them."""
    from rmqlab.widgets.framed import FramedView
    from rmqlab.widgets.frames import build_run

    built = dashboards_of(lab)
    out = []
    for dash in built:
        ctl = dash.controller
        if ctl.replay is None:
            out.append("no run")
            continue
        frames = build_run(
            ctl.replay.make_lab, horizon=ctl.horizon, faults=ctl.faults, checkpoints=ctl.checkpoint_specs, run="run"
        )
        payload: dict[str, Any] = {"player": frames.player_json()}
        for i, view in enumerate(dash.views):
            if isinstance(view, FramedView):
                payload[f"{i}:{view.title}"] = view.page_frames(frames)
        text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        out.append(hashlib.sha256(text.encode()).hexdigest())
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="write the digests here")
    parser.add_argument("--check", type=Path, help="compare with digests written before")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "labs"))
    result = {lab.stem: digests(lab) for lab in sorted((ROOT / "labs").glob("[0-9]*.py"))}
    print(json.dumps({lab: len(d) for lab, d in result.items()}), flush=True)
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    if args.check:
        before = json.loads(args.check.read_text())
        differ = sorted(lab for lab in before.keys() | result.keys() if before.get(lab) != result.get(lab))
        print("same frames, byte for byte" if not differ else f"frames differ: {differ}")
        return 1 if differ else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
