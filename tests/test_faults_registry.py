"""The one fault registry (rmqlab/lab/faults/) agrees with the schema file, the docs and the Lab's methods."""

from __future__ import annotations

import inspect
import sys
from pathlib import Path
from typing import Any

import pytest

from rmqlab import Lab, load_scenario
from rmqlab.client.consumer.default_mq_push_consumer import DefaultMQPushConsumer
from rmqlab.common.message_queue import MessageQueue
from rmqlab.lab import faults
from rmqlab.lab.scenario import scenario_schema

ROOT = Path(__file__).resolve().parents[1]
SCHEMA_FILE = ROOT / "rmqlab" / "lab" / "scenario" / "scenario.schema.json"

# kind → (the entry's fields besides at/kind, the call it must make: (qualname, args, kwargs)); written out by hand
EXAMPLES: dict[str, tuple[dict[str, Any], tuple[str, tuple[Any, ...], dict[str, Any]]]] = {
    "broker_down": ({"broker": "broker-b"}, ("Lab.broker_down", ("broker-b",), {})),
    "broker_up": ({"broker": "broker-b"}, ("Lab.broker_up", ("broker-b",), {})),
    "broker_slow": (
        {"broker": "broker-b", "response_delay_ms": "4s"},
        ("Lab.set_broker_fault", ("broker-b",), {"response_delay_ms": "4s"}),
    ),
    "lose_responses": ({"broker": "broker-b"}, ("Lab.set_broker_fault", ("broker-b",), {"lose_responses": True})),
    "flush_timeout": (
        {"broker": "broker-b"},
        ("Lab.set_broker_fault", ("broker-b",), {"put_status": "FLUSH_DISK_TIMEOUT"}),
    ),
    "send_back_failure": (
        {"broker": "broker-b", "code": "SYSTEM_BUSY", "remark": "busy"},
        ("Lab.set_broker_fault", ("broker-b",), {"send_back_error": "SYSTEM_BUSY", "send_back_remark": "busy"}),
    ),
    "send_error": (
        {"broker": "broker-b", "code": "SYSTEM_BUSY"},
        ("Lab.set_broker_fault", ("broker-b",), {"send_error": "SYSTEM_BUSY"}),
    ),
    "offset_query_failure": (
        {"broker": "broker-b", "remark": "disk full"},
        (
            "Lab.set_broker_fault",
            ("broker-b",),
            {"query_offset_error": "SYSTEM_ERROR", "query_offset_remark": "disk full"},
        ),
    ),
    "pull_error": (
        {"broker": "broker-b", "code": "FLOW_CONTROL"},
        ("Lab.set_broker_fault", ("broker-b",), {"pull_error": "FLOW_CONTROL", "pull_remark": None}),
    ),
    "send_responses": (
        {"broker": "broker-b", "responses": ["SYSTEM_ERROR", {"code": "SUCCESS"}]},
        ("Lab.set_broker_fault", ("broker-b",), {"send_responses": ["SYSTEM_ERROR", {"code": "SUCCESS"}]}),
    ),
    "partition": ({"client": "c1", "broker": "broker-b"}, ("Lab.partition", ("c1", "broker-b"), {})),
    "heal": ({"client": "pg", "broker": "broker-b"}, ("Lab.partition", ("pg", "broker-b"), {"heal": True})),
    "consumer_crash": ({"consumer": "c1"}, ("DefaultMQPushConsumer.crash", (), {})),
    "consumer_restart": ({"consumer": "c1"}, ("DefaultMQPushConsumer.start", (), {})),
    "consumer_add": ({"consumer": "c2"}, ("DefaultMQPushConsumer.start", (), {})),
    "consumer_remove": ({"consumer": "c1"}, ("DefaultMQPushConsumer.shutdown", (), {})),
    "consumer_suspend": ({"consumer": "c1"}, ("DefaultMQPushConsumer.suspend", (), {})),
    "consumer_resume": ({"consumer": "c1"}, ("DefaultMQPushConsumer.resume", (), {})),
    "update_topic": (
        {"topic": "T", "read_queues": 2, "perm": 6, "brokers": ["broker-a"]},
        ("Lab.update_topic", ("T",), {"read_queues": 2, "perm": 6, "brokers": ["broker-a"]}),
    ),
    "update_subscription_group": (
        {"group": "cg", "retry_queue_nums": 2},
        ("Lab.update_subscription_group", ("cg",), {"retry_queue_nums": 2}),
    ),
    "update_broker_config": (
        {"broker": "broker-b", "broker_permission": 4},
        ("Lab.update_broker_config", ("broker-b",), {"broker_permission": 4}),
    ),
    "update_consumer_offset": (
        {"group": "cg", "topic": "T", "broker": "broker-b", "queue_id": 1, "offset": 5},
        ("Lab.update_consumer_offset", ("cg", MessageQueue("T", "broker-b", 1), 5), {}),
    ),
    "clone_group_offset": (
        {"src_group": "cg", "dest_group": "audit", "topic": "T"},
        ("Lab.clone_group_offset", ("cg", "audit", "T"), {}),
    ),
    "consume_message_directly": (
        {"consumer": "c1", "broker": "broker-b", "topic": "%DLQ%cg", "msg_id": "M0001"},
        ("Lab.consume_message_directly", ("c1", "broker-b", "%DLQ%cg", "M0001"), {}),
    ),
}


