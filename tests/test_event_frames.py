"""The Events tab plays in the page: its table at every frame is in the run's frames, delta-encoded by row, and what
the page draws at step k is the table the kernel draws at step k (issue 32)."""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from rmqlab.widgets import Dashboard, EventLog, demo_lab
from rmqlab.widgets.event_log import EventLogModel
from rmqlab.widgets.event_table import event_table_html, event_table_json
from rmqlab.widgets.frames import decode

from rmqlab import Lab

pytestmark = pytest.mark.usefixtures("no_running_loop")  # a page move is followed at once, as in a script

SCENE_JS = Path(__file__).resolve().parents[1] / "widgets" / "scene.js"


def failing() -> Lab:
    return demo_lab(listener="fail_all", max_reconsume_times=1)


def _opened(dash: Dashboard) -> EventLog:
    """The Events tab, opened as a student does (its frames go to the page then)."""
    view = dash.view("Events")
    assert isinstance(view, EventLog)
    dash.tabs.selected_index = dash.tab_views.index(view)
    return view


def _kernel_tables(dash: Dashboard) -> list[dict[str, Any]]:
    """The table the kernel draws at each frame, reached by Step from Reset as a student steps."""
    ctl = dash.controller
    assert ctl.frames is not None
    view = dash.view("Events")
    ctl.reset()
    tables = []
    for k in range(len(ctl.frames)):
        if k:
            assert ctl.step_once()
        assert ctl.player.position == k
        assert isinstance(view.vm, EventLogModel)
        tables.append(event_table_json(view.vm))
    return tables


def test_every_frame_is_the_table_the_kernel_draws_at_that_step() -> None:
    dash = Dashboard(failing, horizon="2m")
    view = _opened(dash)
    assert view.canvas.frames and view.canvas.run == dash.controller.player.data["run"]
    tables = _kernel_tables(dash)
    assert len(tables) == 15
    for k, table in enumerate(tables):
        assert decode(view.canvas.frames, k) == table, k
    # the last 15 rows in reading order: the send-back (62) above the broker's DLQ put (60, 61) it caused
    assert tables[-1]["summary"] == "64 of 64 events" and [r["seq"] for r in tables[-1]["marks"]][-5:] == [
        62,
        60,
        61,
        63,
        64,
    ]
    assert [r["key"] for r in tables[-1]["marks"] if r.get("current")] == ["row:64"]
    assert not view.live  # at a frame the page draws the table; the kernel sends none


def test_a_step_sends_only_the_rows_that_are_new_at_that_step() -> None:
    dash = Dashboard(failing, horizon="2m")
    view = _opened(dash)
    encoded = view.canvas.frames["frames"]
    for k in range(1, len(encoded)):
        before = {r["key"]: r for r in decode(view.canvas.frames, k - 1)["marks"]}
        after = {r["key"]: r for r in decode(view.canvas.frames, k)["marks"]}
        assert [r["key"] for r in encoded[k].get("set", [])] == [key for key in after if key not in before], k
        for change in encoded[k].get("mod", []):  # only the fields that changed (the current mark, a count)
            old, new = before[change["key"]], after[change["key"]]
            assert {f for f in change if f != "key"} == {f for f in {*old, *new} if old.get(f) != new.get(f)}
        assert set(encoded[k].get("del", [])) == set(before) - set(after)
        assert set(encoded[k].get("head", {})) <= {"summary"}  # the column names are sent once


def test_a_filter_gives_the_page_the_frames_filtered() -> None:
    """broker-a is down from 5 s to 65 s: the pulls of its queues fail every second, folded into one row per queue
    ("× 55, every 1 s"); filtered to those failures, the page gets the frames of the filtered table."""
    dash = Dashboard(functools.partial(demo_lab, fault="broker_down"), horizon="2m")
    view = _opened(dash)
    frames = dash.controller.frames
    assert frames is not None
    folded = {k: [r["repeats"] for r in decode(view.canvas.frames, k)["marks"] if r.get("repeats")]
              for k in range(len(frames))}  # fmt: skip
    assert folded[10] == ["× 5, every 1 s"] * 3 + ["× 55, every 1 s"] * 3
    view.kind_filter.value = "pull_deferred"
    for k in (0, 9, 10, len(frames) - 1):
        vm = view.model(frames.snapshots[k])
        assert {r.kind for r in vm.rows} <= {"pull_deferred"}
        assert decode(view.canvas.frames, k) == event_table_json(vm), k
    assert decode(view.canvas.frames, 10)["summary"] == "180 of 214 events"  # 3 queues × (5 + 55) failed pulls


