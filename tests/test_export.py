"""widgets/export.py: every view and the dashboard saved as standalone HTML, SVG and PNG, and the trace as JSON
Lines shared with ``rmqlab run --jsonl``.

The exported files are parsed back and compared with what the views computed (their Scene's marks, the flow
view's tokens, the event log's rows); JSON Lines must read back into the same trace, byte for byte. Files go to
``tmp_path`` only. The PNG tests need Debian's chromium and Playwright and are skipped without them.
"""

from __future__ import annotations

import io
import json
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest
from rmqlab.widgets import Dashboard, EventLog, FlowView, demo_lab
from rmqlab.widgets.export import (
    DARK,
    LIGHT,
    ExportError,
    event_log_scene,
    export_scenes,
    find_browser,
    load_jsonl,
    save_html,
    save_jsonl,
    save_png,
    save_svg,
    standalone_html,
    standalone_svg,
)
from rmqlab.widgets.scene import Scene

from rmqlab import EventKind, Lab
from rmqlab.lab.cli import main as cli_main
from rmqlab.lab.scenario import load_scenario

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SVG = "{http://www.w3.org/2000/svg}"
TITLES = ("Message flow", "ProcessQueues", "Space-time", "Retry timeline", "Topology", "Events")
"""The demo's views (no orderly consumer: no Locks tab)."""


@pytest.fixture(scope="module")
def dash() -> Dashboard:
    """The demo scenario (M0001 fails every time: 17 deliveries then the DLQ), at the end of its run."""
    d = Dashboard(demo_lab, knobs={"listener": "fail_all", "messages": 2})
    d.controller.seek(d.controller.end or 0)
    assert d.controller.at_end
    return d


