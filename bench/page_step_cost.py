"""The kernel's cost of a Step when the run's frames are in the page (issue 32), next to a Step the kernel draws.

With frames in the page a Step is drawn by ``scene.js`` at once; the kernel only *follows* (the player's
``position`` trait arrives once a burst of moves has settled;
:meth:`widgets.controller_frames.PageFrames._follow_player` steps the replay to that frame and hands the snapshot to
the views, which put off their view-models while the page draws them from their frames). That work does not delay
the picture, but it is still CPU on a shared machine (in JupyterLite, the same two cores as the page), so it is
measured here, in process CPU time, per frame followed, for

* ``lab03``: lab 03's ``past_dash`` (its factory copied; 39 frames over 7 h, every default view), and
* ``demo1000``: ``demo_lab(messages=1000, listener="fail_twice")`` (the issue's 1,000-message case; frames capped
  at :data:`widgets.frames.MAX_FRAMES`),

against ``Controller.step_once()`` on the same dashboard built with ``run_ahead=False`` (a Step the kernel draws
and sends, as before frames).

    python -m bench.page_step_cost [--json out.json] [--only lab03 demo1000]
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rmqlab import ConsumeConcurrentlyStatus, Lab, Message


def _always_fails(msgs: Any, ctx: Any) -> ConsumeConcurrentlyStatus:
    return ConsumeConcurrentlyStatus.RECONSUME_LATER


def lab03_failing(**consumer_options: Any) -> Lab:
    """Lab 03's ``failing_lab`` (one broker, one queue, an always-failing consumer, one message at t = 0)."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=_always_fails, name="c1", **consumer_options)
    lab.at(0, p.send, Message("TopicTest", "poison"))
    return lab


def _cases() -> dict[str, tuple[Callable[..., Lab], dict[str, Any], str]]:
    from rmqlab.widgets import demo_lab

    return {
        "lab03": (lab03_failing, {"max_reconsume_times": 20}, "7h"),
        "demo1000": (functools.partial(demo_lab, messages=1000, listener="fail_twice"), {}, "6h"),
    }


def _ms(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"median_ms": round(statistics.median(values), 2), "p95_ms": round(p95, 2), "max_ms": round(max(values), 2)}


def measure(name: str) -> dict[str, Any]:
    """Follow every frame of the case's run forward, one at a time, then Step the kernel-drawn twin as far."""
    from rmqlab.widgets import Dashboard

    factory, knobs, horizon = _cases()[name]
    started = time.process_time()
    dash = Dashboard(factory, knobs=knobs, horizon=horizon)
    build_s = time.process_time() - started
    ctl = dash.controller
    assert ctl.frames is not None
    dash.tabs.selected_index = len(dash.tab_views) - 1  # the Events tab open, as in bench.browser_step_latency
    follow: list[float] = []
    for k in range(1, len(ctl.frames)):
        t0 = time.process_time()
        ctl.player.position = k  # what the page sends; no event loop here, so the kernel follows at once
        follow.append((time.process_time() - t0) * 1000)
        assert ctl.frames.index_of(ctl.position) == k
    kernel = Dashboard(factory, knobs=knobs, horizon=horizon, run_ahead=False)
    drawn: list[float] = []
    for _ in range(len(follow)):
        t0 = time.process_time()
        if not kernel.controller.step_once():
            break
        drawn.append((time.process_time() - t0) * 1000)
    return {
        "case": name,
        "frames": len(ctl.frames),
        "events": ctl.frames.end,
        "build_cpu_s": round(build_s, 2),
        "follow": _ms(follow),
        "kernel_step": _ms(drawn),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, help="write the rows here too")
    parser.add_argument("--only", nargs="+", choices=sorted(_cases()), default=None)
    args = parser.parse_args(argv)
    rows = []
    for name in _cases():
        if args.only is None or name in args.only:
            rows.append(measure(name))
            print(json.dumps(rows[-1]), flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
