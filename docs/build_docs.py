"""Build the static documentation site (``make docs`` → ``build/docs``) with mkdocs-material and mkdocs-jupyter.

The site has the README as its home page, every lab rendered with its outputs, the scenario-file reference
generated from ``rmqlab/lab/scenario/scenario.schema.json`` and the command-line reference generated from the
``rmqlab`` argument parser, so the references cannot drift from the code.

The labs are shown without a kernel: a dashboard's output carries a widget view and, beside it, the static
HTML the view draws (``Dashboard._repr_mimebundle_`` offers ``text/html``: the same SVG scenes). A widget
view cannot render on a page without a kernel, so the staged copies keep only the static HTML of such
outputs. The whole-run charts (``widgets.charts``) carry HTML that loads plotly.js from plotly's CDN; the site
serves its own copy instead (``assets/plotly.min.js``, from the plotly package). Everything is staged in
``build/docs-src`` (mkdocs wants its pages inside one folder); the build needs no network (no web fonts:
``theme.font: false``), and neither do its pages.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import nbformat
import plotly  # type: ignore[import-untyped]  # the whole-run charts' library (the lab extra): its plotly.js

ROOT = Path(__file__).resolve().parents[1]
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
PAGES = {"classroom.md": "A whole class", "state.md": "Reading and setting state", "slides.md": "Slides and charts",
         "life-of-a-message.md": "The life of a message", "java-map.md": "rmqlab → RocketMQ 4.9.7"}
"""The pages of docs/, with their titles in the navigation: hand-written, or generated (:data:`GENERATED`)."""
GENERATED = {"java-map.md"}
"""Pages written by a script from the code (``docs/java_map.py``: from the engine's docstrings), kept in English."""
ZH_PAGES = {"classroom.md": "整个班级", "state.md": "读取和设置状态", "slides.md": "幻灯片和图表",
            "life-of-a-message.md": "一条消息的一生"}
"""The hand-written pages translated into Chinese (docs/zh/), with their titles in the navigation's 简体中文 part:
every page of :data:`PAGES` not :data:`GENERATED` (``tests/test_docs_zh.py``)."""


REGION = re.compile(r"\n?### BEGIN (SOLUTION|HIDDEN TESTS)\n.*?### END \1\n?", re.S)
"""A solution or hidden-test region: a public page must not show it (issue 31)."""


NEEDS_ANSWER = "needs-answer"
"""The tag of a cell whose output is built from the student's judged answer (lab 09's fix picture runs with the
setting Exercise 2 asks for): the page, whose answer cells are blank, shows it without its outputs."""


def _as_released(cell: Any) -> None:
    """The page shows a lab as a student gets it, not solved: no solution region, no hidden test, no verdict
    (a check's "Right — …" states the answer and its explanation; the score lists the verdicts), and no output
    built from an answer (:data:`NEEDS_ANSWER`)."""
    cell.source = REGION.sub("\n", cell.source).rstrip()
    grading = cell.get("metadata", {}).get("nbgrader", {})
    if grading.get("grade") or (cell.cell_type == "code" and cell.source.startswith("score(")):
        cell.outputs = []
    if NEEDS_ANSWER in cell.get("metadata", {}).get("tags", []):  # drawn from a judged answer: blank above it here
        cell.outputs = []


NOTEBOOK_LINK = re.compile(r"\]\((?!https?:|#|mailto:)([^)#\s]+?)(\.ipynb|\.md)(#[^)\s]*)?\)")
"""A markdown link to a notebook or a markdown file beside it: ``[Next →](04_dead_letter_queue.ipynb)``."""


def _site_link(match: re.Match[str]) -> str:
    """The link as the site serves it: a lab is the page ``../04_dead_letter_queue/``, ``README.md`` the folder."""
    stem, anchor = match.group(1), match.group(3) or ""
    if stem.endswith("README"):
        stem = stem[: -len("README")]
        return f"](../{stem}{anchor})"
    return f"](../{stem}/{anchor})"


PLOTLY_JSON = "application/vnd.plotly.v1+json"
PLOTLY_CDN = re.compile(r'<script charset="utf-8" src="https://cdn\.plot\.ly/plotly-[0-9.]+\.min\.js"[^>]*>')
PLOTLY_JS = "assets/plotly.min.js"
"""Where the site serves plotly.js (copied from the plotly package) for the whole-run charts."""


def static_notebook(src: Path, dest: Path, *, up: str = "../../") -> int:
    """Copy a lab as released (:func:`_as_released`) keeping its other outputs, with widget views replaced by their
    static HTML (which plays the run's frames), links to other labs pointed at their pages on the site, and the
    charts' plotly.js (``widgets.charts`` loads it from plotly's CDN) served by the site itself; returns outputs
    changed. ``up`` leads from the lab's page to the site's root (a Chinese lab's page is one level deeper)."""
    nb = nbformat.read(src, as_version=4)
    changed = 0
    for cell in nb.cells:
        _as_released(cell)
        if cell.cell_type == "markdown":
            cell.source = NOTEBOOK_LINK.sub(_site_link, cell.source)
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if WIDGET_VIEW in data and "text/html" in data:
                del data[WIDGET_VIEW]
                changed += 1
            if PLOTLY_JSON in data and "text/html" in data:  # a lab page is labs/NAME/index.html: two levels down
                local = f'<script charset="utf-8" src="{up}{PLOTLY_JS}">'
                data["text/html"] = PLOTLY_CDN.sub(local, data["text/html"])
                changed += 1
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, dest)
    return changed


