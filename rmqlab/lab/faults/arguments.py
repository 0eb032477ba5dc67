"""How a scenario entry's fields become the arguments of its Lab call, for the kinds where they are not simply one
keyword per field (:attr:`Fault.arguments <rmqlab.lab.faults.fault.Fault.arguments>`): an error code that also clears
the fault, or a queue named by three fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...common.message_queue import MessageQueue

__all__ = ["consumer_offset", "offset_query_failure", "pull_error", "send_back_failure"]


def offset_query_failure(spec: Mapping[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """``code`` (SYSTEM_ERROR by default) and ``remark``; SUCCESS clears the fault."""
    code = spec.get("code", "SYSTEM_ERROR")
    if code == "SUCCESS":
        return (spec["broker"],), {"query_offset_error": None}
    return (spec["broker"],), {"query_offset_error": code, "query_offset_remark": spec.get("remark")}


def pull_error(spec: Mapping[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """``code`` and ``remark``; SUCCESS clears the fault."""
    if spec["code"] == "SUCCESS":
        return (spec["broker"],), {"pull_error": None}
    return (spec["broker"],), {"pull_error": spec["code"], "pull_remark": spec.get("remark")}


def send_back_failure(spec: Mapping[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """With ``code``: that answer (and ``remark``); without: the plain SYSTEM_ERROR refusal (``reject_send_back``)."""
    if "code" in spec:
        return (spec["broker"],), {"send_back_error": spec["code"], "send_back_remark": spec.get("remark")}
    return (spec["broker"],), {"reject_send_back": spec.get("reject_send_back", True)}


def consumer_offset(spec: Mapping[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """``group``, the queue as ``topic`` + ``broker`` + ``queue_id``, and ``offset``."""
    mq = MessageQueue(spec["topic"], spec["broker"], spec["queue_id"])
    return (spec["group"], mq, spec["offset"]), {}
