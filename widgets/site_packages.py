"""In the zero-install site (JupyterLite: Python in the student's browser), the packages only some cells need — plotly,
its narwhals and the nbformat its renderer asks for, for the whole-run charts — are not loaded while the kernel
starts: unpacking their thousands of files into the browser's memory was a large share of the start
(bench/README.md, "The zero-install site"). They are in the site all the same (``lite/build_lite.py`` lists them in
Pyodide's lock file), and:

- the first import of ``rmqlab.widgets`` starts loading them in the background (:func:`start`), while the student
  reads and steps through the first dashboard;
- an import that finds one missing (``rmqlab.widgets.charts`` importing plotly) waits for it (:class:`LoadOnImport`,
  the last of ``sys.meta_path``, so it is asked only about a module no other finder has): Pyodide loads it from
  the site and the import goes on. Waiting inside a running cell needs the browser's WebAssembly stack switching
  (JSPI: Chromium, Firefox); elsewhere the import fails with a message saying to run the cell again once the
  background load is done.

Outside Pyodide (JupyterLab, Voila, nbclient) nothing here runs: ``sys.platform`` is not ``emscripten``.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

_pending: list[Any] = []
"""The background load started by :func:`start` (a JavaScript promise), kept so it is started once."""


class LoadOnImport(importlib.abc.MetaPathFinder):
    """Loads a top-level package the site ships but has not loaded yet, the first time it is imported."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        package = not_loaded().get(fullname) if path is None else None
        if package is None:  # not a top-level module the site ships and has not loaded: not ours
            return None
        import pyodide_js  # type: ignore[import-not-found]
        from pyodide.ffi import can_run_sync, run_sync  # type: ignore[import-not-found]

        if not can_run_sync():
            raise ModuleNotFoundError(
                f"{fullname} is still loading in the background (this browser cannot wait for it inside a cell): "
                "run this cell again in a moment",
                name=fullname,
            )
        run_sync(pyodide_js.loadPackage([package]))  # after the background load, if that is still going
        importlib.invalidate_caches()
        return importlib.machinery.PathFinder.find_spec(fullname)


def not_loaded() -> dict[str, str]:
    """Each top-level module of the site's packages (Pyodide's lock file) not loaded yet: its package's name."""
    import pyodide_js

    loaded = set(pyodide_js.loadedPackages.object_keys())
    packages = pyodide_js.lockfile.packages.to_py()  # a few dozen entries: a plain dict of dicts
    return {module: name for name, entry in packages.items() if name not in loaded
            for module in entry["imports"]}  # fmt: skip


def start() -> None:
    """In Pyodide, once: add :class:`LoadOnImport` and start loading the site's other packages in the background."""
    if sys.platform != "emscripten" or _pending:
        return
    import pyodide_js

    sys.meta_path.append(LoadOnImport())
    names = sorted(set(not_loaded().values()))
    _pending.append(pyodide_js.loadPackage(names) if names else None)