def _type(node: dict[str, Any]) -> str:
    if "enum" in node:
        return " \\| ".join(f"`{json.dumps(v)}`" for v in node["enum"])
    if "const" in node:
        return f"`{json.dumps(node['const'])}`"
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{name.lower()})"
    if "oneOf" in node or "anyOf" in node:
        return " or ".join(_type(n) for n in node.get("oneOf", node.get("anyOf", [])))
    kind = node.get("type", "")
    if kind == "array":
        return f"list of {_type(node.get('items', {}))}"
    if isinstance(kind, list):
        return " or ".join(kind)
    return str(kind) or "any"


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _properties_table(node: dict[str, Any]) -> list[str]:
    props = node.get("properties", {})
    if not props:
        return []
    required = set(node.get("required", []))
    lines = ["| field | type | required | default | description |", "|---|---|---|---|---|"]
    for name, prop in props.items():
        default = f"`{json.dumps(prop['default'])}`" if "default" in prop else ""
        lines.append(f"| `{name}` | {_type(prop)} | {'yes' if name in required else ''} | {default} | "
                     f"{_cell(prop.get('description', ''))} |")  # fmt: skip
    return lines


def scenario_reference() -> str:
    """The scenario-file reference: the top-level fields, then each definition, from the schema itself."""
    from rmqlab.lab.scenario import scenario_schema

    schema = scenario_schema()
    lines = [
        "# Scenario files",
        "",
        "A scenario file (JSON or YAML) declares a whole run; `rmqlab run FILE` runs it and "
        "`rmqlab.load_scenario(FILE)` loads it from Python. This page is generated from the JSON Schema "
        "(`rmqlab schema` prints it), so it says exactly what is validated.",
        "",
        _cell(schema.get("description", "")),
        "",
        "## Top level",
        "",
        *_properties_table(schema),
    ]
    for name, node in schema.get("$defs", schema.get("definitions", {})).items():
        lines += ["", f"## {name}", "", _cell(node.get("description", "")), ""]
        table = _properties_table(node)
        lines += table or [f"Type: {_type(node)}"]
        for i, option in enumerate(node.get("oneOf", [])):
            if option.get("properties"):
                title = option.get("title") or option.get("description") or f"variant {i + 1}"
                lines += ["", f"### {_cell(title)}", "", *_properties_table(option)]
    lines += ["", *fault_reference()]
    return "\n".join(lines) + "\n"


