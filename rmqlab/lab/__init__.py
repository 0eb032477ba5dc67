"""The Lab facade and what drives it: :class:`Lab` builds a cluster and injects faults (``lab``, ``fault_injection``,
``admin`` for the mqadmin commands), the fault registry (``faults``), scenario files (``scenario``), the report and the
command line (``report``, ``cli``, ``labs_command``) and the notebooks' trace tables (``trace_table``).

RocketMQ has no such module: this is the classroom's side of the glass.

:class:`Lab` is imported on first use (PEP 562), so that the command line (``rmqlab.lab.cli``) starts without
loading the engine for ``--version``, ``schema`` or ``labs``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .lab import Lab

__all__ = ["Lab"]


def __getattr__(name: str) -> object:
    if name == "Lab":
        from .lab import Lab

        return Lab
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
