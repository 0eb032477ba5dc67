"""``make docs`` builds the static documentation site, and its pages show what they should without a kernel.

One build per session into a temp dir (``docs/build_docs.py``; mkdocs-material + mkdocs-jupyter, no network).
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from html import escape as html_escape
from pathlib import Path
from typing import Any

import nbformat
import pytest

from rmqlab.lab.scenario import scenario_schema

ROOT = Path(__file__).resolve().parents[1]
LABS = sorted((ROOT / "labs").glob("*.ipynb"))
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("mkdocs", reason="the docs extra is not installed (pip install -e '.[docs]')")
    out = tmp_path_factory.mktemp("docs") / "site"
    subprocess.run([sys.executable, str(ROOT / "docs" / "build_docs.py"), str(out)], check=True, capture_output=True)
    return out


def page(site: Path, path: str) -> str:
    return (site / path / "index.html").read_text() if path else (site / "index.html").read_text()


def _static_views(lab: Path) -> int:
    """Outputs of the lab that carry a widget view with its static HTML beside it (the dashboards)."""
    nb = nbformat.read(lab, as_version=4)
    outputs = [o for c in nb.cells for o in c.get("outputs", [])]
    return sum(1 for o in outputs if {WIDGET_VIEW, "text/html"} <= set(o.get("data", {})))


def test_home_is_the_readme_with_its_picture(site: Path) -> None:
    home = page(site, "")
    assert "watch RocketMQ keep your messages" in home and 'src="dashboard.png"' in home
    assert (site / "dashboard.png").read_bytes() == (ROOT / "docs" / "dashboard.png").read_bytes()


@pytest.mark.parametrize("lab", LABS, ids=[p.stem for p in LABS])
def test_every_lab_is_a_page_with_its_pictures(site: Path, lab: Path) -> None:
    """Each lab renders with its outputs; a dashboard shows as its static SVG scenes, not a widget placeholder."""
    html = page(site, f"labs/{lab.stem}")
    cells = nbformat.read(lab, as_version=4).cells
    title = next(line[2:] for c in cells if c.cell_type == "markdown" for line in c.source.splitlines()
                 if line.startswith("# "))  # fmt: skip
    assert html_escape(title.split("`")[0].strip(), quote=False) in html  # the plain words before any markup
    views = _static_views(lab)
    if views:
        assert html.count('data-testid="rq-flow"') >= views, f"{lab.name}: {views} dashboards, fewer flow pictures"
        assert "<svg" in html
    assert WIDGET_VIEW not in html and "Loading widget" not in html


def test_scenario_reference_covers_the_schema(site: Path) -> None:
    """Generated from the schema: every top-level field and every definition has its row or section."""
    html = page(site, "scenario")
    schema = scenario_schema()
    missing = [f for f in schema["properties"] if f"<code>{f}</code>" not in html]
    missing += [d for d in schema["$defs"] if f'id="{d.lower()}"' not in html]
    assert missing == []


def test_cli_reference_is_the_parser_help(site: Path) -> None:
    html = page(site, "cli")
    for flag in ("--version", "--json", "--msg", "--kind", "validate", "schema"):
        assert flag in html, flag


def test_nav_lists_every_lab(site: Path) -> None:
    index = json.loads((site / "search" / "search_index.json").read_text())
    locations = {d["location"].split("#")[0] for d in index["docs"]}
    assert {f"labs/{lab.stem}/" for lab in LABS} <= locations


def test_the_state_page_is_in_the_site_and_linked_from_home(site: Path) -> None:
    """docs/state.md (reading and setting engine state) is a page; the home page's README link points at it."""
    html = page(site, "state")
    assert "lab.snapshot()" in html and "committed_offset" in html and "update_consumer_offset" in html
    assert 'href="state/"' in page(site, "")