def fault_reference() -> list[str]:
    """Each fault kind of ``rmqlab/lab/faults/kinds.py`` (the registry the schema's ``fault`` definition is generated
    from): what it does, the call it makes, its fields with their types and ranges."""
    from rmqlab.lab.faults import FAULTS

    intro = ("A `faults` entry is `at`, `kind` and the kind's fields below. Generated from "
             "`rmqlab/lab/faults/kinds.py`, the one fault registry; at one millisecond every fault acts before the "
             "ordinary work of that "
             "millisecond, in file order (the same rule as `lab.at(t, lab.broker_down, ...)`).")  # fmt: skip
    lines = ["## Fault kinds", "", intro]
    for fault in FAULTS:
        button = f" The dashboard has a button for it (listed as “{fault.dashboard}”)." if fault.dashboard else ""
        lines += ["", f"### {fault.kind}", "", f"{_cell(fault.doc)} Calls `{fault.target}`.{button}", ""]
        lines += ["| field | type | required | description |", "|---|---|---|---|"]
        for param in fault.params:
            lines.append(f"| `{param.name}` | {_type(dict(param.schema))} | {'yes' if param.required else ''} | "
                         f"{_cell(param.description)} |")  # fmt: skip
    return lines


def cli_reference() -> str:
    """``rmqlab --help`` and each command's help, as the parser prints them."""
    from rmqlab.lab.cli import _parser

    parser = _parser()
    sections = [("rmqlab", parser.format_help())]
    for action in parser._subparsers._group_actions if parser._subparsers else []:  # the commands
        for name, sub in getattr(action, "choices", {}).items():
            sections.append((f"rmqlab {name}", sub.format_help()))
    lines = ["# Command line", "", "Generated from the `rmqlab` argument parser.", ""]
    for title, text in sections:
        lines += [f"## `{title}`", "", "```text", text.rstrip(), "```", ""]
    return "\n".join(lines)


def readme_page(text: str) -> str:
    """The README as the home page: its links into the repository pointed at the pages of this site."""
    text = text.replace("](docs/dashboard.png)", "](dashboard.png)")
    for name in PAGES:  # docs/classroom.md is a page of the site
        text = text.replace(f"](docs/{name})", f"]({name})")
    for name in ZH_PAGES:  # and docs/zh/classroom.md its Chinese twin
        text = text.replace(f"](docs/zh/{name})", f"](zh/{name})")
    text = re.sub(r"`rmqlab/lab/scenario/scenario.schema.json`", "[the scenario reference](scenario.md)", text)
    return text


