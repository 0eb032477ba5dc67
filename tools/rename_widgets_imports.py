"""Switch every ``widgets`` import in the repository to ``rmqlab.widgets`` (issue 35, item 4). Run once, by hand:

    python tools/rename_widgets_imports.py          # rewrite, and list what changed
    python tools/rename_widgets_imports.py --check  # only list; exit 1 if anything is left to rewrite

The views are installed as ``rmqlab.widgets`` (pyproject.toml's package-dir); a checkout still answers to the old
name through ``widgets/_old_name.py`` so that branches written before the move keep working. After every branch
is merged this rewrites what is left, in the labs' jupytext sources and their notebooks (the same line in both, so
the pairs stay in sync; outputs are untouched), tests, benchmarks, docs and deploy files:

- ``from widgets[.x] import …`` → ``from rmqlab.widgets[.x] import …``;
- ``import widgets.x as y`` → ``import rmqlab.widgets.x as y``;
  ``import widgets`` → ``import rmqlab.widgets as widgets``;
- the dotted names in strings: ``"widgets.nodelay"`` (the server extension), ``"widgets.export.…"`` (monkeypatch).

Relative imports inside widgets/ are left alone. Afterwards: ``python labs/sync.py`` (the notebooks' code changed,
so their execution hashes are stale), then the tests; then widgets/_old_name.py and its two lines in
widgets/__init__.py can go.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("labs", "tests", "bench", "docs", "deploy", "lite", "widgets", "rmqlab", "tools")
TOP_FILES = ("Makefile", "README.md", "environment.yml")
SUFFIXES = {".py", ".ipynb", ".md", ".json", ".yml", ".yaml", ".toml", ".cfg", ".sh", ".txt"}
SKIP = {Path("tools/rename_widgets_imports.py"), Path("widgets/_old_name.py"), Path("widgets/__init__.py")}

RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    # from widgets import X / from widgets.dashboard import X
    (re.compile(r"(?m)(^|[\s\"'`(])from widgets(?=[.\s])"), r"\1from rmqlab.widgets"),
    # import widgets.export as export
    (re.compile(r"(?m)(^|[\s\"'`(])import widgets\.(\w+(?:\.\w+)*) as "), r"\1import rmqlab.widgets.\2 as "),
    # import widgets (alone on its line or before a newline escaped in a notebook's JSON)
    (re.compile(r"(?m)(^|[\s\"'`(])import widgets(?=$|\\n|\s*#|\s*;)"), r"\1import rmqlab.widgets as widgets"),
    # dotted names in strings: "widgets.nodelay", 'widgets.export.BROWSER_CANDIDATES', {\"widgets.nodelay\": true}
    (re.compile(r"(?<=[\"'])widgets\.(?=[a-z_])"), "rmqlab.widgets."),
    (re.compile(r"(?<=\\\")widgets\.(?=[a-z_])"), "rmqlab.widgets."),
)


def rewrite(text: str) -> str:
    for pattern, replacement in RULES:
        text = pattern.sub(replacement, text)
    return text


def candidates() -> list[Path]:
    files = [ROOT / name for name in TOP_FILES if (ROOT / name).is_file()]
    for folder in FOLDERS:
        files += [p for p in sorted((ROOT / folder).rglob("*")) if p.is_file() and p.suffix in SUFFIXES]
    return [p for p in files if p.relative_to(ROOT) not in SKIP and ".ipynb_checkpoints" not in p.parts]


def main(argv: list[str]) -> int:
    check = "--check" in argv
    changed = []
    for path in candidates():
        text = path.read_text(encoding="utf-8")
        new = rewrite(text)
        if new != text:
            changed.append(path.relative_to(ROOT))
            if not check:
                path.write_text(new, encoding="utf-8")
    verb = "to rewrite" if check else "rewritten"
    print(f"{len(changed)} files {verb}" + "".join(f"\n  {p}" for p in changed))
    return 1 if check and changed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
