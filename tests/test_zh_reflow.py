"""Issue 35, item 1: the Chinese labs' markdown has no line break between two Chinese characters (a browser shows
it as a space in the middle of a sentence). ``labs/reflow_zh.py`` joins them; these tests keep them joined."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from jupytext import read as read_text_notebook  # type: ignore[import-untyped]
from lab_tools import load_lab_tool

LABS = Path(__file__).resolve().parents[1] / "labs"


REFLOW = load_lab_tool("reflow_zh.py")
SOURCES = sorted(p.name for p in (LABS / "zh").glob("[0-9][0-9]*_*.py"))

SAMPLE = """## 标题
正文第一行，
第二行。English
中文 and `code`
中文

- 列表一，
  继续。
- 列表二

> **引用。** 第一行，
> 继续。

```python
print("代码，")
print("代码")
```

| 列 | 列 |
| 表 | 格 |

    缩进的代码，
    不动
硬换行，\\
保留"""


def test_a_break_inside_a_paragraph_list_item_or_quote_is_joined_the_rest_kept() -> None:
    joined = REFLOW.reflow(SAMPLE)
    assert joined.split("\n")[:9] == ["## 标题", "正文第一行，第二行。English", "中文 and `code`", "中文", "",
                                      "- 列表一，继续。", "- 列表二", "", "> **引用。** 第一行，继续。"]  # fmt: skip
    kept = SAMPLE.split("\n")[12:]  # the code, the table, the indented code, the hard break: as they were
    assert joined.split("\n")[9:] == kept
    assert REFLOW.stray_breaks(SAMPLE) == [
        "…正文第一行，⏎第二行。English…",
        "…- 列表一，⏎继续。…",
        "…**引用。** 第一行，⏎> 继续。…",
    ]
    assert REFLOW.stray_breaks(joined) == [] and REFLOW.reflow(joined) == joined


@pytest.mark.parametrize("name", SOURCES)
def test_no_line_break_between_two_chinese_characters(name: str) -> None:
    """In the lab's source and in its notebook: every markdown cell reads as one line where Chinese meets Chinese
    (run ``labs/reflow_zh.py``, then ``labs/sync.py NN``)."""
    source = read_text_notebook(LABS / "zh" / name)
    notebook = nbformat.read(LABS / "zh" / name.replace(".py", ".ipynb"), as_version=4)
    for cells in (source.cells, notebook.cells):
        left = [gap for c in cells if c.cell_type == "markdown" for gap in REFLOW.stray_breaks(c.source)]
        assert left == [], f"{name}: run labs/reflow_zh.py"


@pytest.mark.parametrize("page", ["README.md", "labs/zh/README.md"])
def test_no_such_break_in_the_chinese_readmes(page: str) -> None:
    """The README's 简体中文 section (the docs site's home too) and the Chinese labs' index."""
    text = (LABS.parent / page).read_text(encoding="utf-8")
    assert REFLOW.stray_breaks(text) == [], "run REFLOW.reflow on it (labs/reflow_zh.py)"
