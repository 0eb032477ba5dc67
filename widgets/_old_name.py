"""``import widgets``, the views' old name, as one more name for :mod:`rmqlab.widgets` (source checkouts only).

The views are installed and imported as ``rmqlab.widgets`` (pyproject.toml maps this folder there), so that a
student's own ``widgets.py`` beside the labs cannot hide them. Until every lab, test and benchmark says
``rmqlab.widgets`` (``python tools/rename_widgets_imports.py`` rewrites them), a checkout on ``PYTHONPATH`` still
finds this folder as ``widgets``: importing this module then makes ``widgets`` and every ``widgets.X`` the very
module objects of ``rmqlab.widgets`` and ``rmqlab.widgets.X``. One module under two names, never two copies: a
class, an anywidget registration or a monkeypatch seen under one name is the same under the other.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType

OLD = "widgets"
NEW = "rmqlab.widgets"


class OldNameFinder(MetaPathFinder, Loader):
    """Finds ``widgets.X`` by importing ``rmqlab.widgets.X`` and handing back that same module object."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if not fullname.startswith(f"{OLD}."):
            return None
        return ModuleSpec(fullname, self)

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        # the import system keeps an existing module's __name__, __spec__ and __file__ (it only fills in what is None)
        return importlib.import_module(NEW + spec.name[len(OLD) :])

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module ran once, under its new name."""


def alias_old_name() -> None:
    """Make ``sys.modules['widgets']`` the ``rmqlab.widgets`` package; ``widgets.X`` then comes from the finder."""
    if not any(isinstance(finder, OldNameFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, OldNameFinder())
    # read back by the import system when widgets/__init__.py finishes: `import widgets` returns rmqlab.widgets
    sys.modules[OLD] = importlib.import_module(NEW)


alias_old_name()