def _unbound(target: str) -> Any:
    owner, method = target.split(".")
    return getattr({"Lab": Lab, "DefaultMQPushConsumer": DefaultMQPushConsumer}[owner], method)


def test_every_kind_has_a_hand_written_example() -> None:
    assert [f.kind for f in faults.FAULTS] == list(EXAMPLES)


def test_schema_file_is_generated_from_the_registry() -> None:
    """The shipped file's fault definition is the registry's, byte for byte (``python -m rmqlab.lab.faults`` writes
    it)."""
    text = SCHEMA_FILE.read_text(encoding="utf-8")
    assert text == faults.schema_file_text(text), "run: python -m rmqlab.lab.faults"
    fault = scenario_schema()["$defs"]["fault"]
    assert fault == faults.fault_schema()
    assert fault["properties"]["kind"]["enum"] == list(EXAMPLES)


@pytest.mark.parametrize("fault", faults.FAULTS, ids=lambda f: f.kind)
def test_each_kind_calls_a_real_method_with_arguments_it_accepts(fault: faults.Fault) -> None:
    """The target exists, its docstring is there, and the call the registry makes binds to its signature."""
    method = _unbound(fault.target)
    assert method.__qualname__ == fault.target and method.__doc__
    assert fault.doc and "\n" not in fault.doc
    fields, (qualname, args, kwargs) = EXAMPLES[fault.kind]
    assert qualname == fault.target
    assert fault.call_arguments({"at": 0, "kind": fault.kind, **fields}) == (args, kwargs)
    receiver = object()  # stands for the Lab or the consumer
    inspect.signature(method).bind(receiver, *args, **kwargs)
    required = {p.name: fields.get(p.name, "x") for p in fault.params if p.required}
    minimal_args, minimal_kwargs = fault.call_arguments({"kind": fault.kind, **required})
    inspect.signature(method).bind(receiver, *minimal_args, **minimal_kwargs)


def test_fault_targets_are_exactly_the_registry_s() -> None:
    assert {f.target for f in faults.FAULTS} == faults.FAULT_TARGETS
    lab = Lab()
    assert faults.is_fault_call(lab.broker_down) and faults.is_fault_call(lab.set_broker_fault)
    assert not faults.is_fault_call(lab.add_broker) and not faults.is_fault_call(lambda: lab.broker_down("x"))


