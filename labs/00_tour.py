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
# [Index](README.md) · [Next →](01a_send_retry.ipynb)

# %% [markdown]
# # 00 · A tour of rmqlab
#
# **Goal:** build a two-broker cluster, send one message, consume it, and read what happened from the trace.

# %% [markdown]
# rmqlab runs RocketMQ 4.9.7's client and broker logic in **virtual milliseconds**: a 5-hour retry schedule
# runs in a few ms of wall time, and the same seed always gives the same trace.

# %%
from rmqlab import ConsumeConcurrentlyStatus, Lab, Message, format_duration
from rmqlab.course.exercises import assert_right, check, score, show_trace, table
from rmqlab.widgets.checkpoints import Checkpoint, sealed_explanation
from rmqlab.widgets.dashboard import Dashboard

CONSUME_SUCCESS = ConsumeConcurrentlyStatus.CONSUME_SUCCESS
RECONSUME_LATER = ConsumeConcurrentlyStatus.RECONSUME_LATER
SEED = 7

# %% [markdown]
# ## `Lab`: the cluster
# The picture first. A `Lab` holds the clock, the name server, the brokers and the clients (`rmqlab/lab/lab.py`).
# This one: two brokers, TopicTest with 4 queues on each, pg sending one message a second from 1 s, and c1 starting
# only at 4 s. c1's listener returns a status, exactly like `MessageListenerConcurrently.consumeMessage`: here always
# success. The picture opens on its **Topology** tab: each broker, its topics and their queues. Step: it stops before
# pg sends M0002 and asks which queue it goes to. Then watch which topics c1 subscribes when it starts.

# %% tags=["nbval-ignore-output"]
def always_ok(msgs, ctx):
    """Consume successfully."""
    return CONSUME_SUCCESS


def tiny_lab(messages=3, consumer_at="4s"):
    """This cluster, pg sending ``messages`` messages one a second from 1 s, and c1 starting at ``consumer_at``."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("TopicTest", queues=4)
    producer = lab.add_producer("pg")
    for k in range(messages):
        lab.at(f"{1 + k}s", producer.send, Message("TopicTest", f"hello {k + 1}", tags="TagA"))
    lab.at(consumer_at, lambda: lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=always_ok, name="c1"))
    return lab


tiny_dash = Dashboard(tiny_lab, knobs={"messages": 3}, horizon="10s", tab="Topology", checkpoints=[
    Checkpoint(before="send_attempt", msg_id="M0002", ask="where", optional=True, name="which queue M0002 goes to",
               question="pg sent M0001 to a queue at 1 s. A second later it sends M0002: where is M0002 stored? "
                        "Click the queue in the picture (or a button).",
               explain=sealed_explanation("00.round-robin")),
])
tiny_dash

# %% [markdown]
# Under the picture, the same cluster built cell by cell. The Topology tab as text: each broker, its topics, read/write
# queue counts and `perm` (6 = read+write).

# %%
lab = Lab(seed=SEED)
lab.add_broker("broker-a")
lab.add_broker("broker-b")
queues = lab.create_topic("TopicTest", queues=4)


# %%
def topology(lab):
    """One row per (broker, topic): queue counts and permission bits."""
    rows = []
    for name, broker in sorted(lab.brokers.items()):
        for topic, cfg in sorted(broker.topic_config.items()):
            rows.append([name, topic, cfg.read_queue_nums, cfg.write_queue_nums, cfg.perm])
    return table(rows, ["broker", "topic", "read", "write", "perm"])


# %%
print(topology(lab))

# %% [markdown]
# The producer sees the route as a flat list of `MessageQueue(topic, brokerName, queueId)` —
# `TopicPublishInfo.messageQueueList` in `client/.../impl/producer/TopicPublishInfo.java`. The picture's queues, in
# the order pg's round-robin walks them.

# %%
print([str(mq) for mq in queues])

# %% [markdown]
# ### The tiny run, cell by cell
# The same clients on this lab: pg, and c1 started at once. pg sends one message at 1 s.

# %%
producer = lab.add_producer("pg")
consumer = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=always_ok, name="c1")
lab.at("1s", producer.send, Message("TopicTest", "hello", tags="TagA", keys="k1"))
_ = lab.run(until="2s")

# %% [markdown]
# Every observable step is one `TraceEvent(time_ms, kind, actor, msg_id, data)`. Here is the message's life:

# %%
show_trace(lab.trace, msg_id="M0001")

# %% [markdown]
# Message ids are `M0001`, `M0002`, … in send order; the id (RocketMQ's `UNIQ_KEY`) is kept across retries.

# %% [markdown]
# ### Starting the consumer made it subscribe a second topic
# Step the picture above to 4 s: when c1 starts, its box lists `%RETRY%cg:0` beside TopicTest's queues. In
# CLUSTERING mode a consumer also subscribes `%RETRY%<group>`: `DefaultMQPushConsumerImpl.start()` calls its
# `copySubscription()`, which copies the subscriptions into the `RebalanceImpl` and adds the retry topic. The trace
# says the same:

# %%
show_trace(lab.trace, "rebalanced", fields=("topic", "added"))

# %% [markdown]
# ## Two consumers share the queues
# The same seed and the same calls always give the same trace — one virtual clock, a seeded random generator, no
# wall time. The `Dashboard` is built on that: it calls a factory for a fresh Lab and replays it to any step, so
# Step, Step back and Jump show the engine's state at that moment.
#
# The factory below is this lab's run from the start: c1 alone, a message every 10 s, a second consumer `c2` of
# the same group joining early on and shutting down cleanly at 45 s. The picture shows its first 30 s (c2 leaving
# has its own picture below). Step until it stops with a question: answer it, and Exercise 1 under it, before you
# step on, and watch which consumer owns which queue.

# %% tags=["nbval-ignore-output"]
def tour_lab():
    """This lab's run as a factory: TopicTest × 4 queues on each broker, c1, c2 from 2 s to 45 s, one message / 10 s."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("TopicTest", queues=4)
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=always_ok, name="c1")
    for k, second in enumerate(range(1, 60, 10)):
        lab.at(f"{second}s", producer.send, Message("TopicTest", f"m{k}", tags="TagA"))
    lab.at("2s", lambda: lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=always_ok, name="c2"))
    lab.at("45s", lambda: lab.consumers["c2"].shutdown())
    return lab

