"""The message-flow view-model and scene, headless: token places equal the engine's state at that step."""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from rmqlab.widgets.controller import Controller
from rmqlab.widgets.demo import demo_lab
from rmqlab.widgets.flow_layout import FLOW_CSS, R, token_text
from rmqlab.widgets.flow_view import FlowView, FlowVM, countdown, flow_scene, flow_view_model
from rmqlab.widgets.palette import TOKEN_COLOURS, token_colour
from rmqlab.widgets.replay import Replay
from rmqlab.widgets.scene import Scene, text_width
from view_checks import overlapping_texts

from rmqlab import ConsumeConcurrentlyStatus as C
from rmqlab import ConsumeOrderlyStatus as CO
from rmqlab import EventKind as K
from rmqlab import Lab, Message, SelectMessageQueueByHash, load_scenario
from rmqlab.common.message import SCHEDULE_TOPIC

ROOT = Path(__file__).resolve().parents[1]


def sixteen_retries() -> Lab:
    """One message, a listener that always answers RECONSUME_LATER: 17 deliveries, then %DLQ%cg."""
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=4)
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=lambda msgs, ctx: C.RECONSUME_LATER, name="c1")
    lab.at(0, producer.send, Message("TopicTest", "hello"))
    return lab


def retry_queue_nums_0() -> Lab:
    """``updateSubGroup -q 0``: the send-back answers SUCCESS and stores nothing."""
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=2)
    lab.update_subscription_group("cg", retry_queue_nums=0)
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=lambda msgs, ctx: C.RECONSUME_LATER, name="c1")
    lab.at(0, producer.send, Message("T", "x"))
    return lab


def two_brokers_one_down() -> Lab:
    """Two brokers, two instances of cg; broker-b goes down at 25.025 s while messages are in flight."""
    lab = Lab(seed=3)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("T", queues=2)
    producer = lab.add_producer("pg")

    def first_fails(msgs: list, ctx: object) -> C:
        return C.RECONSUME_LATER if msgs[0].reconsume_times < 1 else C.CONSUME_SUCCESS

    lab.add_consumer("cg", subscribe={"T": "*"}, listener=first_fails, name="c1")
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=lambda msgs, ctx: C.CONSUME_SUCCESS, name="c2")
    for i in range(6):
        lab.at(25_000 + 10 * i, producer.send, Message("T", f"x{i}"))
    lab.at("25025ms", lab.broker_down, "broker-b")
    return lab


def engine_places(lab: Lab) -> dict[str, list[str]]:
    """Where the engine holds messages right now, read from its live objects (what the view must show)."""
    places: dict[str, list[str]] = {}
    for cid, c in lab.consumers.items():
        if not c.running:
            continue
        for mq, pq in c.process_queue_table.items():
            if pq.dropped:
                continue
            ids = [m.msg_id for m in pq.msg_tree_map.values()] + [
                m.msg_id for m in pq.consuming_msg_orderly_tree_map.values()
            ]
            if ids:
                places[f"pq:{cid}:{mq}"] = sorted(ids)
    for name, b in lab.brokers.items():
        service = b.schedule_service
        for level in range(1, service.levels.max_level + 1):
            cq = b.message_store.find_consume_queue(SCHEDULE_TOPIC, level - 1)
            if cq is None:
                continue
            ids = [
                b.commit_log.get(cq.entries[o].commit_log_offset).msg_id  # type: ignore[union-attr]
                for o in range(service.offset_table.get(level, 0), cq.max_offset)
            ]
            if ids:
                places[f"delay:{name}:{level}"] = sorted(ids)
        for (topic, qid), cq in b.consume_queues.items():
            if topic.startswith("%DLQ%") and cq.max_offset:
                mq = next(str(m) for m in _queues(lab, topic, name, qid))
                places["queue:" + mq] = sorted(
                    b.commit_log.get(e.commit_log_offset).msg_id
                    for e in cq.entries  # type: ignore[union-attr]
                )
    return places


def _queues(lab: Lab, topic: str, broker: str, qid: int) -> list[object]:
    from rmqlab.common.message_queue import MessageQueue

    return [MessageQueue(topic, broker, qid)]