def stage(src: Path) -> dict[str, Any]:
    shutil.rmtree(src, ignore_errors=True)
    (src / "labs").mkdir(parents=True)
    (src / "index.md").write_text(readme_page((ROOT / "README.md").read_text()))
    shutil.copy2(ROOT / "docs" / "dashboard.png", src / "dashboard.png")
    (src / "scenario.md").write_text(scenario_reference())
    (src / "cli.md").write_text(cli_reference())
    for name in PAGES:  # hand-written pages, as they are
        shutil.copy2(ROOT / "docs" / name, src / name)
    labs = sorted((ROOT / "labs").glob("*.ipynb"))
    static = {p.name: static_notebook(p, src / "labs" / p.name) for p in labs}
    (src / PLOTLY_JS).parent.mkdir()
    shutil.copy2(Path(plotly.__file__).parent / "package_data" / "plotly.min.js", src / PLOTLY_JS)
    if (ROOT / "labs" / "README.md").exists():
        shutil.copy2(ROOT / "labs" / "README.md", src / "labs" / "README.md")  # mkdocs: the folder's index
    zh_labs = sorted((ROOT / "labs" / "zh").glob("*.ipynb"))  # the Chinese labs (issue 35), pages under labs/zh/
    if zh_labs:
        (src / "labs" / "zh").mkdir()
        static |= {f"zh/{p.name}": static_notebook(p, src / "labs" / "zh" / p.name, up="../../../") for p in zh_labs}
        shutil.copy2(ROOT / "labs" / "zh" / "README.md", src / "labs" / "zh" / "README.md")
    (src / "zh").mkdir()
    for name in ZH_PAGES:  # the hand-written pages that have a Chinese translation (docs/zh/)
        shutil.copy2(ROOT / "docs" / "zh" / name, src / "zh" / name)
    nav: list[Any] = [
        {"Home": "index.md"},
        {"Labs": ([{"About the labs": "labs/README.md"}] if (src / "labs" / "README.md").exists() else [])
         + [{p.stem.replace("_", " "): f"labs/{p.name}"} for p in labs]},
        *([{"简体中文": [{"中文实验目录": "labs/zh/README.md"}]
                    + [{p.stem.replace("_", " "): f"labs/zh/{p.name}"} for p in zh_labs]
                    + [{title: f"zh/{name}"} for name, title in ZH_PAGES.items()]}] if zh_labs else []),
        {"Scenario files": "scenario.md"},
        {"Command line": "cli.md"},
        *({title: name} for name, title in PAGES.items()),
    ]  # fmt: skip
    config = {
        "site_name": "rmqlab",
        "site_description": "Watch RocketMQ keep your messages: a Jupyter lab in virtual time",
        "docs_dir": str(src),
        "theme": {"name": "material", "font": False, "features": ["navigation.sections"],
                  "palette": [{"scheme": "default", "toggle": {"icon": "material/weather-night", "name": "Dark"}},
                              {"scheme": "slate", "toggle": {"icon": "material/weather-sunny", "name": "Light"}}]},
        "plugins": ["search", {"mkdocs-jupyter": {"execute": False, "include_source": True, "ignore_h1_titles": True}}],
        "markdown_extensions": ["tables", "admonition", {"toc": {"permalink": True}},
                                "pymdownx.superfences"],  # a fenced block inside a list item is code too
        "nav": nav,
    }  # fmt: skip
    (src.parent / f"{src.name}.mkdocs.yml").write_text(json.dumps(config, indent=1))  # JSON is YAML
    return {"labs": static}


HREF = re.compile(r'(?:href|src)="([^"]+)"')


def broken_links(site: Path) -> list[str]:
    """Internal links of the built site that lead nowhere: ``page → link`` for each (an empty list: none)."""
    broken = []
    for page in sorted(site.rglob("*.html")):
        for link in HREF.findall(page.read_text(errors="replace")):
            if re.match(r"^(?:[a-z][a-z0-9+.-]*:|#|//)", link):
                continue  # another site, a data: URI, an anchor on the same page
            path = link.split("#", 1)[0].split("?", 1)[0]
            if not path:
                continue
            target = (site / path.lstrip("/")) if path.startswith("/") else (page.parent / path)
            target = target.resolve()
            if not (target.is_file() or (target / "index.html").is_file()):
                broken.append(f"{page.relative_to(site)} → {link}")
    return broken


def build(out: Path) -> dict[str, Any]:
    started = time.monotonic()
    src = out.with_name(out.name + "-src")
    staged = stage(src)
    shutil.rmtree(out, ignore_errors=True)
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # no banner about the theme's successor on every build
    # cwd: mkdocs-jupyter keeps a .cache/ in the working directory; the build folder, never the checkout
    config = src.parent / f"{src.name}.mkdocs.yml"
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--quiet", "--clean", "-f", str(config), "-d", str(out)],
                   check=True, env=env, cwd=src.parent)  # fmt: skip
    broken = broken_links(out)
    if broken:
        raise SystemExit(f"[docs] {len(broken)} broken internal link(s):\n" + "\n".join(broken))
    summary = {**staged, "seconds": round(time.monotonic() - started, 1),
               "bytes": sum(p.stat().st_size for p in out.rglob("*") if p.is_file())}  # fmt: skip
    print(f"[docs] {out}: {len(staged['labs'])} labs, {summary['bytes'] / 2**20:.1f} MiB in {summary['seconds']} s")
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, nargs="?", default=ROOT / "build" / "docs", help="the site to write")
    args = parser.parse_args(argv)
    build(args.out.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
