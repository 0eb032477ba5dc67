# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# [Index](README.md) · [← Back](05_offsets_process_queue.ipynb) · [Next →](07a_orderly_locks.ipynb)
#
# # 06 · Ordered send with a MessageQueueSelector
#
# **Goal:** pin each order to one queue; see what a selector error, a slow broker and a broker outage do to an
# ordered send; and tell RocketMQ's two ordering guarantees apart.
# Source: `DefaultMQProducerImpl.sendSelectImpl`, `client/.../producer/selector/SelectMessageQueueByHash.java`,
# `docs/en/Concept.md` (Normal / Strictly Ordered Message).

# %%
from rmqlab import ConsumeOrderlyStatus, Lab, Message
from rmqlab.course.exercises import assert_right, check, score, show_trace

SEED = 7


# %%
# The lab's scenarios, one function each; every section below runs one of them. Read each when its picture asks.
def by_order_id(mqs, msg, order_id):
    """The classic selector: order_id % len(mqs), over the queues the route has now."""
    return mqs[order_id % len(mqs)]

def ordered_lab(**producer_options):
    """Two brokers × 4 queues of TopicTest, one producer."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("TopicTest")
    return lab, lab.add_producer("pg", **producer_options)


def outage_lab(selector=by_order_id, orders=(3, 5), down_at="5s", **producer_options):
    """``orders`` (3 and 5) send at 1 s, 10 s and 45 s with `selector`, each event keyed by its order; broker-a goes
    down at ``down_at`` (5 s). Returns the lab and {order id: [its sends' futures, in time order]}."""
    lab, p = ordered_lab(**producer_options)
    sends = {order_id: [] for order_id in orders}

    def send(order_id, t):
        event = Message("TopicTest", f"order {order_id} @ {t}", keys=f"order {order_id}")
        sends[order_id].append(p.send_with_selector(event, selector, order_id))

    for t in ("1s", "10s", "45s"):
        for order_id in orders:
            lab.at(t, send, order_id, t)
    lab.at(down_at, lab.broker_down, "broker-a")
    return lab, sends

def with_orderly_consumer(lab, start):
    """An orderly consumer, c1, of TopicTest started at ``start``, after the picture's sends: with one, the picture
    colours each token by its key (its order), as in the tiny run."""
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=lambda msgs, ctx: ConsumeOrderlyStatus.SUCCESS,
                     orderly=True, name="c1", start=start)
    return lab

def outage_picture(selector="by_order_id", orders=4):
    """``outage_lab`` as a Dashboard factory: orders 3, 4, … (``orders`` of them), the selector named by ``selector``;
    c1 starts at 46 s."""
    return with_orderly_consumer(outage_lab(SELECTORS[selector], orders=tuple(range(3, 3 + orders)))[0], "46s")

def slow_a_lab(events=4):
    """broker-a answers after 5 s from 1 s on; order 3 (→ a3) sends ``events`` events, one every 4 s from 2 s."""
    lab, p = ordered_lab()
    lab.at("1s", lab.set_broker_fault, "broker-a", response_delay_ms="5s")
    for k in range(events):
        event = Message("TopicTest", f"order 3 event {k + 1}", keys="order 3")
        lab.at(f"{2 + 4 * k}s", p.send_with_selector, event, by_order_id, 3)
    return lab

ALL_QUEUES = sorted(ordered_lab()[0].namesrv.route("TopicTest").write_queues())

def strict_by_order_id(mqs, msg, order_id):
    """order_id % 8 over the topic's full queue list; None (no send) while that queue is not in the route."""
    wanted = ALL_QUEUES[order_id % len(ALL_QUEUES)]
    return wanted if wanted in mqs else None

SELECTORS = {"by_order_id": by_order_id, "strict_by_order_id": strict_by_order_id}


# %% [markdown]
# ## A tiny run: two orders, two queues
# The picture: orders 3 and 5 send an event each second, through the selector above, each message carrying its
# order as its key (`keys`, the sharding key); an orderly consumer, c1, starts after the last send. Tokens are
# coloured by order: watch which queue each order's events go to, then c1 consume each queue in order. Step: it
# stops before order 5's first event is stored and asks where. The table under it is order 3's first send, the
# picture's first step (order 5's is the question).

# %% tags=["nbval-ignore-output"]
from rmqlab.widgets.checkpoints import Checkpoint, sealed_explanation
from rmqlab.widgets.dashboard import Dashboard


def in_order(msgs, ctx):
    """An orderly listener that takes every event."""
    return ConsumeOrderlyStatus.SUCCESS


def two_orders(events=4):
    """Orders 3 and 5 each send ``events`` events (key: the order), one a second from 1 s, with ``by_order_id``;
    the orderly consumer c1 starts half a second after the last send."""
    lab, p = ordered_lab()
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=in_order, orderly=True, name="c1",
                     start=f"{events + 1}.5s")
    for k in range(events):
        for order_id in (3, 5):
            event = Message("TopicTest", f"order {order_id} event {k + 1}", keys=f"order {order_id}")
            lab.at(f"{1 + k}s", p.send_with_selector, event, by_order_id, order_id)
    return lab