def vm_places(vm: FlowVM, kinds: tuple[str, ...] = ("pulled", "consuming", "delayed", "dead")) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for t in vm.tokens:
        if t.state in kinds:
            out.setdefault(t.place, []).append(t.msg_id)
    return {k: sorted(v) for k, v in out.items()}


def assert_matches_engine(replay: Replay) -> FlowVM:
    """Tokens in ProcessQueues, delay levels and DLQs are exactly the engine's messages there."""
    vm = flow_view_model(replay.snapshot())
    assert vm_places(vm) == engine_places(replay.lab)
    assert len({t.key for t in vm.tokens}) == len(vm.tokens)
    return vm


# --------------------------------------------------------------------------- the 16-retry schedule
def test_first_failure_puts_the_token_in_the_level_3_slot_due_in_10_s() -> None:
    """After RECONSUME_LATER the broker parks the copy at level 3 (3 + reconsumeTimes): due in exactly 10 s."""
    replay = Replay(sixteen_retries)
    assert replay.jump_to_next(K.SEND_BACK)
    vm = assert_matches_engine(replay)
    (token,) = vm.tokens
    assert (token.key, token.place, token.state) == ("msg:cg:M0001", "delay:broker-a:3", "delayed")
    assert (token.reconsume_times, token.due_ms, token.countdown) == (1, 10_000, "due in 10 s")
    assert vm.place("delay:broker-a:3").label == "level 3 · 10 s"
    scene = flow_scene(vm)
    assert scene.mark("due:msg:cg:M0001").text == "due in 10 s"
    assert scene.mark("msg:cg:M0001").text == "1"
    halo = scene.mark("focus:msg:cg:M0001")  # the latest event (the send-back) is about M0001
    assert (halo.x, halo.y) == (scene.mark("msg:cg:M0001").x, scene.mark("msg:cg:M0001").y)


def test_the_same_token_travels_queue_pq_delay_retry_pq_and_ends_in_the_dlq() -> None:
    """One key, msg:cg:M0001, through every place of the retry machinery; the engine agrees at each stop."""
    replay = Replay(sixteen_retries)
    seen: list[tuple[str, str, int]] = []
    scene_positions: list[tuple[float, float]] = []
    while True:
        vm = assert_matches_engine(replay)
        if vm.tokens:
            (t,) = vm.tokens
            assert t.key == "msg:cg:M0001"
            if not seen or seen[-1][:2] != (t.place, t.state):
                seen.append((t.place, t.state, t.reconsume_times))
                m = flow_scene(vm).mark(t.key)
                scene_positions.append((m.x, m.y))
        if not replay.step_once():
            break
    assert seen[0][0] == "pq:c1:TopicTest@broker-a:2"
    assert seen[1] == ("delay:broker-a:3", "delayed", 1)
    assert seen[2] == ("pq:c1:%RETRY%cg@broker-a:0", "pulled", 1)  # the schedule hop and the pull share a step
    delays = [(place, rt) for place, state, rt in seen if state == "delayed"]
    assert delays == [(f"delay:broker-a:{level}", level - 2) for level in range(3, 19)]
    assert len(seen) == 1 + 16 * 2 + 1
    assert seen[-1] == ("queue:%DLQ%cg@broker-a:0", "dead", 17)
    assert len(set(scene_positions)) >= 3  # the token really moves between places
    end = flow_view_model(replay.snapshot())
    assert end.counts() == {"dead": 1}


def test_countdown_text() -> None:
    assert [countdown(ms) for ms in (10_000, 7_300, 0, 125_000, 59_990)] == [
        "due in 10 s",
        "due in 7.3 s",
        "due now",
        "due in 2 m 5 s",
        "due in 60 s",
    ]


# --------------------------------------------------------------------------- dropped, never acked
def test_broadcasting_failure_is_dropped_for_that_instance_only() -> None:
    """BROADCASTING: c1's failure is logged and dropped; c2 consumed its own copy."""
    scenario = load_scenario(ROOT / "examples" / "broadcasting_drop.yaml")
    replay = Replay(scenario.build, horizon=scenario.run_until_ms)
    replay.seek(10**9)
    vm = assert_matches_engine(replay)
    assert {(t.key, t.place, t.state) for t in vm.tokens} == {
        ("msg:c1:M0001", "dropped:c1", "dropped"),
        ("msg:c2:M0001", "done:c2", "done"),
    }
    scene = flow_scene(vm)
    assert "rq-dropped" in scene.mark("msg:c1:M0001").cls
    assert scene.mark("cross:msg:c1:M0001").role == "cross"
    assert "cross:msg:c2:M0001" not in set(scene.keys())
    assert_cross_leaves_the_number(scene, "msg:c1:M0001")