def test_the_readmes_chinese_section_links_the_chinese_pages_of_the_site(site: Path) -> None:
    """The README's 简体中文 section names every Chinese docs page; on the home page each link points at its page."""
    home = page(site, "")
    for name in ("classroom", "slides", "life-of-a-message", "state"):
        assert f"](docs/zh/{name}.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
        assert f'href="zh/{name}/"' in home, name


def test_the_state_page_in_chinese_is_in_the_site_beside_the_english_one(site: Path) -> None:
    """docs/zh/state.md is a page of the site's 简体中文 part, with the same code and names as docs/state.md, and
    each page links to the other."""
    html = page(site, "zh/state")
    assert "读取和设置状态" in html and "lab.snapshot()" in html and "committed_offset" in html
    assert 'href="../../state/"' in html and 'href="../zh/state/"' in page(site, "state")
    english, chinese = ((ROOT / "docs" / name).read_text(encoding="utf-8") for name in ("state.md", "zh/state.md"))
    def code(text: str) -> list[str]:  # every inline code span, fenced blocks aside, spaces normalised
        return sorted(" ".join(span.split()) for span in re.findall(r"`([^`]+)`", re.sub(r"(?s)```.*?```", "", text)))

    assert code(chinese) == code(english)  # the same names, calls and values


@pytest.mark.parametrize("name", ["classroom", "slides", "life-of-a-message"])
def test_each_chinese_page_is_in_the_site_beside_its_english_twin(site: Path, name: str) -> None:
    """docs/zh/NAME.md is a page of the 简体中文 part, listed in the navigation, and each twin links to the other
    (issue 35; the same code and headings: tests/test_docs_zh.py)."""
    html, english = page(site, f"zh/{name}"), page(site, name)
    assert f'href="../../{name}/"' in html and f'href="../zh/{name}/"' in english
    assert f'href="../zh/{name}/"' in page(site, "state")  # the 简体中文 part of the navigation on every page
    if name == "classroom":  # the z2jh commands are a code block inside a list item, in both languages
        for text in (html, english):
            before = text[: text.index("kubectl")]
            assert "<p><code>bash" not in text and before.endswith('<div class="highlight"><pre><span></span><code>')
            assert before.rfind("<ul>") > before.rfind("</ul>")  # still in the list, and the list goes on
    if name == "life-of-a-message":  # the generated map, English only, is a page the Chinese one links to
        assert 'href="../../java-map/"' in html and "SendMessageProcessor.java" in page(site, "java-map")


def _build_docs() -> Any:
    spec = importlib.util.spec_from_file_location("build_docs", ROOT / "docs" / "build_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_internal_link_is_broken(site: Path) -> None:
    """The labs' Index / Back / Next links lead to the site's pages (the build itself fails on a broken one)."""
    assert _build_docs().broken_links(site) == []
    lab = page(site, "labs/04_dead_letter_queue")
    assert 'href="../">Index' in lab and 'href="../04b_stranded_retry_queues/">Next →' in lab


def test_a_broken_link_is_named_with_its_page(tmp_path: Path) -> None:
    (tmp_path / "labs" / "a").mkdir(parents=True)
    (tmp_path / "index.html").write_text('<a href="labs/a/">a</a> <a href="https://x.org/">x</a> <a href="#top">t</a>')
    (tmp_path / "labs" / "a" / "index.html").write_text('<a href="../../">home</a> <a href="../b.ipynb">b</a>')
    assert _build_docs().broken_links(tmp_path) == ["labs/a/index.html → ../b.ipynb"]
def test_charts_load_the_sites_own_plotly(site: Path) -> None:
    """The whole-run charts draw on a page with no network: plotly.js comes from the site, not plotly's CDN."""
    for lab in ("03_delay_levels_schedule", "05_offsets_process_queue", "09_capstone"):
        html = page(site, f"labs/{lab}")
        assert 'src="../../assets/plotly.min.js"' in html and "cdn.plot.ly" not in html, lab
        assert 'id="rmqlab-chart-' in html, lab
    assert (site / "assets" / "plotly.min.js").stat().st_size > 1_000_000
