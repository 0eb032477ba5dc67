"""The map from rmqlab to RocketMQ 4.9.7: every engine module names the Java file(s) it mirrors, ``docs/java-map.md``
is generated from those names, and ``docs/life-of-a-message.md`` names only functions that exist."""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _java_map() -> ModuleType:
    spec = importlib.util.spec_from_file_location("java_map", ROOT / "docs" / "java_map.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["java_map"] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


java_map = _java_map()


def test_every_engine_module_names_the_java_it_mirrors() -> None:
    assert java_map.problems() == []
    named = {p.relative_to(ROOT).as_posix() for p in java_map.engine_modules() if java_map.mirrors(p)}
    assert "rmqlab/client/consumer/process_queue.py" in named
    assert len(named) == len(java_map.engine_modules()) - len(java_map.PENDING) - len(java_map.NO_COUNTERPART)


def test_the_committed_page_is_current() -> None:
    assert (ROOT / "docs" / "java-map.md").read_text() == java_map.render(), "run python docs/java_map.py"
    assert java_map.main(["--check"]) == 0


def test_a_mirrors_entry_is_parsed_into_its_path_and_names(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        '"""A module.\n\n'
        "Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/consumer/ProcessQueue.java\n"
        "    (ProcessQueue.putMessage,\n"
        "    ProcessQueue.removeMessage)\n"
        "Mirrors: common/src/main/java/org/apache/rocketmq/common/MixAll.java\n"
        "    (MixAll)\n"
        '"""\n'
    )
    assert java_map.mirrors(module) == [
        java_map.Mirror(
            "client/src/main/java/org/apache/rocketmq/client/impl/consumer/ProcessQueue.java",
            ("ProcessQueue.putMessage", "ProcessQueue.removeMessage"),
        ),
        java_map.Mirror("common/src/main/java/org/apache/rocketmq/common/MixAll.java", ("MixAll",)),
    ]


@pytest.mark.parametrize(
    ("entry", "complaint"),
    [
        ("Mirrors: client/src/main/java/org/apache/rocketmq/client/Validators.java\n", "indented names"),
        ("Mirrors: client/Validators.java\n    (Validators)\n", "not a path"),
        ("Mirrors: client/src/main/java/org/apache/rocketmq/client/Validators.java\n    Validators\n", "parentheses"),
        ("Mirrors: client/src/main/java/org/apache/rocketmq/client/Validators.java\n    (check message)\n", "names"),
    ],
)
def test_a_malformed_entry_is_refused_with_the_reason(tmp_path: Path, entry: str, complaint: str) -> None:
    module = tmp_path / "m.py"
    module.write_text(f'"""A module.\n\n{entry}"""\n')
    with pytest.raises(ValueError, match=complaint):
        java_map.mirrors(module)


def test_a_module_without_an_entry_is_a_problem(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    bare = tmp_path / "rmqlab" / "store" / "bare.py"
    bare.parent.mkdir(parents=True)
    bare.write_text('"""No map here."""\n')
    monkeypatch.setattr(java_map, "ROOT", tmp_path)
    assert java_map.problems() == [
        "rmqlab/store/bare.py names no Java file (add a 'Mirrors: <path>' entry to its docstring)"
    ]


def _defined_names(path: Path) -> set[str]:
    """``function`` and ``Class.method`` names defined at the top of a module and in its classes."""
    names: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names.add(node.name)
            names |= {
                f"{node.name}.{item.name}"
                for item in node.body
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
            }
    return names


def test_the_life_of_a_message_names_only_functions_that_exist() -> None:
    text = (ROOT / "docs" / "life-of-a-message.md").read_text()
    hops = re.findall(r"`(rmqlab/[\w/]+\.py):([\w.]+)`", text)
    assert len(hops) >= 30
    missing = [f"{file}:{name}" for file, name in hops if name not in _defined_names(ROOT / file)]
    assert missing == []
    for station in ("producer.send", "SCHEDULE_TOPIC_XXXX", "%RETRY%", "%DLQ%", "processConsumeResult"):
        assert station in text