def assert_cross_leaves_the_number(scene: Scene, key: str) -> None:
    """A crossed token's number stays readable: the cross is four arms, one per diagonal, none of them entering the
    box of its label (half its estimated width × half the 11 px em, around the token's centre), all reaching the
    ring (it still reads as crossed)."""
    token, cross = scene.mark(key), scene.mark(f"cross:{key}")
    half_w, half_h = text_width(token.text, 11, bold=True) / 2, 11 / 2
    points = [tuple(map(float, xy.split(","))) for xy in re.findall(r"[-\d.]+,[-\d.]+", cross.d)]
    arms = list(zip(points[::2], points[1::2], strict=True))
    assert len(arms) == 4 and token.text
    for (x1, y1), (x2, y2) in arms:
        for k in range(11):  # along the arm
            x, y = x1 + (x2 - x1) * k / 10 - token.x, y1 + (y2 - y1) * k / 10 - token.y
            assert abs(x) > half_w or abs(y) > half_h, (key, token.text, x, y)
        assert math.hypot(x2 - token.x, y2 - token.y) >= token.r * 0.8  # out to the ring: it still reads as crossed


def test_retry_queue_nums_0_send_back_is_dropped_not_consumed() -> None:
    replay = Replay(retry_queue_nums_0, horizon="1m")
    replay.seek(10**9)
    vm = assert_matches_engine(replay)
    (token,) = vm.tokens
    assert (token.place, token.state) == ("dropped:cg", "dropped")
    assert vm.place("dropped:cg").label == "dropped · cg"


# --------------------------------------------------------------------------- many places, many tokens
@pytest.mark.parametrize(
    ("factory", "horizon"),
    [(two_brokers_one_down, "2m"), (lambda: demo_lab(messages=5, listener="fail_twice"), "10m")],
    ids=["two-brokers", "demo-fail-twice"],
)
def test_counts_per_place_equal_the_engine_at_every_step(factory: Callable[[], Lab], horizon: str) -> None:
    replay = Replay(factory, horizon=horizon)
    steps = 0
    while replay.step_once():
        assert_matches_engine(replay)
        steps += 1
    assert steps > 20


def test_a_down_broker_is_drawn_down() -> None:
    replay = Replay(two_brokers_one_down, horizon="2m")
    replay.seek(60)
    vm = flow_view_model(replay.snapshot())
    assert dict(vm.brokers) == {"broker-a": True, "broker-b": False}
    scene = flow_scene(vm)
    assert "rq-down" in scene.mark("broker:broker-b").cls
    assert "rq-down" not in scene.mark("broker:broker-a").cls
    assert scene.mark("broker-label:broker-b").text == "broker-b · down"


def test_consumer_instances_each_get_their_process_queues() -> None:
    replay = Replay(two_brokers_one_down, horizon="2m")
    replay.seek(60)
    vm = flow_view_model(replay.snapshot())
    assert [c.client_id for c in vm.consumers] == ["c1", "c2"]
    pqs = {p.owner: [] for p in vm.places if p.kind == "process_queue"}
    for p in vm.places:
        if p.kind == "process_queue":
            pqs[p.owner].append(p.key)
    engine = {
        cid: sorted(f"pq:{cid}:{mq}" for mq, pq in c.process_queue_table.items() if not pq.dropped)
        for cid, c in replay.lab.consumers.items()
    }
    assert {k: sorted(v) for k, v in pqs.items()} == engine


