"""A submission that snoops: its answer cell tries to read and change the teacher's files before it answers.

Shared by the nbgrader tests (``tests/test_nbgrader.py``, ``tests/test_hub_class.py``): the autograde sandbox
(``rmqlab.course.sandbox``) must leave it nothing to read, while its answer still scores.
"""

from __future__ import annotations

import json
from typing import Any

MARK = "SNOOPED "
"""The line the snooping cell prints: ``SNOOPED`` and a JSON object, path → what it found."""

SNOOP = """import json, os
found = {{}}
for path in {reads!r}:
    try:
        if os.path.isdir(path):
            found[path] = sorted(os.listdir(path))
        else:
            with open(path, "rb") as f:
                found[path] = len(f.read())
    except OSError as error:
        found[path] = type(error).__name__
for path in {writes!r}:
    try:
        with open(path, "a") as f:
            f.write("# changed by a submission")
        found[path] = "written"
    except OSError as error:
        found[path] = type(error).__name__
print({mark!r} + json.dumps(found))
{{name}} = {value!r}"""


def snooping(reads: list[str], writes: list[str], value: object) -> str:
    """An answer cell's source (``{name}`` stands for ``answer_k``) that reads ``reads`` (a file: its size; a folder:
    its names), appends to each of ``writes``, prints what it found and answers ``value``."""
    return SNOOP.format(reads=reads, writes=writes, mark=MARK, value=value)


def snooped(nb: Any) -> dict[str, Any]:
    """What the snooping cell of an executed notebook printed (path → size, names or the error's name)."""
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            for line in str(output.get("text", "")).splitlines():
                if line.startswith(MARK):
                    return dict(json.loads(line.removeprefix(MARK)))
    raise AssertionError("the snooping cell printed nothing: did it run?")