dash = Dashboard(tour_lab, horizon="30s", checkpoints=[
    Checkpoint(before="rebalanced", actor="consumer:c2", ask="when", optional=True, name="c2 gets its queues",
               question="A second consumer, c2, is about to join group cg. When does c2 get its first queue? "
                        "Pick the time.",
               explain=sealed_explanation("00.c2-gets-queues")),
])
dash

# %% [markdown]
# Every button has a method twin, so a cell can drive the Dashboard too. This one stops the picture just
# before c2 takes its share, where the picture asks its question (scroll up: the Dashboard shows that moment).

# %%
dash.controller.goto_checkpoint("c2 gets its queues")
print(dash.controller.clock_text)

# %% [markdown]
# ### Exercise 1 — predict, then run
# Two consumers of group `cg` share the 8 queues of `TopicTest` (4 on each broker) with the default
# `AllocateMessageQueueAveragely`. How many `TopicTest` queues does the new consumer `c2` get?
# Predict, then Step the picture on to see it.

# %% nbgrader={"grade": false, "grade_id": "ex00_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← your prediction
### BEGIN SOLUTION
answer_1 = 4
### END SOLUTION

# %% [markdown]
# The same in the cell-by-cell lab of this notebook: add c2 and run to 30 s.

# %%
c2 = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=always_ok, name="c2")
lab.run(until="30s")
mine = [mq for mq in c2.process_queue_table if mq.topic == "TopicTest"]

# %% nbgrader={"grade": true, "grade_id": "ex00_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("00.1", answer_1, len(mine))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_00_1
grading_00_1.verify("00.1", answer_1)
### END HIDDEN TESTS

# %%
print(sorted(str(mq) for mq in mine))

# %% [markdown]
# > **Common belief vs. the source.** "A new consumer gets its queues at the next 20 s rebalance." — c2 got them
# > the moment it started: `DefaultMQPushConsumerImpl.start()` calls `rebalanceImmediately()`, and the broker's
# > `NOTIFY_CONSUMER_IDS_CHANGED` wakes the members already there (`ClientRemotingProcessor`). `RebalanceService`'s
# > 20 s period only catches up with what a notification missed.

# %% [markdown]
# ## Driving a run
# The picture first: this lab's cells as a factory (c1 from 0 s, pg's "hello" at 1 s, c2 from 2 s), plus the send the
# next cell schedules, `lab.at("31s", ...)`: M0002, "second". Its buttons are the methods a cell calls. **Step** is
# `lab.step()`, repeated until something worth seeing has happened (tick *every event* and one Step is one
# `lab.step()`). **Play** is `lab.run(until="32s")`, drawn as it goes. `lab.scheduler.peek()` is the time of the
# event the next Step runs. Step: it stops before M0002 reaches a consumer and asks which one.