def test_orderly_suspend_keeps_the_token_in_its_process_queue_with_the_clients_count() -> None:
    """SUSPEND_CURRENT_QUEUE_A_MOMENT: no copy anywhere else; the ProcessQueue says when it is consumed again."""
    replay = Replay(lambda: demo_lab(orderly=True, listener="fail_twice", messages=2), horizon="1m")
    assert replay.jump_to_next(K.SUSPENDED)
    vm = assert_matches_engine(replay)
    token = vm.token("M0001")
    assert (token.place, token.state, token.reconsume_times) == ("pq:c1:TopicTest@broker-a:0", "pulled", 1)
    (msg,) = (
        replay.lab.consumers["c1"]
        .process_queue_table[
            next(mq for mq in replay.lab.consumers["c1"].process_queue_table if str(mq) == "TopicTest@broker-a:0")
        ]
        .msg_tree_map.values()
    )
    assert msg.reconsume_times == token.reconsume_times
    assert vm.place("pq:c1:TopicTest@broker-a:0").note == "suspended · again in 1 s"
    scene = flow_scene(vm)
    assert scene.mark("note:pq:c1:TopicTest@broker-a:0").text == "suspended · again in 1 s"


def ordered_send_outage() -> Lab:
    """Lab 06's picture: no consumer, orders 3 and 5 sent by id % 8 at 1 s, 10 s, 45 s; broker-a down at 5 s."""
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("TopicTest")
    producer = lab.add_producer("pg")

    def by_order_id(mqs: list, msg: Message, order_id: int) -> object:
        return mqs[order_id % len(mqs)]

    for t in ("1s", "10s", "45s"):
        for order_id in (3, 5):
            lab.at(t, producer.send_with_selector, Message("TopicTest", f"order {order_id}"), by_order_id, order_id)
    lab.at("5s", lab.broker_down, "broker-a")
    return lab


def test_without_consumers_every_stored_message_is_a_token_in_its_queue() -> None:
    """Stored, never pulled: tokens per queue = the ConsumeQueue entries; a failed send stays at its producer."""
    replay = Replay(ordered_send_outage, horizon="50s")
    replay.seek(10**9)
    vm = flow_view_model(replay.snapshot())
    engine = {
        f"queue:{topic}@{name}:{qid}": sorted(
            b.commit_log.get(e.commit_log_offset).msg_id
            for e in cq.entries  # type: ignore[union-attr]
        )
        for name, b in replay.lab.brokers.items()
        for (topic, qid), cq in b.consume_queues.items()
        if cq.max_offset and topic == "TopicTest"
    }
    assert vm_places(vm, ("stored",)) == engine
    failed = [f.msg_id for f in replay.lab.sends if f.error]
    assert failed and vm_places(vm, ("send_failed",)) == {"failed:pg": sorted(failed)}
    assert all(t.owner == "" and t.key == f"msg::{t.msg_id}" for t in vm.tokens)
    assert len(vm.tokens) == len(replay.lab.sends)
    scene = flow_scene(vm)
    assert scene.mark("empty:consumers").text == "no consumer"
    assert "arrow:ack" not in set(scene.keys())


# --------------------------------------------------------------------------- colours
def test_token_colour_is_stable_and_spreads_consecutive_ids() -> None:
    assert token_colour("M0001") == TOKEN_COLOURS[0]
    assert len({token_colour(f"M{i:04d}") for i in range(1, 7)}) == 6
    assert token_colour("order-x") == token_colour("order-x")


def orders_lab() -> Lab:
    """An orderly consumer; orders 7, 8, 7 sent with the order id as KEYS and as the selector's argument."""
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("Orders", queues=2)
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"Orders": "*"}, listener=lambda msgs, ctx: CO.SUCCESS, orderly=True, name="c1")
    for i, order in enumerate((7, 8, 7)):
        msg = Message("Orders", f"step {i}", keys=f"order-{order}")
        lab.at(1000 + 10 * i, producer.send_with_selector, msg, SelectMessageQueueByHash, order)
    return lab


def test_ordered_lab_colours_by_sharding_key() -> None:
    """An orderly consumer: messages with the same KEYS (order id) share a colour, whatever their msg id."""
    replay = Replay(orders_lab, horizon="1m")
    replay.seek(10**9)
    vm = flow_view_model(replay.snapshot())
    assert vm.ordered and vm.colour_note == "colour = sharding key (else message id)"
    colours = {t.msg_id: (t.colour_by, t.colour) for t in vm.tokens}
    assert colours["M0001"] == colours["M0003"] == ("order-7", token_colour("order-7"))
    assert colours["M0002"] == ("order-8", token_colour("order-8"))
    assert token_colour("order-7") != token_colour("order-8")