class _Attrs(HTMLParser):
    """Every start tag with its attributes, and the text, of an HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse_html(path: Path) -> _Attrs:
    parser = _Attrs()
    parser.feed(path.read_text(encoding="utf-8"))
    parser.close()
    return parser


def _keys_in(elements: list[tuple[str, dict[str, str | None]]], testid: str) -> list[str]:
    """data-key of the marks of the scene ``testid`` (tags after its root, up to the next scene root)."""
    keys: list[str] = []
    inside = False
    for _, attrs in elements:
        if attrs.get("data-testid", "").startswith("rq-") and attrs.get("data-testid") != "rq-static-dashboard":
            inside = attrs.get("data-testid") == testid
        if inside and attrs.get("data-key") is not None:
            keys.append(str(attrs["data-key"]))
    return keys


def _scene_svg(root: ET.Element, testid: str) -> ET.Element:
    found = [e for e in root.iter(f"{SVG}svg") if e.get("data-testid") == testid]
    assert len(found) == 1, f"{testid}: {len(found)} nested svg"
    return found[0]


@pytest.mark.parametrize("title", TITLES)
def test_svg_of_each_view_parses_and_draws_exactly_its_scene(dash: Dashboard, title: str, tmp_path: Path) -> None:
    view = dash.view(title)
    ((_, scene),) = export_scenes(view)
    root = ET.parse(save_svg(view, tmp_path / "view.svg")).getroot()
    assert root.tag == f"{SVG}svg" and float(root.get("width", 0)) == scene.width
    inner = _scene_svg(root, scene.testid)
    assert [e.get("data-key") for e in inner.iter() if e.get("data-key")] == list(scene.keys())
    tokens = [m for m in scene.marks if m.kind == "token"]
    drawn = [g for g in inner.iter(f"{SVG}g") if "rq-token" in g.get("class", "")]
    assert [g.get("data-key") for g in drawn] == [m.key for m in tokens]
    assert [g.findtext(f"{SVG}text", "") for g in drawn] == [m.text for m in tokens]


def test_flow_svg_tokens_are_the_view_models_tokens(dash: Dashboard, tmp_path: Path) -> None:
    view = dash.view("Message flow")
    assert isinstance(view, FlowView)
    root = ET.parse(save_svg(view, tmp_path / "flow.svg")).getroot()
    tokens = {g.get("data-key"): g for g in root.iter(f"{SVG}g") if g.get("data-role") == "token"}
    assert sorted(tokens) == sorted(t.key for t in view.vm.tokens) and len(tokens) == 2
    for t in view.vm.tokens:
        g = tokens[t.key]
        assert g.findtext(f"{SVG}text") == t.msg_id.removeprefix("M").lstrip("0")  # which message: M0001 → 1
        assert g.findtext(f"{SVG}g/{SVG}text") == str(t.reconsume_times)  # its badge
        assert g.find(f"{SVG}circle").get("style") == f"fill:{t.colour}"  # type: ignore[union-attr]
    assert {t.msg_id: (t.state, t.reconsume_times) for t in view.vm.tokens} == {
        "M0001": ("dead", 17), "M0002": ("dead", 17)}  # fmt: skip


@pytest.mark.parametrize("title", TITLES)
def test_html_of_each_view_is_standalone_and_draws_its_scene(dash: Dashboard, title: str, tmp_path: Path) -> None:
    view = dash.view(title)
    page = _parse_html(save_html(view, tmp_path / "view.html"))
    tags = [t for t, _ in page.tags]
    assert tags[:3] == ["html", "head", "meta"] and "script" not in tags and "link" not in tags and "img" not in tags
    assert not [a for _, a in page.tags if any(k in a for k in ("src", "href"))]
    text = (tmp_path / "view.html").read_text(encoding="utf-8")
    assert "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in text
    if isinstance(view, EventLog):
        rows = [a for _, a in page.tags if _ == "tr"]
        assert len(rows) == len(view.vm.rows) + 1  # the head, then one per row
        assert f"{view.vm.matched} of {view.vm.total} events" in "".join(page.text)
    else:
        ((_, scene),) = export_scenes(view)
        assert _keys_in(page.tags, scene.testid) == list(scene.keys())


def test_dashboard_html_is_its_static_picture_in_a_themed_page(dash: Dashboard, tmp_path: Path) -> None:
    page_text = save_html(dash, tmp_path / "dash.html").read_text(encoding="utf-8")
    assert dash.static_html() in page_text
    page = _parse_html(tmp_path / "dash.html")
    for title, scene in export_scenes(dash)[:-1]:  # the event log is a table in HTML
        assert _keys_in(page.tags, scene.testid) == list(scene.keys()), title
    assert "t = 4 h 45 m 41 s" in "".join(page.text)
    # the theme: every variable the views read, light at the root, dark under prefers-color-scheme
    light, dark = page_text.split("@media (prefers-color-scheme: dark)")
    for name, value in LIGHT.items():
        assert f"{name}: {value};" in light
    for name, value in DARK.items():
        assert f"{name}: {value};" in dark


def test_dashboard_svg_stacks_caption_and_every_view_in_dashboard_order(dash: Dashboard, tmp_path: Path) -> None:
    root = ET.parse(save_svg(dash, tmp_path / "dash.svg")).getroot()
    titles = [e.text for e in root if e.get("data-role") == "view-title"]
    assert titles == [dash.main_view.title if dash.main_view else "", *(v.title for v in dash.tab_views)]
    scenes = export_scenes(dash)
    assert [e.get("data-testid") for e in root if e.tag == f"{SVG}svg"] == [s.testid for _, s in scenes]
    caption = [e.text for e in root if e.get("data-role") == "dashboard-caption"]
    assert caption[0] == dash.controller.clock_text and caption[1:] == list(dash.controller.caption_lines)
    ys = [float(e.get("y", 0)) for e in root if e.tag == f"{SVG}svg"]
    heights = [s.height for _, s in scenes]
    assert all(ys[i] + heights[i] < ys[i + 1] for i in range(len(ys) - 1))  # stacked, never overlapping


def test_event_log_svg_has_one_text_per_cell_and_the_current_row_outlined(dash: Dashboard, tmp_path: Path) -> None:
    view = dash.view("Events")
    vm = view.vm
    scene = event_log_scene(vm)
    root = ET.parse(save_svg(view, tmp_path / "events.svg")).getroot()
    texts = {e.get("data-key"): e.text for e in root.iter(f"{SVG}text") if e.get("data-role") == "event-row"}
    assert len(texts) == 6 * len(vm.rows) == 6 * 15
    for r in vm.rows:
        assert (texts[f"row:{r.seq}:#"], texts[f"row:{r.seq}:kind"], texts[f"row:{r.seq}:actor"]) == (
            str(r.seq), r.kind, r.actor)  # fmt: skip
    current = [r.seq for r in vm.rows if r.current]
    assert current == [vm.total] and scene.keys("event-current") == (f"row:{vm.total}:outline",)


def test_themes_light_dark_auto_and_bad_ones(dash: Dashboard) -> None:
    flow = dash.view("Message flow")
    light, dark, auto = (standalone_svg(flow, theme=t) for t in ("light", "dark", "auto"))
    assert "#ffffff" in light.split("<![CDATA[")[1][:200] and "prefers-color-scheme" not in light
    assert "--jp-layout-color0: #111111;" in dark and "prefers-color-scheme" not in dark
    assert "@media (prefers-color-scheme: dark)" in auto
    with pytest.raises(ValueError, match=r"theme='sepia': must be one of auto, light, dark"):
        standalone_html(flow, theme="sepia")  # type: ignore[arg-type]


def test_exports_are_deterministic(dash: Dashboard) -> None:
    again = Dashboard(demo_lab, knobs={"listener": "fail_all", "messages": 2})
    again.controller.seek(again.controller.end or 0)
    assert standalone_html(again) == standalone_html(dash) and standalone_svg(again) == standalone_svg(dash)


def test_bad_views_are_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match=r"view=str: must be a Dashboard, one of its views"):
        save_svg("flow", tmp_path / "x.svg")
    with pytest.raises(ExportError, match=r"FlowView \('Message flow'\) has drawn nothing yet"):
        save_html(FlowView(), tmp_path / "x.html")
    with pytest.raises(ExportError, match=r"EventLog \('Events'\) has drawn nothing yet"):
        save_html(EventLog(), tmp_path / "x.html")
    with pytest.raises(ValueError, match=r"scale=0: must be a number from 0.5 to 4"):
        save_png(Scene(10, 10, ()), tmp_path / "x.png", scale=0)
    assert not list(tmp_path.iterdir())


# ------------------------------------------------------------------ PNG


def _png_facts(path: Path) -> tuple[int, int, tuple[int, ...]]:
    """Width, height and the top-left pixel (row 0's first pixel is its raw bytes under every PNG filter)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height, depth, colour = struct.unpack(">IIBB", data[16:26])
    assert depth == 8 and colour in (2, 6)
    idat, pos = b"", 8
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        if data[pos + 4 : pos + 8] == b"IDAT":
            idat += data[pos + 8 : pos + 8 + length]
        pos += 12 + length
    raw = zlib.decompress(idat)
    channels = 3 if colour == 2 else 4
    return width, height, tuple(raw[1 : 1 + channels][:3])


def _has_browser() -> bool:
    try:
        return bool(find_browser())
    except ExportError:
        return False


needs_browser = pytest.mark.skipif(not _has_browser(), reason="PNG export needs chromium (apt-get install chromium)")


@needs_browser
def test_png_of_a_view_is_its_svg_at_scale_in_light_and_dark(dash: Dashboard, tmp_path: Path) -> None:
    pytest.importorskip("playwright", reason="PNG export needs Playwright for Python")
    flow = dash.view("Message flow")
    ((_, scene),) = export_scenes(flow)
    w, h, pixel = _png_facts(save_png(flow, tmp_path / "light.png", scale=2))
    assert (w, h) == (scene.width * 2, scene.height * 2) and pixel == (255, 255, 255)
    w, h, pixel = _png_facts(save_png(flow, tmp_path / "dark.png", theme="dark", scale=1))
    assert (w, h) == (scene.width, scene.height) and pixel == (0x11, 0x11, 0x11)


@needs_browser
def test_png_of_the_dashboard_is_the_whole_page(dash: Dashboard, tmp_path: Path) -> None:
    pytest.importorskip("playwright", reason="PNG export needs Playwright for Python")
    w, h, pixel = _png_facts(save_png(dash, tmp_path / "dash.png", theme="dark", scale=1))
    scenes = export_scenes(dash)
    assert w >= max(s.width for _, s in scenes) and h > sum(s.height for _, s in scenes)
    assert pixel == (0x11, 0x11, 0x11)


@needs_browser
def test_png_from_inside_a_running_asyncio_loop_as_in_a_kernel(dash: Dashboard, tmp_path: Path) -> None:
    """A Jupyter kernel's thread runs an asyncio loop, where Playwright's sync API refuses to start."""
    pytest.importorskip("playwright", reason="PNG export needs Playwright for Python")
    import asyncio

    async def in_kernel() -> Path:
        return save_png(dash.view("Message flow"), tmp_path / "kernel.png", scale=1)

    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as kernel_thread:  # a thread of its own, whatever loop this one runs
        w, _, pixel = _png_facts(kernel_thread.submit(asyncio.run, in_kernel()).result())
    ((_, scene),) = export_scenes(dash.view("Message flow"))
    assert w == scene.width and pixel == (255, 255, 255)


def test_png_without_a_browser_says_what_is_missing(dash: Dashboard, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.delenv("RMQLAB_BROWSER", raising=False)
    monkeypatch.delenv("BROWSER_PATH", raising=False)
    monkeypatch.setattr("rmqlab.widgets.export_png.BROWSER_CANDIDATES", (str(tmp_path / "no-chromium"),))
    with pytest.raises(ExportError, match=r"save_png needs Chromium .* apt-get install chromium"):
        save_png(dash.view("Message flow"), tmp_path / "x.png")
    with pytest.raises(ExportError, match=r"browser='/nowhere/chrome': no executable there"):
        find_browser("/nowhere/chrome")
    monkeypatch.setenv("RMQLAB_BROWSER", sys.executable)  # found (any executable), but Playwright is missing
    monkeypatch.setitem(sys.modules, "playwright.sync_api", None)
    with pytest.raises(ExportError, match=r"needs Playwright for Python .* pip install playwright"):
        save_png(dash.view("Message flow"), tmp_path / "x.png")
    assert not list(tmp_path.iterdir())


# ------------------------------------------------------------------ the trace as JSON Lines


def test_jsonl_round_trips_to_the_trace(dash: Dashboard, tmp_path: Path) -> None:
    assert dash.controller.replay is not None
    trace = dash.controller.replay.lab.trace
    path = save_jsonl(dash, tmp_path / "run.jsonl")
    assert path.read_text(encoding="utf-8") == trace.to_jsonl()
    back = load_jsonl(path)
    assert back.to_jsonl() == path.read_text(encoding="utf-8")
    assert len(back) == len(trace) == path.read_text(encoding="utf-8").count("\n") and back.counts == trace.counts
    assert [json.loads(json.dumps(e.to_dict())) for e in trace] == [e.to_dict() for e in back]
    assert [e.kind for e in back.for_message("M0001")] == [e.kind for e in trace.for_message("M0001")]


def test_cli_and_labs_write_the_same_jsonl(tmp_path: Path) -> None:
    example = EXAMPLES / "default_retry_schedule.json"
    out, err = io.StringIO(), io.StringIO()
    assert cli_main(["run", str(example), "--jsonl", str(tmp_path / "cli.jsonl")], stdout=out, stderr=err) == 0
    assert (
        out.getvalue().endswith("17 deliveries · 0 consumed · %DLQ%cg: 1 · ended at 4 h 50 m\n") and not err.getvalue()
    )
    lab = load_scenario(example).run()
    from_lab = save_jsonl(lab, tmp_path / "lab.jsonl")
    assert (tmp_path / "cli.jsonl").read_bytes() == from_lab.read_bytes()
    piped = io.StringIO()
    assert cli_main(["run", str(example), "--jsonl", "-"], stdout=piped, stderr=err) == 0
    assert piped.getvalue() == from_lab.read_text(encoding="utf-8")
    assert len(load_jsonl(from_lab).of_kind(*{e.kind for e in lab.trace})) == len(lab.trace)


def test_cli_jsonl_bad_uses_exit_2_with_one_line(tmp_path: Path) -> None:
    example = str(EXAMPLES / "default_retry_schedule.json")
    for extra in (["--json"], ["--msg", "M0001"], ["--kind", "delivered"]):
        out, err = io.StringIO(), io.StringIO()
        assert cli_main(["run", example, "--jsonl", "-", *extra], stdout=out, stderr=err) == 2
        assert (
            err.getvalue() == "rmqlab: error: --jsonl - prints the whole trace; it takes no --json, --msg or --kind\n"
        )
    out, err = io.StringIO(), io.StringIO()
    missing = tmp_path / "no-such-dir" / "t.jsonl"
    assert cli_main(["run", example, "--jsonl", str(missing)], stdout=out, stderr=err) == 2
    assert err.getvalue() == f"rmqlab: error: --jsonl {missing}: cannot write: No such file or directory\n"
    assert not out.getvalue()


def test_load_jsonl_names_the_bad_line(tmp_path: Path) -> None:
    good = '{"seq":1,"time_ms":0,"kind":"stored","actor":"broker-a","msg_id":"M0001"}\n'
    cases = {
        "not json\n": r":1: not a JSON line",
        good + '{"seq":2}\n': r":2: not a trace event \(needs seq, time_ms, kind, actor, msg_id\)",
        good.replace('"stored"', '"teleported"'): r":1: kind='teleported' is not an EventKind",
        good.replace('"seq":1', '"seq":3'): r":1: seq=3, expected 1",
    }
    for i, (text, error) in enumerate(cases.items()):
        path = tmp_path / f"bad{i}.jsonl"
        path.write_text(text, encoding="utf-8")
        with pytest.raises(ExportError, match=error):
            load_jsonl(path)


def test_a_trace_that_keeps_nothing_is_not_saved(tmp_path: Path) -> None:
    lab = Lab(seed=1, trace=False)
    with pytest.raises(ExportError, match=r"keeps no events \(Lab\(trace=False\) only counts them\)"):
        save_jsonl(lab, tmp_path / "t.jsonl")
    with pytest.raises(TypeError, match=r"source=str: must be a Lab, its trace, or a Dashboard"):
        save_jsonl("lab", tmp_path / "t.jsonl")
    assert not list(tmp_path.iterdir())


def test_the_readmes_export_example_writes_what_it_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's "Saving pictures and traces" block, run as it stands in a scratch folder."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"^```python\n(.*?)^```\n", readme, re.S | re.M) if "save_png" in b)
    if not _has_browser():
        block = "\n".join(line for line in block.splitlines() if not line.startswith("save_png("))
    monkeypatch.chdir(tmp_path)
    exec(compile(block, "README.md[exports]", "exec"), {"__name__": "__readme__"})
    written = {p.name for p in tmp_path.iterdir()}
    assert written == {"dashboard.html", "retries.svg", "run.jsonl"} | ({"flow.png"} if _has_browser() else set())
    assert ET.parse(tmp_path / "retries.svg").getroot().get("aria-label") == "Retry timeline: 3 messages, now 6 h"
    assert len(load_jsonl(tmp_path / "run.jsonl").of_kind(EventKind.DEAD_LETTERED)) == 1


def test_a_dashboards_jsonl_is_its_run_up_to_where_it_stands(tmp_path: Path) -> None:
    d = Dashboard(demo_lab)
    position = d.controller.seek(40)  # the first reachable position at or after 40
    assert d.controller.replay is not None and 40 <= position < 60
    lines = save_jsonl(d, tmp_path / "t.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == position and json.loads(lines[-1])["seq"] == d.controller.snapshot.events[-1].seq
    assert lines == d.controller.replay.lab.trace.to_jsonl().splitlines()[:position]
