"""Reading a scenario file within bounds: at most 1 MiB, UTF-8, shallow, finite numbers, no alias bomb.

A few bytes of JSON or YAML can expand to gigabytes (YAML aliases) or make both parsers recurse for seconds
(deep brackets); every limit here is checked before or while parsing, each failing with one
:class:`ScenarioError` on the ``file`` (or the field path, for a mapping passed from Python).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...core.errors import ScenarioError, cut
from .schema import format_path

__all__ = ["MAX_DEPTH", "MAX_FILE_BYTES", "MAX_NUMBER_CHARS", "MAX_VALUES", "check_shape", "read_file"]


MAX_FILE_BYTES = 1 << 20
"""A scenario file is at most 1 MiB (the examples are ~1 KB): ``/dev/zero`` is refused after 1 MiB read."""
MAX_DEPTH = 32
"""Containers nest at most 32 deep (a listener's ``then`` chain counts 2 per step; the examples use 6)."""
MAX_VALUES = 100_000
"""At most 100,000 values once YAML aliases are expanded (a 700-byte alias bomb expands to 10^9)."""
MAX_NUMBER_CHARS = 24
"""A number literal has at most 24 characters: every field is far below 10^20 ms or 10^20 of anything."""


class _BadNumber(Exception):
    """Raised inside a parser hook; turned into a located ScenarioError."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


def _json_number(text: str) -> Any:
    if len(text) > MAX_NUMBER_CHARS:
        raise _BadNumber(text)
    value = float(text) if any(c in text for c in ".eE") else int(text)
    if value in (float("inf"), float("-inf")):
        raise _BadNumber(text)
    return value


def _json_constant(text: str) -> Any:
    raise _BadNumber(text)  # NaN, Infinity, -Infinity: not JSON, and no field takes them


def _line_col(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def _number_error(path: Path, text: str, number: str, line: int | None = None) -> ScenarioError:
    if line is None:
        at = text.find(number)
        line = _line_col(text, at)[0] if at >= 0 else 0
    where = f"line {line} has " if line else ""
    return ScenarioError(
        "file",
        str(path),
        f"numbers of at most {MAX_NUMBER_CHARS} characters, finite ({where}{cut(number, 40)!r},"
        f" {len(number)} characters)",
    )


def _yaml_loader() -> type:
    """A SafeLoader that bounds what a few bytes can turn into: aliases expanded, numbers, depth."""
    import yaml

    class BoundedLoader(yaml.SafeLoader):
        def get_single_node(self) -> Any:
            node = super().get_single_node()
            if node is not None:
                _check_yaml_graph(node)
            return node

        def construct_yaml_int(self, node: Any) -> Any:
            _check_yaml_number(node)
            return super().construct_yaml_int(node)

        def construct_yaml_float(self, node: Any) -> Any:
            _check_yaml_number(node)
            value = super().construct_yaml_float(node)
            if value != value or value in (float("inf"), float("-inf")):
                raise _BadNumber(str(node.value))
            return value

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            _check_yaml_keys(node)
            return super().construct_mapping(node, deep=deep)

    BoundedLoader.add_constructor("tag:yaml.org,2002:int", BoundedLoader.construct_yaml_int)
    BoundedLoader.add_constructor("tag:yaml.org,2002:float", BoundedLoader.construct_yaml_float)
    return BoundedLoader


class _YamlLimit(Exception):
    def __init__(self, allowed: str) -> None:
        super().__init__(allowed)
        self.allowed = allowed


def _check_yaml_keys(node: Any) -> None:
    """Each key of a mapping once: PyYAML would keep the last of two ``at:`` silently (a merge ``<<`` may repeat
    keys, as YAML's merge rule says)."""
    import yaml

    seen: set[Any] = set()
    for key_node, _ in node.value:
        if not isinstance(key_node, yaml.ScalarNode) or key_node.value == "<<":
            continue
        if key_node.value in seen:
            raise _YamlLimit(
                f"each key of a mapping once ({key_node.value!r} appears again at line {key_node.start_mark.line + 1}"
                f"; YAML would keep only the last)"
            )
        seen.add(key_node.value)


class _DuplicateKey(Exception):
    def __init__(self, key: str, keys: list[str]) -> None:
        super().__init__(key)
        self.key = key
        self.keys = keys


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``' object hook: each key once (``json`` would keep the last of two ``"at"`` silently)."""
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey(key, [k for k, _ in pairs])
        result[key] = value
    return result


def _check_yaml_number(node: Any) -> None:
    if len(str(node.value)) > MAX_NUMBER_CHARS:
        raise _BadNumber(str(node.value))


def _check_yaml_graph(root: Any) -> None:
    """Count the values and the depth of the composed node graph, aliases expanded, without expanding it.

    Each node's expanded size is computed once (memoised on the node object: the graph is a DAG of
    shared nodes), so a billion-laughs document costs its own size, not its expansion.
    """
    import yaml

    sizes: dict[int, int] = {}
    depths: dict[int, int] = {}
    # post-order without recursion: (node, children done?)
    stack: list[tuple[Any, bool]] = [(root, False)]
    on_path: set[int] = set()
    while stack:
        node, done = stack.pop()
        key = id(node)  # identity of a shared node, never an order
        if key in sizes:
            continue
        children: list[Any]
        if isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        else:
            children = []
        if not done:
            if key in on_path:
                raise _YamlLimit("no recursive alias (an anchor used inside itself)")
            on_path.add(key)
            stack.append((node, True))
            stack.extend((child, False) for child in children if id(child) not in sizes)
            if len(on_path) > MAX_DEPTH + 1:
                line = node.start_mark.line + 1
                raise _YamlLimit(f"containers nested at most {MAX_DEPTH} deep (deeper at line {line})")
            continue
        on_path.discard(key)
        sizes[key] = 1 + sum(sizes[id(c)] for c in children)
        depths[key] = (1 + max((depths[id(c)] for c in children), default=0)) if children else 0
        if sizes[key] > MAX_VALUES:
            raise _YamlLimit(
                f"at most {MAX_VALUES} values once aliases are expanded (line {node.start_mark.line + 1}"
                f" already expands to more)"
            )
        if depths[key] > MAX_DEPTH:
            raise _YamlLimit(f"containers nested at most {MAX_DEPTH} deep (deeper at line {node.start_mark.line + 1})")


_FLOW_TOKEN = re.compile(r""""(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[\[\]{}]""")


def _deep_at(text: str) -> str:
    """`` (deeper at line N)`` for text whose brackets nest too deep: one linear scan, quoted strings skipped.

    JSON and YAML flow style nest with brackets; YAML block style nests by indentation, which a 1 MiB file
    can take only ~1,400 deep (the composer's RecursionError and the node-graph check catch that).
    """
    depth = 0
    for token in _FLOW_TOKEN.finditer(text):
        mark = token.group()
        if mark in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return f" (deeper at line {_line_col(text, token.start())[0]})"
        elif mark in "]}":
            depth -= 1
    return ""


def _indented_deep_at(text: str) -> str:
    """`` (deeper at line N)`` for YAML whose block-style indentation nests past 2 × MAX_DEPTH levels: one scan.

    Each line deeper than the one before opens a level (a ``- `` item opens one more); a line back at an outer
    indentation closes the levels inside it. Twice the limit leaves room for what indents without nesting (a
    ``key:`` holding a ``- `` list at its own indentation, block scalars); PyYAML's composer would otherwise recurse
    through a 500-deep chain for half a second before refusing it.
    """
    stack: list[int] = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(stripped)
        while stack and stack[-1] >= indent:
            stack.pop()
        stack.append(indent)
        while stripped.startswith("- "):  # "- - x": a list in a list on one line
            indent += 2
            stripped = stripped[2:].lstrip(" ")
            stack.append(indent)
        if len(stack) > 2 * MAX_DEPTH:
            return f" (deeper at line {number})"
    return ""


def _check_depth(path: Path, text: str) -> None:
    """Refuse deep nesting before parsing: both parsers recurse, 100k brackets would take seconds to refuse."""
    deep = _deep_at(text)
    if not deep and path.suffix.lower() in {".yaml", ".yml"}:
        deep = _indented_deep_at(text)
    if deep:
        raise ScenarioError("file", str(path), f"containers nested at most {MAX_DEPTH} deep{deep}")


def read_file(path: Path) -> Any:
    """Read and parse a scenario file, refusing anything that is not small, UTF-8, shallow and finite."""
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ScenarioError("file", str(path), f"a readable scenario file ({exc.strerror or exc})") from None
    if len(raw) > MAX_FILE_BYTES:
        raise ScenarioError("file", str(path), f"a scenario file of at most {MAX_FILE_BYTES} bytes (1 MiB)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = _line_col(raw[: exc.start].decode("utf-8", "replace"), exc.start)
        raise ScenarioError(
            "file", str(path), f"UTF-8 text (byte 0x{raw[exc.start]:02x} at line {line}, column {col} is not UTF-8)"
        ) from None
    _check_depth(path, text)
    try:
        if path.suffix.lower() in {".yaml", ".yml"}:
            return _parse_yaml(path, text)
        return json.loads(
            text,
            parse_int=_json_number,
            parse_float=_json_number,
            parse_constant=_json_constant,
            object_pairs_hook=_json_object,
        )
    except _DuplicateKey as exc:
        keys = ", ".join(dict.fromkeys(exc.keys))
        raise ScenarioError(
            "file",
            str(path),
            f"each key of an object once ({exc.key!r} appears twice in the object with keys {keys};"
            " JSON readers would keep only the last)",
        ) from None
    except _BadNumber as exc:
        raise _number_error(path, text, exc.text) from None
    except _YamlLimit as exc:
        raise ScenarioError("file", str(path), exc.allowed) from None
    except RecursionError:
        raise ScenarioError("file", str(path), f"containers nested at most {MAX_DEPTH} deep{_deep_at(text)}") from None
    except json.JSONDecodeError as exc:
        raise ScenarioError(
            "file", str(path), f"valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None


def _parse_yaml(path: Path, text: str) -> Any:
    """YAML through the bounded SafeLoader; PyYAML is imported here only, so JSON scenarios need no PyYAML
    (the JupyterLite site has none)."""
    import yaml

    try:
        return yaml.load(text, Loader=_yaml_loader())  # a SafeLoader subclass: no arbitrary objects
    except yaml.YAMLError as exc:
        raise ScenarioError("file", str(path), f"valid YAML ({cut(str(exc), 600)})") from None


def check_shape(data: Any) -> None:
    """Depth and size limits on parsed data (also a mapping passed from Python), with the path where broken.

    Iterative and stopping at the first excess, so a shared-structure bomb or 100k-deep nesting costs
    at most MAX_VALUES steps.
    """
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(data, ())]
    count = 0
    while stack:
        node, parts = stack.pop()
        count += 1
        if count > MAX_VALUES:
            raise ScenarioError(format_path(parts), node, f"a scenario of at most {MAX_VALUES} values in all")
        if isinstance(node, Mapping):
            children: list[tuple[Any, tuple[str | int, ...]]] = [
                (v, (*parts, k if isinstance(k, str) else str(k))) for k, v in node.items()
            ]
        elif isinstance(node, list | tuple):
            children = [(v, (*parts, i)) for i, v in enumerate(node)]
        else:
            continue
        if len(parts) >= MAX_DEPTH and children:
            raise ScenarioError(format_path(parts), node, f"containers nested at most {MAX_DEPTH} deep")
        stack.extend(reversed(children))