def test_concurrent_lab_colours_by_message_id() -> None:
    replay = Replay(lambda: demo_lab(messages=3, listener="succeed"), horizon="1m")
    replay.seek(10**9)
    vm = flow_view_model(replay.snapshot())
    assert not vm.ordered
    assert [(t.colour_by, t.colour) for t in vm.tokens] == [(f"M000{i}", TOKEN_COLOURS[i - 1]) for i in (1, 2, 3)]


# --------------------------------------------------------------------------- layout
def _text_box(m: object, scene: Scene) -> tuple[float, float, float, float]:
    cls = m.cls  # type: ignore[attr-defined]
    size = 12.0 if "rq-title" in cls else 10.0 if "rq-small" in cls else 11.0
    w = text_width(m.text, size)  # type: ignore[attr-defined]
    x = m.x - {"start": 0.0, "middle": w / 2, "end": w}[m.anchor]  # type: ignore[attr-defined]
    return (x, m.y - size * 0.8, x + w, m.y + size * 0.25)  # type: ignore[attr-defined]


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def assert_no_overlaps(scene: Scene) -> None:
    texts = [(m.key, _text_box(m, scene)) for m in scene.marks if m.kind == "text"]
    tokens = [(m.key, (m.x - m.r, m.y - m.r, m.x + m.r, m.y + m.r)) for m in scene.marks if m.kind == "token"]
    for (ka, a), (kb, b) in itertools.combinations(texts + tokens, 2):
        assert not _overlap(a, b), f"{ka} overlaps {kb}: {a} vs {b}"
    for key, box in texts + tokens:
        assert box[0] >= 0 and box[2] <= scene.width and box[1] >= 0 and box[3] <= scene.height, (key, box)


@pytest.mark.parametrize(
    ("factory", "horizon", "stride"),
    [
        (sixteen_retries, "6h", 7),
        (two_brokers_one_down, "2m", 9),
        (lambda: demo_lab(messages=12, listener="fail_twice"), "10m", 25),
        (lambda: load_scenario(ROOT / "examples" / "broadcasting_drop.yaml").build(), "30s", 3),
    ],
    ids=["sixteen", "two-brokers", "demo-12", "broadcasting"],
)
def test_no_label_or_token_overlaps_anything(factory: Callable[[], Lab], horizon: str, stride: int) -> None:
    replay = Replay(factory, horizon=horizon)
    frames = 0
    while True:
        assert_no_overlaps(flow_scene(flow_view_model(replay.snapshot())))
        frames += 1
        moved = False
        for _ in range(stride):
            moved = replay.step_once()
            if not moved:
                break
        if not moved:
            break
    assert frames > 3


def test_scene_has_title_legend_and_arrows() -> None:
    replay = Replay(sixteen_retries)
    replay.jump_to_next(K.SEND_BACK)
    scene = flow_scene(flow_view_model(replay.snapshot()))
    assert scene.mark("title").text.startswith("Message flow at t = 0 ms")
    legend = [m.text for m in scene.marks if m.role == "legend" and m.kind == "text"]
    assert any("delay level" in t for t in legend) and any("dropped" in t for t in legend)
    assert any("%DLQ%" in t for t in legend) and any("consumed" in t for t in legend)
    arrows = {m.key for m in scene.marks if m.role == "arrow"}
    assert {"arrow:send", "arrow:pull-business", "arrow:send-back", "arrow:pull-retry", "arrow:dead-letter"} <= arrows
    assert all(scene.mark(k).arrow for k in arrows)
    assert dict(scene.extra)["tokens"] == "1"


def test_same_position_same_svg() -> None:
    """Deterministic: two fresh replays to the same position draw byte-identical SVG."""
    svgs = []
    for _ in range(2):
        replay = Replay(lambda: demo_lab(messages=4, listener="fail_twice"), horizon="5m")
        replay.seek(60)
        svgs.append(flow_scene(flow_view_model(replay.snapshot())).to_svg())
    assert svgs[0] == svgs[1] and 'data-testid="rq-flow"' in svgs[0]


