"""The registry's table: every fault kind and timed ``mqadmin`` command, in the order the schema and the docs
list them, with the fields each takes.

The kinds are written by family: :mod:`.broker_faults`, :mod:`.client_faults`, :mod:`.admin_commands`; the
shared schema pieces in :mod:`.fields`.

Each kind calls one method, ``Lab.<method>`` or ``DefaultMQPushConsumer.<method>``; the table is the one place
a kind's fields, types, ranges and docstring are written.
"""

from __future__ import annotations

from .admin_commands import ADMIN_COMMANDS
from .broker_faults import BROKER_FAULTS
from .client_faults import CLIENT_FAULTS
from .fault import Fault
from .fields import DURATION

__all__ = ["BY_KIND", "DURATION", "FAULTS", "FAULT_TARGETS"]


FAULTS: tuple[Fault, ...] = (*BROKER_FAULTS, *CLIENT_FAULTS, *ADMIN_COMMANDS)
"""Every fault kind, in the order the schema and the docs list them."""

BY_KIND: dict[str, Fault] = {fault.kind: fault for fault in FAULTS}
FAULT_TARGETS = frozenset(fault.target for fault in FAULTS)
"""The ``__qualname__`` of every method the registry calls: ``lab.at`` runs these at Priority.FAULT."""