def test_a_scenario_dispatches_each_kind_through_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every kind in one scenario file: each entry makes exactly its hand-written call, in file order (after c1's
    own start at build)."""
    calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []
    for target in sorted(faults.FAULT_TARGETS):
        owner, name = target.split(".")

        def spy(self: Any, *args: Any, _target: str = target, **kwargs: Any) -> None:
            calls.append((_target, args, kwargs))

        monkeypatch.setattr({"Lab": Lab, "DefaultMQPushConsumer": DefaultMQPushConsumer}[owner], name, spy)
    data = {
        "name": "every fault",
        "brokers": ["broker-a", "broker-b"],
        "topics": [{"name": "T"}],
        "producers": [{"name": "pg"}],
        "consumers": [
            {"group": "cg", "name": "c1", "subscribe": {"T": "*"}},
            {"group": "cg", "name": "c2", "subscribe": {"T": "*"}, "start": None},
        ],
        "faults": [
            {"at": 1000 + 10 * i, "kind": kind, **fields} for i, (kind, (fields, _)) in enumerate(EXAMPLES.items())
        ],
        "run_until": "1m",
    }
    scenario = load_scenario(data)
    calls.clear()
    scenario.run()
    assert calls == [("DefaultMQPushConsumer.start", (), {}), *(call for _, call in EXAMPLES.values())]


def test_docs_reference_lists_every_kind_its_call_and_fields() -> None:
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import build_docs
    finally:
        sys.path.remove(str(ROOT / "docs"))
    text = build_docs.scenario_reference()
    for fault in faults.FAULTS:
        section = text.split(f"### {fault.kind}\n", 1)[1].split("\n### ", 1)[0]
        assert f"Calls `{fault.target}`." in section and fault.doc in section
        assert all(f"| `{p.name}` |" in section for p in fault.params), fault.kind


def test_the_dashboard_fault_vocabulary_is_the_registry() -> None:
    """rmqlab.widgets.replay.FAULT_KINDS is the registry's kinds with a dashboard label; each has only name fields, so a
    click needs nothing else; the controller has one button per kind and sorts targets by the registry's refs."""
    from rmqlab.widgets import controller, replay

    dashboard = {fault.kind: fault.dashboard for fault in faults.FAULTS if fault.dashboard}
    assert dashboard == replay.FAULT_KINDS
    assert dashboard == {
        "broker_down": "crash",
        "broker_up": "restart",
        "partition": "partition",
        "heal": "heal",
        "consumer_crash": "crash consumer",
        "consumer_restart": "restart consumer",
    }
    for kind in dashboard:
        assert [p.ref for p in faults.BY_KIND[kind].params] in (["broker"], ["consumer"], ["client", "broker"]), kind
    assert (controller.BROKER_FAULTS, controller.CONSUMER_FAULTS, controller.LINK_FAULTS) == (
        ("broker_down", "broker_up"),
        ("consumer_crash", "consumer_restart"),
        ("partition", "heal"),
    )
    assert set(controller.Controller(None).fault_buttons) == set(dashboard)
    with pytest.raises(ValueError, match=r"kind='consumer_start' is not a fault; expected one of \['broker_down'"):
        replay.InjectedFault(0, "consumer_start", "c1")


def test_an_injected_fault_is_dispatched_as_the_scenario_entry_of_its_kind(monkeypatch: pytest.MonkeyPatch) -> None:
    """InjectedFault.apply goes through faults.apply with the entry a scenario file would hold: the same call."""
    from rmqlab.widgets.replay import InjectedFault

    applied: list[dict[str, Any]] = []
    monkeypatch.setattr(faults, "apply", lambda lab, spec: applied.append(dict(spec)))
    lab = Lab(seed=1)
    for fault in (InjectedFault(5, "broker_down", "broker-a"), InjectedFault(5, "consumer_restart", "c1"),
                  InjectedFault(5, "heal", "pg", broker="broker-b")):  # fmt: skip
        fault.apply(lab)
    assert applied == [
        {"kind": "broker_down", "broker": "broker-a"},
        {"kind": "consumer_restart", "consumer": "c1"},
        {"kind": "heal", "client": "pg", "broker": "broker-b"},
    ]
    for spec in applied:
        fields = {k: v for k, v in spec.items() if k != "kind"}
        assert fields == EXAMPLES[spec["kind"]][0] | fields and set(fields) == set(EXAMPLES[spec["kind"]][0])