# --------------------------------------------------------------------------- the widget
def test_flow_view_in_a_controller_redraws_on_step() -> None:
    view = FlowView()
    controller = Controller(lambda: demo_lab(messages=2), views=[view], run_ahead=False)
    assert view.vm.position == controller.position and not view.vm.tokens
    controller.jump_to_next(K.DELIVERED)
    first = dict(view.canvas.scene["extra"])
    assert view.vm.position == controller.position and view.vm.tokens
    controller.jump_to_next(K.SEND_BACK)
    assert dict(view.canvas.scene["extra"])["position"] != first["position"]
    assert view.errors == []
    assert "message flow at t =" in view.text
    assert 'data-testid="rq-flow"' in view._repr_mimebundle_()["text/html"]


# ---------------------------------------------------------------------------------------------- issue 30 defects
def test_broadcasting_draws_only_the_paths_it_uses():
    """BROADCASTING drops a failed message (processConsumeResult): no send-back, retry-pull or dead-letter arrow;
    a CLUSTERING run keeps all five."""
    arrows = {
        m.key for m in _example_scene("broadcasting_drop").marks if m.key.startswith("arrow:") and ":" not in m.key[6:]
    }
    assert arrows == {"arrow:send", "arrow:pull-business", "arrow:ack"}
    clustering = {m.key for m in _example_scene("default_retry_schedule").marks if m.key.startswith("arrow:")}
    assert {"arrow:send-back", "arrow:pull-retry", "arrow:dead-letter"} <= clustering


def _example_scene(stem: str) -> Scene:
    path = ROOT / "examples" / f"{stem}.yaml"
    scenario = load_scenario(path if path.exists() else path.with_suffix(".json"))
    replay = Replay(scenario.build, horizon=scenario.run_until_ms)
    replay.run_to_end()
    return flow_scene(flow_view_model(replay.snapshot()))


def test_not_in_route_is_a_line_of_its_own_under_the_queue_name():
    """Lab 04b: retryQueueNums raised on a running group, so queues 2 and 3 of %RETRY%cg are not in the route yet;
    the note sits under the label, and no two texts overlap."""
    scenario = load_scenario(ROOT / "examples" / "retry_queues_raised_late.yaml")
    replay = Replay(scenario.build, horizon=scenario.run_until_ms)
    replay.seek(50)
    vm = flow_view_model(replay.snapshot())
    assert [p.key for p in vm.places if p.note == "not in route"] == [
        "queue:%RETRY%cg@broker-a:2",
        "queue:%RETRY%cg@broker-a:3",
    ]
    scene = flow_scene(vm)
    assert overlapping_texts(scene) == []
    for q in (2, 3):
        label, note = (
            scene.mark(f"label:queue:%RETRY%cg@broker-a:{q}"),
            scene.mark(f"note:queue:%RETRY%cg@broker-a:{q}"),
        )
        slot = scene.mark(f"place:queue:%RETRY%cg@broker-a:{q}")
        assert note.y - label.y >= 11 and note.y <= slot.y + slot.h


def test_a_three_digit_reconsume_count_fits_its_token():
    """Lab 09's poison message reaches reconsumeTimes 598: the token says 598 at the 11 px label size (regular
    weight, the rq-long class); 1234 says 1k; none is smaller than 11 px."""
    assert [token_text(n) for n in (0, 7, 42, 598, 1234, 12_345)] == ["0", "7", "42", "598", "1k", "12k"]
    for n in (7, 42, 598, 1234, 12_345):
        text = token_text(n)
        bold = len(text) <= 2  # three characters get the rq-long class: regular weight
        assert text_width(text, 11, bold=bold) <= 2 * R  # inside the circle, by the wide estimate
    assert text_width("598", 11, bold=True) > 2 * R  # why three characters drop the bold
    assert "font-size: 6px" not in FLOW_CSS


def test_a_consumer_that_has_not_started_yet_says_so():
    """Lab 07: c2 starts at 10 s; before that its box says "not started yet", not "shut down"."""

    def lab() -> Lab:
        lab = Lab(seed=1)
        lab.add_broker("broker-a")
        lab.create_topic("TopicTest", queues=2)
        listener = lambda msgs, ctx: CO.SUCCESS  # noqa: E731
        lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=listener, orderly=True, name="c1")
        lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=listener, orderly=True, name="c2", start="10s")
        return lab

    replay = Replay(lab, horizon="30s")
    vm = flow_view_model(replay.snapshot())
    assert {c.client_id: c.detail for c in vm.consumers}["c2"] == "not started yet"
    assert flow_scene(vm).mark("empty:c2").text == "not started yet"
    replay.seek_time(10_000)
    replay.step_once()
    vm = flow_view_model(replay.snapshot())
    assert {c.client_id: c.detail for c in vm.consumers}["c2"] == "CLUSTERING · orderly"


