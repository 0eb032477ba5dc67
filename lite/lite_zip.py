"""The site's pure-Python packages imported from the standard library's zip instead of unpacked at every start.

Pyodide installs a wheel by unpacking it into the browser's in-memory file system, file by file, in Python, before
the kernel can start: for the 30-odd wheels the kernel and the labs import that was the largest part of "Pyodide +
preloaded packages", the largest phase of the tour's start (bench/README.md, "The zero-install site"). The standard
library is different: Pyodide writes ``python_stdlib.zip`` to ``/lib/python314.zip`` as one file, the first entry of
``sys.path``, and Python imports from it with ``zipimport``, reading a module only when it is imported. So every
wheel that can be imported from a zip goes into that same zip: its modules with their bytecode beside them (the
``NAME.pyc`` layout ``zipimport`` reads, compiled by the site's own Pyodide: ``lite_bytecode``), and its
``.dist-info`` (``importlib.metadata`` reads it there: micropip and piplite see the package installed).

Not every package can be: one that opens its own files by path (``open(os.path.dirname(__file__) / …)``) finds
nothing inside a zip; one that reads them with ``importlib.resources`` finds them, but each ``files()`` is a new
``zipfile.Path`` that reads the whole zip's directory (thousands of names) in Python, so a package that reads a dozen
files so (jsonschema's metaschemas) is far slower from the zip than unpacked. Those stay wheels that Pyodide unpacks
(:data:`UNPACKED`), as do the ones the kernel's start loads by name: the pyodide-kernel's worker installs
``ipython``, ``comm``, ``ipykernel``, ``pyodide-kernel`` and ``jedi`` with piplite unless they are among the
preloaded packages, and loads ``micropip`` and ``piplite`` itself.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

UNPACKED = {
    "rmqlab": "reads its own files by path: its translations (gettext), the exercise bank, the views' scene.js",
    "jedi": "reads typeshed's stubs by path (completion)",
    "parso": "reads its grammar files by path (jedi's parser)",
    "plotly": "reads its validators' JSON by path",
    "jsonschema": "reads its metaschemas with importlib.resources, which from a zip parses the whole zip's directory "
    "again for each of its dozen files (6 of the 9.7 s importing plotly's renderers, at load 11)",
    "ipython": "the kernel's start installs it unless preloaded by name",
    "comm": "the kernel's start installs it unless preloaded by name",
    "ipykernel": "the kernel's start installs it unless preloaded by name",
    "pyodide-kernel": "the kernel's start installs it unless preloaded by name",
    "micropip": "the kernel's start loads it by name",
    "piplite": "the kernel's start loads it by name",
}
"""The packages Pyodide unpacks (canonical name → why); every other preloaded wheel goes into the zip."""


def canonical(name: str) -> str:
    """A distribution name as Pyodide's lock file keys it (PEP 503: lower case, runs of ``-_.`` as ``-``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def zipped(wheel: Path) -> bool:
    """Whether ``wheel`` goes into the standard library's zip (it is not one of :data:`UNPACKED`)."""
    return canonical(wheel.name.split("-")[0]) not in UNPACKED


def stdlib_with_packages(stdlib: Path, wheels: list[Path], out: Path) -> list[str]:
    """Write ``out``: ``stdlib``'s entries, then every entry of ``wheels`` (compiled for the zip) but their ``.data``
    folders (scripts and Jupyter's front-end files: nothing Python imports) and their test suites (:func:`a_test`),
    in that order, the same bytes for the same inputs. Returns the wheels' top-level names. A file two archives both
    have is an error: the one earlier on ``sys.path`` would hide the other."""
    seen: dict[str, str] = {}
    tops: set[str] = set()
    with zipfile.ZipFile(out.with_suffix(".part"), "w", zipfile.ZIP_DEFLATED) as zout:
        for archive in [stdlib, *wheels]:
            with zipfile.ZipFile(archive) as zin:
                for info in zin.infolist():
                    top = info.filename.split("/")[0]
                    if top.endswith(".data") or (archive != stdlib and a_test(info.filename)):
                        continue
                    if info.filename in seen:
                        zout.close()
                        out.with_suffix(".part").unlink()
                        raise SystemExit(f"{archive.name} and {seen[info.filename]} both have {info.filename}")
                    seen[info.filename] = archive.name
                    zout.writestr(info, zin.read(info))
                    if archive != stdlib and not top.endswith(".dist-info"):
                        tops.add(top.removesuffix(".pyc").removesuffix(".py"))
    out.with_suffix(".part").replace(out)
    return sorted(tops)


def a_test(name: str) -> bool:
    """Whether a wheel's file ``name`` is part of its test suite (a ``tests`` folder: networkx's 598 files, 14 % of
    the zip). No module outside one imports it, and every name in the zip costs: ``importlib.metadata`` and
    ``zipimport`` read the whole zip's directory in Python again after each ``importlib.invalidate_caches()``, which
    Pyodide calls whenever it loads a package (the charts' plotly: 0.3–1 s a time on this machine)."""
    return "tests" in name.split("/")[:-1]
