"""A knob's label in plain words, its Python keyword under it: what the student reads, and what a lab cell passes.

The knobs read ``retry_another_broker_when_not_store_ok``, ``broker_b_too``, ``max_reconsume_times`` (revA item 18):
identifiers, in the English and the Chinese lab alike. Each knob now shows a plain label ("retry another broker
when not stored OK", "未存储成功时换 Broker 重试") and, smaller after it and in its tooltip, the keyword
itself, which the lab's text names and ``dash.rebuild(max_reconsume_times=2)`` takes: the knob's name (the key of
``Dashboard.knobs``) stays that keyword. A knob the table below does not know reads its keyword with spaces.

Mirrors no 4.9.7 class: the knobs are the labs' factories' parameters (several are a client's or broker's setting:
``DefaultMQPushConsumer.maxReconsumeTimes``, ``DefaultMQProducer.retryAnotherBrokerWhenNotStoreOK``).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

import ipywidgets as W

from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _

__all__ = ["KNOB_LABELS", "knob_description", "knob_label", "knob_widget"]

KNOB_LABELS: dict[str, str] = {
    "ack_index": N_("ackIndex (last consumed in the batch)"),
    "auto_commit": N_("commit on SUCCESS (autoCommit)"),
    "batch": N_("messages per batch"),
    "broker_b_too": N_("broker-b answers the same"),
    "c2_start_s": N_("c2 starts at (s)"),
    "consume_thread_min": N_("consume threads"),
    "crash_at_ms": N_("crash at (ms)"),
    "crash_at_s": N_("crash at (s)"),
    "events": N_("events per order"),
    "failures": N_("failures per message"),
    "first_max": N_("first consumer's max reconsume times"),
    "second_max": N_("second consumer's max reconsume times"),
    "heal_at": N_("link heals at"),
    "listener": N_("listener"),
    "listener_seconds": N_("listener time per message (s)"),
    "max_reconsume_times": N_("max reconsume times"),
    "message_model": N_("message model"),
    "model": N_("message model"),
    "messages": N_("messages"),
    "mode": N_("send mode"),
    "orders": N_("orders"),
    "per_topic": N_("messages per topic"),
    "reject_send_back": N_("broker refuses send-backs"),
    "response_delay_ms": N_("response delay (ms)"),
    "response_delay_s": N_("response delay (s)"),
    "restart_at_ms": N_("restart at (ms)"),
    "restart_at_s": N_("restart at (s)"),
    "retry_another_broker_when_not_store_ok": N_("retry another broker when not stored OK"),
    "retry_queue_nums": N_("retry queues"),
    "selector": N_("queue selector"),
    "send_error": N_("broker-a's error answer"),
    "send_latency_fault_enable": N_("latency fault tolerance"),
    "sends": N_("sends"),
    "update_topic_at_s": N_("topic updated at (s)"),
}
"""Each knob of the labs by its keyword: the plain label (translated when shown)."""

KEYWORD_STYLE = "font-family:var(--jp-code-font-family, monospace);font-size:0.85em;opacity:0.75"


def knob_label(name: str) -> str:
    """The plain label of knob ``name``, in the current language (unknown: the keyword with spaces)."""
    return _(KNOB_LABELS[name]) if name in KNOB_LABELS else name.replace("_", " ")


def knob_description(name: str) -> str:
    """The knob's description as HTML: its plain label, then its keyword, smaller and quieter, when it reads
    otherwise ("messages" is its own keyword). On the same line: an ipywidgets label is one line high, a second
    line was cut off (and ``<br>`` is ignored there: it read "messagesmessages")."""
    label = html.escape(knob_label(name))
    if knob_label(name) == name.replace("_", " "):
        return label
    return f'{label} <span style="{KEYWORD_STYLE}">{html.escape(name)}</span>'


def knob_widget(name: str, default: Any, options: Sequence[Any] | None = None) -> W.ValueWidget:
    """The input widget for one knob: its plain label, its keyword under it and in its tooltip
    (:mod:`widgets.knob_labels`); the widget's name stays the keyword a lab passes.

    Not ipywidgets' fixed 300 px row: a label of 302 px ("listener time per message (s) listener_seconds") left
    its IntText 10 px, no digit showing (revD 1). The row is as wide as label and input (``width: auto``), and the
    ``rq-knob`` class lets the player's CSS (``scene.js``, ``PLAYER_CSS``) keep the input at least 6.5 em wide
    (seven digits) and wrap the label instead when the row is narrow."""
    tip = _("{label} ({name}): changes take effect on Rebuild").format(label=knob_label(name), name=name)
    named = {"description": knob_description(name), "description_allow_html": True, "tooltip": tip}
    style = {"description_width": "initial"}
    if isinstance(default, bool) and options is None:
        widget: W.ValueWidget = W.Checkbox(value=default, indent=False, layout=W.Layout(width="auto"), **named)
        return widget  # not cut at 300 px
    sized = {"style": style, "layout": W.Layout(width="auto", max_width="100%"), **named}
    if options is not None:
        widget = W.Dropdown(options=list(options), value=default, **sized)
    elif isinstance(default, int):
        widget = W.IntText(value=default, **sized)
    elif isinstance(default, float):
        widget = W.FloatText(value=default, **sized)
    else:
        widget = W.Text(value=str(default), **sized)
    widget.add_class("rq-knob")
    return widget