tiny_dash = Dashboard(two_orders, knobs={"events": 4}, horizon="8s", checkpoints=[
    Checkpoint(before="stored", msg_id="M0002", ask="where", optional=True, name="where order 5's first event goes",
               question="Order 3's first event (M0001) went to a3, queue 3 of broker-a. Where is order 5's first "
                        "event ({msg}) stored? Click the queue in the picture (or a button).",
               hint="by_order_id returns mqs[order_id % len(mqs)] over the route's queue list, in order: broker-a's "
                    "four queues, then broker-b's.",
               explain=sealed_explanation("06.order-5-first"))])
tiny_dash

# %%
lab, p = ordered_lab()
for order_id in (3, 5):
    lab.at("1s", p.send_with_selector, Message("TopicTest", f"order {order_id} created"), by_order_id, order_id)
_ = lab.run(until="2s")
show_trace(lab.trace, "send_attempt", "send_result", msg_id="M0001")

# %% [markdown]
# The selector sees the route's 8 queues `[a0..a3, b0..b3]` and picks one by the order id. Every event of an order
# goes to the same queue, and one queue is consumed in order — so each order's events are consumed in order.

# %% [markdown]
# ### When the selector fails
# The selector is the application's code, and it can fail: throw, or find no queue. The picture: order 5 sends at
# 1 s, 4 s, 7 s and 8 s with `by_order_id`; order 3 sends at 2 s with a selector that throws (`throws`), at 3 s with one that
# returns `None` (`returns_none`), then twice with `by_order_id` (5 s, 6 s); c1 starts at 8.5 s. Step: it stops
# before order 3's first send is over and asks whether that event reaches a broker at all.

# %% tags=["nbval-ignore-output"]
def throws(mqs, msg, order_id):
    """A selector with a bug."""
    raise KeyError(order_id)

def returns_none(mqs, msg, order_id):
    """A selector that finds no queue for this order."""
    return None

def failing_selectors(events=4):
    """Order 5 (``by_order_id``) at 1 s, 4 s, 7 s and 8 s; order 3's ``events`` events: ``throws`` at 2 s, ``returns_none``
    at 3 s, then ``by_order_id``, one a second from 5 s."""
    lab, p = ordered_lab()
    for t in ("1s", "4s", "7s", "8s"):
        lab.at(t, p.send_with_selector, Message("TopicTest", f"order 5 @ {t}", keys="order 5"), by_order_id, 5)
    for k in range(events):
        t, selector = (("2s", throws), ("3s", returns_none))[k] if k < 2 else (f"{3 + k}s", by_order_id)
        event = Message("TopicTest", f"order 3 event {k + 1}", keys="order 3")
        lab.at(t, p.send_with_selector, event, selector, 3)
    return with_orderly_consumer(lab, "8.5s")


