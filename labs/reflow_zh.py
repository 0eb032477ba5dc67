"""Join the line breaks between two Chinese characters in the Chinese labs' markdown (issue 35).

Markdown turns a line break inside a paragraph into a space. Between two English words that is the space they
need; between two Chinese characters it is a stray gap in the middle of a sentence (browsers do not drop it). So a
paragraph of a ``labs/zh/`` lab is written as one line where Chinese meets Chinese, and this script joins the
lines that are not::

    .venv/bin/python labs/reflow_zh.py          # rewrite labs/zh/NN_name.py in place, name the files changed
    .venv/bin/python labs/reflow_zh.py --check  # change nothing; exit 1 and name the breaks left

Only a break inside a paragraph is joined: one inside a list item's text or a blockquote too, but never one after
a heading, a table row, a line that ends in a hard break (two spaces or ``\\``), nor one inside code (fenced, or
indented by four spaces), and never one that starts a new list item, heading, table row or quote. A break beside a
Latin letter, a digit or code stays: there the space is wanted. Then run ``labs/sync.py NN`` for each lab changed
(it re-executes the pair, so the saved ``.ipynb`` carries the same cells).
"""

from __future__ import annotations

import re
import sys
from itertools import pairwise
from pathlib import Path

from jupytext import read as read_text_notebook  # type: ignore[import-untyped]
from jupytext import write as write_text_notebook

LABS = Path(__file__).resolve().parent
ZH = LABS / "zh"
WIDE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\u3000-\u303f\uff00-\uffef\u2014\u2026\u201c\u201d\u2018\u2019]")
"""What Chinese is written with: the CJK ideographs, CJK and full-width punctuation (，。：（）), and the dash,
ellipsis and curly quotes Chinese prose uses (——, ……, “”)."""
_STARTS_BLOCK = re.compile(r"\s*(?:#{1,6}\s|[-*+]\s|\d+[.)]\s|\||```|~~~|<|>)")
"""A line that begins a block of its own: heading, list item, table row, fence, HTML, quote."""
_ENDS_BLOCK = re.compile(r"\s*(?:#{1,6}\s|\|)")
"""A line after which the next one is never the same paragraph: a heading or a table row."""


def _quoted(line: str) -> str | None:
    """The text of a blockquote line without its ``>`` (None when the line is not quoted)."""
    match = re.match(r"\s*>\s?", line)
    return line[match.end():] if match else None  # fmt: skip


def joins(before: str, after: str) -> bool:
    """Whether the break between the lines ``before`` and ``after`` (code and fences already set aside) is a
    stray gap: inside one paragraph, quote or list item, with Chinese on both sides."""
    if not before.strip() or not after.strip() or before.endswith(("  ", "\\")) or _ENDS_BLOCK.match(before):
        return False
    quoted_before, quoted_after = _quoted(before), _quoted(after)
    if quoted_after is not None:  # a quote continues only a quote
        if quoted_before is None:
            return False
        return joins(quoted_before, quoted_after) if quoted_after.strip() else False
    if _STARTS_BLOCK.match(after):
        return False
    return bool(WIDE.match(before.rstrip()[-1]) and WIDE.match(after.lstrip()[0]))


def stray_breaks(markdown: str) -> list[str]:
    """Each break of ``markdown`` :func:`joins` would join, as ``"…end of line⏎start of next…"``."""
    found = []
    for (_, before), (_, after) in pairwise(_outside_code(markdown)):
        if before is not None and after is not None and joins(before, after):
            found.append(f"…{before.rstrip()[-12:]}⏎{after.strip()[:12]}…")
    return found


def _outside_code(markdown: str) -> list[tuple[str, str | None]]:
    """Each line of ``markdown`` with itself, or with None where it is code: a fenced block with its fences, or
    lines indented by four spaces (or a tab) after a blank line."""
    out: list[tuple[str, str | None]] = []
    fence = ""
    for line in markdown.split("\n"):
        stripped = _quoted(line) or line
        marker = stripped.lstrip()[:3]
        indented_code = line.startswith(("    ", "\t")) and (not out or not out[-1][0].strip() or out[-1][1] is None)
        if fence:
            out.append((line, None))
            fence = "" if marker == fence else fence
        elif marker in ("```", "~~~"):
            fence = marker
            out.append((line, None))
        else:
            out.append((line, None if indented_code else line))
    return out


def reflow(markdown: str) -> str:
    """``markdown`` with every stray break (:func:`joins`) joined: the next line's text, its indent or ``>``
    dropped, goes on the end of the line before."""
    out: list[str] = []
    joinable: list[bool] = []
    for line, text in _outside_code(markdown):
        if text is not None and out and joinable[-1] and joins(out[-1], text):
            quoted = _quoted(text)
            out[-1] = out[-1].rstrip() + (quoted if quoted is not None else text).strip()
            continue
        out.append(line)
        joinable.append(text is not None)
    return "\n".join(out)


def reflow_lab(path: Path) -> bool:
    """Reflow every markdown cell of the jupytext lab ``path`` in place; True if it changed."""
    notebook = read_text_notebook(path)
    changed = False
    for cell in notebook.cells:
        if cell.cell_type == "markdown" and (joined := reflow(cell.source)) != cell.source:
            cell.source = joined
            changed = True
    if changed:
        write_text_notebook(notebook, path, fmt="py:percent")
    return changed


def main(argv: list[str]) -> int:
    labs = sorted(ZH.glob("[0-9][0-9]*_*.py"))
    if "--check" in argv:
        left = [f"{path.name}: {gap}" for path in labs for cell in read_text_notebook(path).cells
                if cell.cell_type == "markdown" for gap in stray_breaks(cell.source)]  # fmt: skip
        print("\n".join(left) or "no line break between two Chinese characters")
        return 1 if left else 0
    changed = [path.name for path in labs if reflow_lab(path)]
    print("reflowed: " + (", ".join(changed) or "nothing") + ("\nnow run labs/sync.py NN for each" if changed else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
