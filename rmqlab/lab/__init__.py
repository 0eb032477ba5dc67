"""The Lab facade and what drives it: :class:`Lab` builds a cluster and injects faults (``lab``, ``fault_injection``,
``admin`` for the mqadmin commands), the fault registry (``faults``), scenario files (``scenario``), the report and the
command line (``report``, ``cli``) and the notebooks' trace tables (``trace_table``).

RocketMQ has no such module: this is the classroom's side of the glass.
"""

from .lab import Lab

__all__ = ["Lab"]