failing_dash = Dashboard(failing_selectors, knobs={"events": 4}, horizon="10s", checkpoints=[
    Checkpoint(before="send_failed", msg_id="M0002", ask="whether", optional=True,
               name="whether a refused event reaches a broker",
               holds=lambda trace, snap: any(e.kind.value == "send_attempt" and e.msg_id == "M0002" for e in trace),
               question="pg sends an event of order 3 (M0002) with a selector that throws KeyError. Does any request "
                        "for M0002 reach a broker?",
               hint="sendSelectImpl asks the selector for a queue before it sends anything: with no queue, what "
                    "could it send, and to whom?",
               explain=sealed_explanation("06.selector-throws"))])
failing_dash

# %% [markdown]
# Step on past the question to see what a selector that
# throws, or one that returns `null`, leaves of order 3's send (the Space-time tab counts its attempts).

# %% [markdown]
# ## A broker outage
# broker-a goes down at 5 s while orders 3–6 send at 1 s, 10 s and 45 s (`outage_lab`, keyed by order); pg re-reads
# its route every 30 s (`pollNameServerInterval`). Step: it stops at 10 s, then again before the 45 s
# sends; the orderly consumer c1 starts at 46 s.

# %% tags=["nbval-ignore-output"]
dash = Dashboard(outage_picture, knobs={"selector": "by_order_id", "orders": 4},
                 knob_options={"selector": ["by_order_id", "strict_by_order_id"]}, horizon="50s",
                 checkpoints=[Checkpoint(before="stored", msg_id="M0006", ask="where", optional=True,
                                         name="where order 4 goes at 10 s",
                                         question="broker-a is down and order 3's send just failed. Where is order 4's "
                                                  "10 s event (M0006) stored? Click the queue in the picture (or a "
                                                  "button).",
                                         hint="sendSelectImpl sends where the selector says: by_order_id returns "
                                              "mqs[order_id % len(mqs)] over every queue the producer's route lists "
                                              "now, broker-a's too, until its next route poll (every 30 s).",
                                         explain=sealed_explanation("06.order-4-at-10s")),
                              Checkpoint(before="stored", msg_id="M0009", ask="where", optional=True,
                                         name="where order 3 goes after the route poll",
                                         question="At 10 s pg's route still lists broker-a's queues; its next "
                                                  "route poll, at 30 s, will find broker-a gone and drop them. At "
                                                  "45 s order 3 sends its last event ({msg}). Where will it be "
                                                  "stored? Click the queue in the picture (or a button).",
                                         hint="by_order_id returns mqs[order_id % len(mqs)] over the queues the "
                                              "producer's route lists at the time of the send: after the 30 s poll, "
                                              "how many are left, and which is the order's?",
                                         explain=sealed_explanation("06.order-3-after-poll"))])
dash

# %% [markdown]
# ### Exercise 1 — predict, then run
# The same outage, but pg is built with `retry_times_when_send_failed=5` (the default is 2). How many attempts does
# order 3's selector send at 10 s make?

# %% nbgrader={"grade": false, "grade_id": "ex06_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← your prediction
### BEGIN SOLUTION
answer_1 = 1
### END SOLUTION

# %%
lab, sends = outage_lab(retry_times_when_send_failed=5)
lab.run(until="20s")
at_10s = sends[3][1]

# %% nbgrader={"grade": true, "grade_id": "ex06_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("06.1", answer_1, at_10s.attempts)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_06_1
grading_06_1.verify("06.1", answer_1)
### END HIDDEN TESTS

# %%
show_trace(lab.trace, "send_attempt", "send_failed")

# %% [markdown]
# No retry loop: the connection error reaches the caller. A retry on another queue would put order 3's event
# behind a different queue's messages. A selector that throws, or returns `null`, fails the same way, only earlier:
# `MQClientException` before any request — "When the selector fails" leaves M0002 and M0003 crossed in pg's "send
# failed" tray with 0 attempts, and order 3's events in no queue at all.
#
# ### Exercise 2 — predict, then run
# After the route refresh at 30 s the list has only broker-b's 4 queues. The picture asks about order 3; here order
# **9** sends at 1 s, 10 s and 45 s, with the same selector. Which queue does order 9's event at 45 s go to? Answer
# like `"TopicTest@broker-b:0"`.

