"""nbgrader's ``Execute`` step, with each submission's kernel started in the autograde sandbox.

nbgrader 0.9 autogrades with its ``Execute`` preprocessor (nbconvert's ``ExecutePreprocessor``, nbclient underneath):
it asks a kernel manager for the notebook's kernel (``Execute.kernel_name``, else the notebook's kernelspec, which
autograde first resets to the one of the teacher's source) and starts the kernelspec's command in the folder it
grades the submission in (its autograded copy). :class:`SandboxedExecute` takes that same command and starts it
through :mod:`rmqlab.course.sandbox`, told to hide the teacher's home, the course directory and nbgrader's exchange.
It is used only where ``labs/nbgrader_config.py`` lists it, in ``Autograde.autograde_preprocessors``: nothing needs
installing, no extra kernel shows in anyone's launcher, and ``nbgrader validate`` (the teacher checking their own
labs) is unchanged.

Before each submission it checks that this machine can confine a kernel, and stops with
:class:`rmqlab.course.sandbox.SandboxUnavailable` (which names the setting to change) rather than run a student's
code as the teacher. ``c.SandboxedExecute.confine = False`` in ``nbgrader_config.py`` turns the sandbox off: then
autograde runs as nbgrader does by default.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from nbgrader.preprocessors import Execute  # type: ignore[import-untyped]
from traitlets import Bool

from .sandbox import check

__all__ = ["DEFAULT_EXCHANGE", "SandboxedExecute"]

DEFAULT_EXCHANGE = "/srv/nbgrader/exchange"
"""nbgrader's own default ``Exchange.root``."""


class SandboxedExecute(Execute):  # type: ignore[misc]  # nbgrader has no type hints
    """nbgrader's ``Execute``, with the kernel confined by :mod:`rmqlab.course.sandbox`."""

    confine = Bool(
        True,
        help="Run each submission's kernel in the sandbox (the teacher's files hidden). False autogrades "
        "unconfined, as nbgrader does by default: a submission's code can then read and change your files.",
    ).tag(config=True)

    def hidden_folders(self) -> list[str]:
        """What the kernel must not see: the teacher's home, the course directory (nbgrader runs each conversion in
        it), the exchange (every student's submissions) and any ``Exchange.root`` the config names."""
        exchange = self.config.Exchange.get("root") or DEFAULT_EXCHANGE
        return [str(Path.home()), os.getcwd(), str(exchange)]

    def preprocess(self, nb: Any, resources: Any = None, km: Any = None) -> Any:
        if self.confine:
            check()  # raises SandboxUnavailable, naming the setting: fail closed, never run unconfined
        return super().preprocess(nb, resources, km)

    def create_kernel_manager(self) -> Any:
        """The kernel manager nbclient would use, its kernelspec's command prefixed by the sandbox launcher."""
        km = super().create_kernel_manager()
        spec = km.kernel_spec
        if self.confine and spec is not None:
            hide = [arg for folder in self.hidden_folders() for arg in ("--hide", folder)]
            spec.argv = [sys.executable, "-m", "rmqlab.course.sandbox", *hide, "--", *spec.argv]
        return km
