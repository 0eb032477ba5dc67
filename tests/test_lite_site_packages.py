"""``rmqlab.widgets.site_packages``: in the JupyterLite site, the packages the kernel does not load at start (plotly,
narwhals) are loaded the first time something imports them. Pyodide's side is a stand-in here (``pyodide_js`` and
``pyodide.ffi`` in ``sys.modules``), with the lock file and the loaded packages as the site has them; the real one
runs in tests/browser/test_lite.py, whose lab 03 draws its plotly chart."""

from __future__ import annotations

import importlib.machinery
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rmqlab.widgets import site_packages


class FakePyodide(types.ModuleType):
    """``pyodide_js`` as the site's kernel sees it: a lock file, the packages loaded, ``loadPackage``."""

    def __init__(self, site: Path, lock: dict[str, list[str]], loaded: set[str]) -> None:
        super().__init__("pyodide_js")
        self.site, self.locked, self.loaded_names, self.calls = site, lock, loaded, []
        packages = {name: {"name": name, "imports": imports} for name, imports in lock.items()}
        self.lockfile = types.SimpleNamespace(packages=types.SimpleNamespace(to_py=lambda: packages))
        self.loadedPackages = types.SimpleNamespace(object_keys=lambda: sorted(self.loaded_names))

    def loadPackage(self, names: list[str]) -> str:
        """Pyodide unpacks each package into site-packages; here a module per import name appears on disk."""
        self.calls.append(list(names))
        for name in names:
            for module in self.locked[name]:
                (self.site / f"{module}.py").write_text(f"FROM = {name!r}\n")
            self.loaded_names.add(name)
        return "promise"


@pytest.fixture
def pyodide(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakePyodide]:
    fake = FakePyodide(tmp_path, {"plotly": ["plotly_x", "_plotly_utils_x"], "narwhals": ["narwhals_x"],
                                  "rmqlab": []}, {"rmqlab"})  # fmt: skip
    ffi = types.ModuleType("pyodide.ffi")
    ffi.can_run_sync = lambda: True  # type: ignore[attr-defined]
    ffi.run_sync = lambda promise: promise  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "pyodide_js", fake)
    monkeypatch.setitem(sys.modules, "pyodide", types.ModuleType("pyodide"))
    monkeypatch.setitem(sys.modules, "pyodide.ffi", ffi)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield fake
    for name in ("plotly_x", "_plotly_utils_x", "narwhals_x"):
        sys.modules.pop(name, None)


def test_outside_pyodide_nothing_is_added_or_loaded() -> None:
    before = list(sys.meta_path)
    site_packages.start()
    assert sys.platform != "emscripten" and sys.meta_path == before and site_packages._pending == []


def test_the_site_packages_not_loaded_are_named_by_their_modules(pyodide: FakePyodide) -> None:
    assert site_packages.not_loaded() == {"plotly_x": "plotly", "_plotly_utils_x": "plotly", "narwhals_x": "narwhals"}
    pyodide.loaded_names.add("narwhals")
    assert site_packages.not_loaded() == {"plotly_x": "plotly", "_plotly_utils_x": "plotly"}


def test_an_import_of_a_deferred_package_loads_that_package_and_goes_on(
    pyodide: FakePyodide, monkeypatch: pytest.MonkeyPatch
) -> None:
    finder = site_packages.LoadOnImport()
    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, finder])
    module: Any = __import__("plotly_x")
    assert module.FROM == "plotly" and pyodide.calls == [["plotly"]]
    # not the site's (or loaded already): the finder stays out of the way, the usual errors and finders apply
    assert finder.find_spec("numpy_not_here") is None and finder.find_spec("plotly_x") is None
    assert finder.find_spec("narwhals_x", path=["somewhere"]) is None  # a submodule's search: not a lock entry
    with pytest.raises(ModuleNotFoundError, match="No module named 'numpy_not_here'"):
        __import__("numpy_not_here")
    assert pyodide.calls == [["plotly"]]


def test_start_loads_the_rest_in_the_background_once(pyodide: FakePyodide, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "emscripten")
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    monkeypatch.setattr(site_packages, "_pending", [])
    site_packages.start()
    site_packages.start()
    assert pyodide.calls == [["narwhals", "plotly"]]
    assert [type(f) for f in sys.meta_path].count(site_packages.LoadOnImport) == 1
    assert isinstance(sys.meta_path[-1], site_packages.LoadOnImport)


def test_a_browser_that_cannot_wait_inside_a_cell_is_told_to_run_it_again(
    pyodide: FakePyodide, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys.modules["pyodide.ffi"], "can_run_sync", lambda: False)
    with pytest.raises(ModuleNotFoundError, match=r"^plotly_x is still loading in the background \(this browser "
                       r"cannot wait for it inside a cell\): run this cell again in a moment$") as caught:  # fmt: skip
        site_packages.LoadOnImport().find_spec("plotly_x")
    assert caught.value.name == "plotly_x" and pyodide.calls == []
    assert importlib.machinery.PathFinder.find_spec("plotly_x") is None