# %% tags=["nbval-ignore-output"]
def driving_lab():
    """This lab's cells as a factory: c1 from 0 s, "hello" at 1 s, c2 from 2 s, and "second" (M0002) at 31 s."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("TopicTest", queues=4)
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=always_ok, name="c1")
    lab.at("1s", producer.send, Message("TopicTest", "hello", tags="TagA", keys="k1"))
    lab.at("2s", lambda: lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=always_ok, name="c2"))
    lab.at("31s", producer.send, Message("TopicTest", "second"))
    return lab


drive_dash = Dashboard(driving_lab, horizon="32s", checkpoints=[
    Checkpoint(before="delivered", msg_id="M0002", ask="who", pause_before="pulled", optional=True,
               name="who gets M0002",
               question="pg sent M0001 at 1 s. At 31 s it sends M0002 (\"second\"). Which consumer of cg gets M0002? "
                        "Pick who.",
               hint="Which queue does pg's round-robin pick after M0001's, and whose lane holds that queue now?",
               explain=sealed_explanation("00.who-gets-second")),
])
drive_dash

# %%
lab.at("31s", producer.send, Message("TopicTest", "second"))
print("next event at", format_duration(lab.scheduler.peek()))
lab.run(until="32s")
print(format_duration(lab.now), "—", len(lab.trace), "events so far")

# %%
show_trace(lab.trace, msg_id="M0002")

# %% [markdown]
# ## When c2 leaves
# The picture again, to 60 s. Step on: it stops before c2 shuts down and asks when c1 takes back the queues c2
# held.

# %% tags=["nbval-ignore-output"]
leave_dash = Dashboard(tour_lab, horizon="60s", checkpoints=[
    Checkpoint(before="rebalanced", actor="consumer:c1", nth=5, ask="when", optional=True,
               name="c1 takes c2's queues back",
               question="c2 is about to shut down cleanly. When does c1 rebalance and take its queues? Pick the time.",
               hint="Who tells c1 that c2 left, and does c1 wait for its 20 s period after that?",
               explain=sealed_explanation("00.c1-back")),
])
leave_dash.controller.goto_checkpoint("c1 takes c2's queues back")
leave_dash

# %% [markdown]
# ### Exercise 2 — predict, then run
# c2 shuts down cleanly at 45 s. A consumer rebalances again 20 s after its last rebalance ended
# (`RebalanceService`: `waitForRunning(20000)`): c1 last rebalanced at 42 s, so its next one is due at 62 s.
# How many `TopicTest` queues does c1 own at 46 s? Predict, then Step the picture past 45 s.

# %% nbgrader={"grade": false, "grade_id": "ex00_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← your prediction
### BEGIN SOLUTION
answer_2 = 8
### END SOLUTION

# %%
lab.at("45s", c2.shutdown)
lab.run(until="46s")
c1_queues = [mq for mq in consumer.process_queue_table if mq.topic == "TopicTest"]

# %% nbgrader={"grade": true, "grade_id": "ex00_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("00.2", answer_2, len(c1_queues))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_00_2
grading_00_2.verify("00.2", answer_2)
### END HIDDEN TESTS

# %%
show_trace(lab.trace, "lifecycle", "rebalanced", fields=("event", "topic", "added"))

# %% [markdown]
# ## Key points
# - `Lab` = clock + brokers + clients; everything happens at `lab.at(...)` times.
# - The trace is the single source of truth; every table in these labs is printed from it.
# - The names (`%RETRY%cg`, `MessageQueue`, `CONSUME_SUCCESS`) are RocketMQ's own.

# %% [markdown]
# ## Keeping what you saw
# To hand in or share a run, save it from a cell of your own (`from rmqlab.widgets.export import save_html, save_jsonl,
# save_png, save_svg`): `save_html(dash, "tour.html")` writes a page that opens in any browser without Jupyter,
# light or dark; `save_svg` / `save_png` keep one picture; `save_jsonl(dash, "tour.jsonl")` keeps the trace up
# to where the Dashboard stands, one event per line, the same file `rmqlab run FILE --jsonl OUT` writes.

# %% [markdown]
# ## Your score
# Run this cell last: one line per exercise of this lab, from the checks you ran.

# %%
score("00")