# %% nbgrader={"grade": false, "grade_id": "ex06_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← your prediction
### BEGIN SOLUTION
answer_2 = "TopicTest@broker-b:1"
### END SOLUTION

# %%
lab, sends = outage_lab(orders=(9,))
lab.run(until="50s")
late = next(e for e in lab.trace.of_kind("send_attempt") if e.msg_id == sends[9][2].msg_id)
where = f"TopicTest@{late.get('broker')}:{late.get('queue_id')}"

# %% nbgrader={"grade": true, "grade_id": "ex06_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("06.2", answer_2, where)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_06_2
grading_06_2.verify("06.2", answer_2)
### END HIDDEN TESTS

# %%
show_trace(lab.trace, "send_attempt", "send_failed", fields=("broker", "queue_id", "error"))

# %% [markdown]
# ## A slow broker: the timeout
# The third selector-send error is a timeout: from 1 s broker-a answers every request 5 s late ("answers 5 s late"
# under its name; `slow_a_lab`), and order 3's events go to its a3. Step: it stops before the first send and asks
# where the event is once the producer is done with it.

# %% tags=["nbval-ignore-output"]
slow_dash = Dashboard(slow_a_lab, knobs={"events": 4}, horizon="25s", checkpoints=[
    Checkpoint(before="send_attempt", msg_id="M0001", ask="where", optional=True, name="stored anyway?",
               question="pg is about to send order 3's first event ({msg}) to a3 on broker-a, which now answers 5 s "
                        "late; pg gives up waiting after 3000 ms. Where is {msg} once the send is over? Click the "
                        "place in the picture (or a button).",
               hint="sendSelectImpl makes one attempt, on the queue the selector picked, and waits for its answer "
                    "for 3000 ms at most (sendMsgTimeout). When does broker-a act on the request: when it arrives, "
                    "or when its late answer leaves?",
               explain=sealed_explanation("06.stored-anyway")),
])
slow_dash

# %% [markdown]
# The send has one budget (`sendMsgTimeout`, 3000 ms): if choosing the queue already used it up, `sendSelectImpl`
# throws "sendSelectImpl call timeout" without sending (rmqlab's selectors take no virtual time, so that case cannot
# occur here). More often, as in the picture, the answer is late.
#
# ### Exercise 3 — predict, then run
# Order 3 sends 2 events to slow broker-a's queue 3 (a3), at 2 s and 6 s, and pg gives up on each after 3000 ms with
# `RemotingTimeoutException`. The application then sends each event once more, at 12 s and 16 s, to the same queue
# (those time out too). How many messages does a3 hold at 30 s?

# %% nbgrader={"grade": false, "grade_id": "ex06_3_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_3 = ...  # ← your prediction
### BEGIN SOLUTION
answer_3 = 4
### END SOLUTION

# %%
lab = slow_a_lab(events=2)
p = lab.producers["pg"]
for t, k in (("12s", 1), ("16s", 2)):  # the application sends each timed-out event again
    lab.at(t, p.send_with_selector, Message("TopicTest", f"order 3 event {k}"), by_order_id, 3)
lab.run(until="30s")
in_a3 = [e for e in lab.trace.of_kind("stored") if e.actor == "broker-a" and e.get("queue_id") == 3]

# %% nbgrader={"grade": true, "grade_id": "ex06_3", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("06.3", answer_3, len(in_a3))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_06_3
grading_06_3.verify("06.3", answer_3)
### END HIDDEN TESTS

# %%
show_trace(lab.trace, "send_attempt", "stored", "send_result", "send_failed")

# %% [markdown]
# Read the trace: when did the broker act on M0001, and when did pg give up? What does a timeout tell the
# application about the store, and what would sending the event again do to order 3's stream?
#
# ## Normal and strict ordering
# RocketMQ's documentation names two ordering guarantees, *normal* and *strict*. The picture: the outage again with
# `strict_by_order_id`, which picks from the topic's full queue list, never the live one; it stops at 10 s.