def test_the_static_table_is_what_scene_js_draws_for_it() -> None:
    dash = Dashboard(failing, horizon="2m")
    dash.controller.seek_time("12s")
    view = dash.view("Events")
    table = event_table_json(view.vm)
    page = event_table_html(table)
    assert page.startswith('<div class="rq-table" data-testid="rq-event-log"><div class="rq-table-summary">')
    assert page.count('<tr data-key="row:') == len(view.vm.rows) == len(table["marks"])
    assert page.count('class="current" style="font-weight:bold;outline:2px solid #0072B2"') == 1
    static = dash.static_html()
    assert '"kind":"table"' in static and view.static_html() in static


@pytest.mark.skipif(shutil.which("node") is None, reason="runs scene.js with Node.js (none on this machine)")
def test_scene_js_decodes_the_kernels_rows_without_a_browser(tmp_path: Path) -> None:
    """scene.js's own decoder and table cells (``decoder``, ``tableCells``), run by Node over the frames the kernel
    sent, give at several steps the rows, summary and column names of the kernel's view-model at that step."""
    dash = Dashboard(functools.partial(demo_lab, fault="broker_down"), horizon="2m")
    view = _opened(dash)
    frames = dash.controller.frames
    assert frames is not None
    steps = [0, 1, 9, 10, 12, len(frames) - 1]  # 9 to 12 have folded rows
    (tmp_path / "frames.json").write_text(json.dumps({"frames": view.canvas.frames, "steps": steps}))
    script = tmp_path / "draw.mjs"
    script.write_text(
        f"import {{ decoder, tableCells }} from {json.dumps(SCENE_JS.as_uri())};\n"
        "import { readFileSync } from 'node:fs';\n"
        f"const given = JSON.parse(readFileSync({json.dumps(str(tmp_path / 'frames.json'))}, 'utf8'));\n"
        "const frame = decoder(given.frames);\n"
        "console.log(JSON.stringify(given.steps.map((k) => tableCells(frame(k)))));\n"
    )
    drawn = json.loads(subprocess.run(["node", str(script)], capture_output=True, text=True, check=True).stdout)
    ctl = dash.controller
    for k, page in zip(steps, drawn, strict=True):
        ctl.player.position = k  # the page moved there: the kernel follows (at once here, with no event loop)
        assert frames.index_of(ctl.position, ctl.replay.lab.now) == k
        vm = view.vm
        assert isinstance(vm, EventLogModel)
        assert page["summary"] == f"{vm.matched} of {vm.total} events"
        assert page["headers"] == ["#", "time", "kind", "actor", "msg", "details"]
        expected = [
            {
                "key": f"row:{r.seq}",
                "current": r.current,
                "repeats": r.repeats,
                "cells": [str(r.seq), r.when, r.kind, r.actor, r.msg_id, r.details],
            }
            for r in vm.rows
        ]
        assert page["rows"] == expected, k
    assert any(row["repeats"] for page in drawn for row in page["rows"])  # folded rows were compared too


def test_only_the_details_column_wraps() -> None:
    """The table's rules, in the notebook, in a static page and in an exported page: cells 1–5 (#, time, kind, actor,
    msg) never wrap (an actor read "schedule:broker-/a" over two lines); the details do."""
    from rmqlab.widgets.event_table import TABLE_CSS
    from rmqlab.widgets.export_html import PAGE_CSS

    for css in (TABLE_CSS, PAGE_CSS):
        (rule,) = re.findall(r"table\.rmq-events td:nth-child\(-n\+(\d)\) \{ white-space: nowrap; \}", css)
        assert int(rule) == event_table_json(EventLogModel((), 0, 0, ()))["headers"].index("details")