def test_a_producers_run_draws_only_the_send_arrow():
    """Labs 01a, 01b and 06 have no consumer: no pull, send-back or dead-letter arrow points into an empty column."""
    from rmqlab import Lab, Message

    def producer_only() -> Lab:
        lab = Lab(seed=7)
        lab.add_broker("broker-a")
        lab.create_topic("TopicTest")
        lab.at("1s", lab.add_producer("pg").send, Message("TopicTest", "m1"))
        return lab

    replay = Replay(producer_only, horizon="5s")
    replay.run_to_end()
    arrows = {m.key for m in flow_scene(flow_view_model(replay.snapshot())).marks if m.role == "arrow"}
    assert arrows == {"arrow:send"} | {k for k in arrows if k.startswith("arrow:hop:")}


def _flush_timeout_lab(status: str | None) -> Lab:
    """broker-a stores M0001 (1 s) and M0002 (2 s); with ``status`` it answers that instead of SEND_OK."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    if status is not None:
        lab.at("1500ms", lab.set_broker_fault, "broker-a", put_status=status)
    lab.at("1s", p.send, Message("TopicTest", "ok"))
    lab.at("2s", p.send, Message("TopicTest", "unsafe"))
    lab.run(until="3s")
    return lab


def test_a_store_answered_flush_disk_timeout_looks_unlike_a_send_ok_store() -> None:
    """Lab 01b's picture drew FLUSH_DISK_TIMEOUT stores exactly like SEND_OK ones. Now such a token carries its status
    (view-model), an orange dashed ring and a "!" badge (scene), and the legend says what that means; the SEND_OK
    store beside it has none of them, and a picture without such a store shows no such legend line."""
    lab = _flush_timeout_lab("FLUSH_DISK_TIMEOUT")
    vm = flow_view_model(lab.snapshot())
    assert [(t.msg_id, t.state, t.put_status) for t in vm.tokens] == [
        ("M0001", "stored", ""),
        ("M0002", "stored", "FLUSH_DISK_TIMEOUT"),
    ]
    scene = flow_scene(vm)
    token = {m.key: m for m in scene.marks if m.role == "token"}
    assert "rq-not-ok" in token["msg::M0002"].cls and "rq-not-ok" not in token["msg::M0001"].cls
    assert "FLUSH_DISK_TIMEOUT" in token["msg::M0002"].title
    assert scene.keys("badge") == ("not-ok-badge:msg::M0002",)
    legend = [m.text for m in scene.marks if m.role == "legend" and m.kind == "text"]
    assert "stored, but answered FLUSH_DISK_TIMEOUT, not SEND_OK (!)" in legend
    plain = flow_scene(flow_view_model(_flush_timeout_lab(None).snapshot()))
    assert plain.keys("badge") == () and not any("not SEND_OK" in m.text for m in plain.marks)


def test_an_orderly_last_send_back_waits_at_its_level_for_the_dlq_not_dropped() -> None:
    """Past maxReconsumeTimes an orderly consumer sends the message back at a delay level whose real topic is
    %DLQ%cg: the picture parks it at that level for the group (it drew a second, crossed token under "dropped ·
    send-back stored no copy (retryQueueNums 0)" in lab 07a's last step), and in the DLQ once the delay is over."""
    early = demo_lab(orderly=True, listener="fail_all", max_reconsume_times=1).run(until="30s")
    tokens = flow_view_model(early.snapshot()).tokens
    assert sorted((t.msg_id, t.state, t.owner) for t in tokens) == [
        ("M0001", "delayed", "cg"), ("M0002", "delayed", "cg"), ("M0003", "delayed", "cg")
    ]  # fmt: skip
    late = demo_lab(orderly=True, listener="fail_all", max_reconsume_times=1).run(until="4m")
    assert {t.state for t in flow_view_model(late.snapshot()).tokens} == {"dead"}
