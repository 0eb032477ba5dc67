"""``PutMessageStatus``: what the store answers a put, and the response code each status becomes.

Also the parsers for the response codes a teacher scripts (``send_responses``, ``send_back_error``).

Mirrors: store/src/main/java/org/apache/rocketmq/store/PutMessageStatus.java
    (PutMessageStatus)
Mirrors: broker/src/main/java/org/apache/rocketmq/broker/processor/SendMessageProcessor.java
    (SendMessageProcessor.handlePutMessageResult)
"""

from __future__ import annotations

from enum import StrEnum

from ..core import reasons
from ..core.errors import ConfigError
from ..remoting.response_code import ResponseCode

__all__ = [
    "PutMessageStatus",
    "is_failed_put",
    "parse_response_code",
    "parse_send_responses",
]


class PutMessageStatus(StrEnum):
    """``PutMessageStatus`` of 4.9.7, all eleven (the ``put_status`` fault makes the store answer one)."""

    PUT_OK = "PUT_OK"
    FLUSH_DISK_TIMEOUT = "FLUSH_DISK_TIMEOUT"
    FLUSH_SLAVE_TIMEOUT = "FLUSH_SLAVE_TIMEOUT"
    SLAVE_NOT_AVAILABLE = "SLAVE_NOT_AVAILABLE"
    SERVICE_NOT_AVAILABLE = "SERVICE_NOT_AVAILABLE"
    CREATE_MAPEDFILE_FAILED = "CREATE_MAPEDFILE_FAILED"
    MESSAGE_ILLEGAL = "MESSAGE_ILLEGAL"
    PROPERTIES_SIZE_EXCEEDED = "PROPERTIES_SIZE_EXCEEDED"
    OS_PAGECACHE_BUSY = "OS_PAGECACHE_BUSY"
    UNKNOWN_ERROR = "UNKNOWN_ERROR"
    LMQ_CONSUME_QUEUE_NUM_EXCEEDED = "LMQ_CONSUME_QUEUE_NUM_EXCEEDED"


_PUT_STATUS_CODE = {
    PutMessageStatus.PUT_OK: ResponseCode.SUCCESS,
    PutMessageStatus.FLUSH_DISK_TIMEOUT: ResponseCode.FLUSH_DISK_TIMEOUT,
    PutMessageStatus.FLUSH_SLAVE_TIMEOUT: ResponseCode.FLUSH_SLAVE_TIMEOUT,
    PutMessageStatus.SLAVE_NOT_AVAILABLE: ResponseCode.SLAVE_NOT_AVAILABLE,
}


_STORED_CODES = frozenset(
    {
        ResponseCode.SUCCESS,
        ResponseCode.FLUSH_DISK_TIMEOUT,
        ResponseCode.FLUSH_SLAVE_TIMEOUT,
        ResponseCode.SLAVE_NOT_AVAILABLE,
    }
)
"""Codes ``MQClientAPIImpl.processSendResponse`` turns into a SendResult (the message is stored); any other throws."""


def parse_response_code(value: object, parameter: str, *, allow_success: bool = True) -> ResponseCode:
    """A ``ResponseCode`` named by ``value`` (its name, e.g. ``"SYSTEM_ERROR"``), else a ConfigError."""
    names = [c.name for c in ResponseCode if allow_success or c is not ResponseCode.SUCCESS]
    if isinstance(value, str) and value in names:
        return ResponseCode[value]
    raise ConfigError(parameter, value, "one of " + ", ".join(names))


def parse_send_responses(value: object) -> list[tuple[ResponseCode, str]]:
    """``send_responses``: a list of code names or ``{"code": NAME, "remark": TEXT}``, one per SEND_MESSAGE."""
    if not isinstance(value, list | tuple):
        raise ConfigError("send_responses", value, "a list of response code names or {code, remark} mappings")
    out: list[tuple[ResponseCode, str]] = []
    for i, item in enumerate(value):
        where = f"send_responses[{i}]"
        remark: object = None
        if isinstance(item, dict):
            unknown = sorted(set(item) - {"code", "remark"})
            if unknown or "code" not in item:
                raise ConfigError(where, item, "a code name or a mapping with 'code' and an optional 'remark'")
            code_value, remark = item["code"], item.get("remark")
        else:
            code_value = item
        code = parse_response_code(code_value, f"{where}.code" if isinstance(item, dict) else where)
        if remark is not None and not isinstance(remark, str):
            raise ConfigError(f"{where}.remark", remark, "a string (the response's remark)")
        out.append((code, reasons.INJECTED_FAULT.format(code=code.name) if remark is None else remark))
    return out


_ILLEGAL = (
    ResponseCode.MESSAGE_ILLEGAL,
    "the message is illegal, maybe msg body or properties length not matched. msg body length limit 4194304B, "
    "msg properties length limit 32KB.",
)
_PUT_STATUS_ERROR: dict[PutMessageStatus, tuple[ResponseCode, str]] = {
    PutMessageStatus.CREATE_MAPEDFILE_FAILED: (
        ResponseCode.SYSTEM_ERROR,
        "create mapped file failed, server is busy or broken.",
    ),
    PutMessageStatus.MESSAGE_ILLEGAL: _ILLEGAL,
    PutMessageStatus.PROPERTIES_SIZE_EXCEEDED: _ILLEGAL,
    PutMessageStatus.SERVICE_NOT_AVAILABLE: (
        ResponseCode.SERVICE_NOT_AVAILABLE,
        "service not available now. It may be caused by one of the following reasons: the broker's disk is full "
        "[CL: 0.95 CQ: 0.95 INDEX: 0.95], messages are put to the slave, message store has been shut down, etc.",
    ),
    PutMessageStatus.OS_PAGECACHE_BUSY: (
        ResponseCode.SYSTEM_ERROR,
        "[PC_SYNCHRONIZED]broker busy, start flow control for a while",
    ),
    PutMessageStatus.LMQ_CONSUME_QUEUE_NUM_EXCEEDED: (
        ResponseCode.SYSTEM_ERROR,
        "[LMQ_CONSUME_QUEUE_NUM_EXCEEDED]broker config enableLmq and enableMultiDispatch, lmq consumeQueue num "
        "exceed maxLmqConsumeQueueNum config num, default limit 2w.",
    ),
    PutMessageStatus.UNKNOWN_ERROR: (ResponseCode.SYSTEM_ERROR, "UNKNOWN_ERROR"),
}
"""``SendMessageProcessor.handlePutMessageResult``: a failed put's response code and remark (nothing stored;
maxMessageSize 4 MiB; the disk ratios of ``diskUtil()`` are shown as 0.95, a full disk)."""


def is_failed_put(status: PutMessageStatus) -> bool:
    """A status with nothing stored (the seven failing ones): anything but PUT_OK and the flush / slave statuses."""
    return status in _PUT_STATUS_ERROR