# %% tags=["nbval-ignore-output"]
strict_dash = Dashboard(outage_picture, knobs={"selector": "strict_by_order_id", "orders": 4},
                        knob_options={"selector": ["by_order_id", "strict_by_order_id"]}, horizon="50s", checkpoints=[
    Checkpoint(before="send_failed", msg_id="M0009", ask="whether", optional=True,
               name="whether order 3's 45 s event is stored",
               holds=lambda trace, snap: any(e.kind.value == "stored" and e.msg_id == "M0009" for e in trace),
               question="At 10 s pg's route still lists broker-a's queues; its route poll at 30 s will drop them. At "
                        "45 s order 3 sends its last event (M0009) with strict_by_order_id. Will M0009 be stored "
                        "anywhere?",
               hint="strict_by_order_id picks from the topic's full queue list, never from the live one, and it "
                    "returns None when that queue is not in the route: what does sendSelectImpl do with None?",
               explain=sealed_explanation("06.strict-refuses"))])
strict_dash.controller.seek_time("10s")
strict_dash

# %% [markdown]
# ### Exercise 4 — predict, then run
# The picture's broker-a goes down at 5 s. The same sends with `strict_by_order_id`, but broker-a goes down at
# **0.5 s**, before the first sends. How many of order 3's three events are stored?

# %% nbgrader={"grade": false, "grade_id": "ex06_4_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_4 = ...  # ← your prediction
### BEGIN SOLUTION
answer_4 = 0
### END SOLUTION

# %%
lab, sends = outage_lab(strict_by_order_id, down_at="500ms")
lab.run(until="50s")
order_3_ids = {future.msg_id for future in sends[3]}
order_3 = [e for e in lab.trace.of_kind("stored") if e.msg_id in order_3_ids]

# %% nbgrader={"grade": true, "grade_id": "ex06_4", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("06.4", answer_4, len(order_3))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_06_4
grading_06_4.verify("06.4", answer_4)
### END HIDDEN TESTS

# %%
show_trace(lab.trace, "send_attempt", "stored", "send_failed", fields=("broker", "queue_id", "error"))

# %% [markdown]
# RocketMQ's documentation (`docs/en/Concept.md`) names two guarantees:
#
# - **Normal Ordered Message** — messages received from the *same queue* are in order; messages from different
#   queues may not be. That is what `by_order_id` gives: it hashes over the queues the route has *now*, so when the
#   list changes an order moves to another queue. Sends keep working, but order 3's events are now split across
#   two brokers' queues, and a consumer may see the late one before the early one is consumed.
# - **Strictly Ordered Message** — every message is received in the order stored. (`docs/en/Feature.md` calls the
#   two flavours *global* — one queue for the topic — and *partitioned* — in order per sharding key.) Strict means an
#   order never moves: the selector keeps the full queue list and picks from it, and when that queue is missing it
#   refuses rather than move.
#
# Strict order costs availability: while broker-a is down, order 3 cannot be sent at all (order 5, on broker-b, is
# unaffected). Normal order keeps sending and gives up order across the outage. Which one a system needs is a
# business decision; RocketMQ's selector API lets the application choose.
#
# > **Common belief vs. the source.** "An ordered send retries like any other send." — `DefaultMQProducerImpl.sendSelectImpl`
# > has no retry loop (`retryTimesWhenSendFailed` does not apply): one attempt, and the error goes to the caller.

# %% [markdown]
# ## Key points
# - A selector send (`sendSelectImpl`) goes to the queue the selector returns; it is not `sendDefaultImpl`'s retry
#   loop.
# - `order_id % len(mqs)` over the live list is *normal* ordering — available, but an order moves when the list
#   changes; keeping a fixed list and refusing is *strict* ordering: each trades availability against order.
#
# ## Your score
# Run this cell last: one line per exercise of this lab, from the checks you ran.

# %%
score("06")
