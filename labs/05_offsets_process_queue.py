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
# [Index](README.md) · [← Back](04b_stranded_retry_queues.ipynb) · [Next →](06_ordered_send.ipynb)

# %% [markdown]
# # 05 · Offsets and the ProcessQueue TreeMap
#
# **Goal:** see which offset a concurrent consumer commits (the *smallest* offset still in flight), when the broker
# learns it, and what a crash then costs.
# Source: `client/.../impl/consumer/ProcessQueue.java` (`removeMessage`),
# `client/.../consumer/store/RemoteBrokerOffsetStore.java`, `client/.../impl/factory/MQClientInstance.java`.

# %%
from rmqlab import ConsumeConcurrentlyStatus, Lab, Message, after
from rmqlab.course.exercises import assert_right, check, score, show_trace, table

CONSUME_SUCCESS = ConsumeConcurrentlyStatus.CONSUME_SUCCESS
SEED = 7


# %%
def listener(msgs, ctx):
    """Message 'slow' takes 60 s; every other one is instant."""
    return after("60s", CONSUME_SUCCESS) if msgs[0].body == "slow" else CONSUME_SUCCESS

def five_messages(slow_at=1):
    """One queue; five messages sent at 1..5 s, the one at offset ``slow_at`` (default: ok0, slow, ok2, ok3, ok4)
    is ``slow``, the others ``ok<offset>``."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    c = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=listener, name="c1")
    for i in range(5):
        lab.at(f"{1 + i}s", p.send, Message("TopicTest", "slow" if i == slow_at else f"ok{i}"))
    return lab, c

def crash_lab(crash_at_s=0, restart_at_s=0):
    """``five_messages()`` as a Dashboard factory; ``crash_at_s`` > 0: c1 crashes then, and restarts at ``restart_at_s``."""
    lab, c = five_messages()
    if crash_at_s > 0:
        lab.at(f"{crash_at_s}s", c.crash)
        lab.at(f"{restart_at_s}s", c.start)
    return lab


def topic_queue(c):
    """c's MessageQueue and ProcessQueue for TopicTest."""
    return next((mq, pq) for mq, pq in c.process_queue_table.items() if mq.topic == "TopicTest")


# %% [markdown]
# ## A tiny run: look inside the TreeMap
# The picture: five messages on one queue, `slow` (offset 1) second; its listener takes 60 s, the others return at
# once. Its tokens carry message ids in the order sent: M0001 = `ok0` (offset 0), M0002 = `slow` (offset 1),
# M0003–M0005 = `ok2` … `ok4` (offsets 2–4). The ProcessQueues tab under the picture is the queue's TreeMap (offsets
# in process, done) and the committed offset, which reads "?" until you answer the question. Step: the picture stops
# once M0003–M0005 are done and asks when the committed offset moves.

# %% tags=["nbval-ignore-output"]
from rmqlab.widgets.checkpoints import Checkpoint, sealed_explanation
from rmqlab.widgets.dashboard import Dashboard

dash = Dashboard(crash_lab, horizon="2m", checkpoints=[
    Checkpoint(before="offset_updated", queue="TopicTest@broker-a:0", nth=2, ask="when", optional=True,
               hides=("committed_offset",),  # the ProcessQueues tab shows "committed ?" until it is answered
               name="when the committed offset moves past slow",
               question="M0003–M0005 (offsets 2–4) are done; slow (M0002) is still in its listener. When does "
                        "c1's committed offset change next? Pick the time.",
               explain=sealed_explanation("05.offset-past-slow")),
])
dash

# %%
lab, c = five_messages()
lab.run(until="10s")
mq, pq = topic_queue(c)
print("msg_tree_map keys:", list(pq.msg_tree_map.keys()))

# %% [markdown]
# Offsets 2, 3 and 4 are done and gone from the map; offset 1 (`slow`) is still in it, its listener running.
#
# ### Exercise 1 — predict, then run
# Another order of the same five messages: `slow` is sent **fourth** (`ok0`, `ok1`, `ok2`, `slow`, `ok4`, so `slow`
# has offset 3). Which offset does the consumer hold as committed for this queue at 10 s?

# %% nbgrader={"grade": false, "grade_id": "ex05_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← your prediction
### BEGIN SOLUTION
answer_1 = 3
### END SOLUTION

# %%
lab, c = five_messages(slow_at=3)
lab.run(until="10s")
mq, pq = topic_queue(c)
committed = c.offset_store.offset_table[mq]
print("msg_tree_map keys:", list(pq.msg_tree_map.keys()))

# %% nbgrader={"grade": true, "grade_id": "ex05_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("05.1", answer_1, committed)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_05_1
grading_05_1.verify("05.1", answer_1)
### END HIDDEN TESTS

# %% [markdown]
# ## Two copies of the offset: the client's and the broker's
# The committed offset above lives in the consumer's memory (`RemoteBrokerOffsetStore.offsetTable`). The broker keeps
# its own copy for the group, and a consumer that restarts resumes from the broker's. The picture: the crash-free run
# again, open on its ProcessQueues tab, whose strip marks both copies under the queue: "committed" (the client's) and
# "broker" (broker-a's). Step or Play: it stops when slow (M0002) returns and the client's copy moves, and asks when
# the broker's copy follows.

# %% tags=["nbval-ignore-output"]
copies_dash = Dashboard(crash_lab, horizon="2m", tab="ProcessQueues", checkpoints=[
    Checkpoint(before="offset_persisted", queue="TopicTest@broker-a:0", nth=2, ask="when", optional=True,
               name="when the broker's copy follows",
               question="slow (M0002) has returned, and the strip's \"committed\" mark (c1's copy) has jumped to "
                        "{offset}; its \"broker\" mark (broker-a's copy) has not moved. When does broker-a's copy "
                        "change? Pick the time.",
               hint="The broker learns c1's offset only when c1 tells it: on a pull request (c1's last one is held at "
                    "the broker: nothing new to pull) or from c1's persistAllConsumerOffset timer, which first ran 10 s after c1's "
                    "start and runs every 5 s after that (persistConsumerOffsetInterval).",
               explain=sealed_explanation("05.broker-copy-follows"))])
copies_dash

# %% [markdown]
# The same run as a table, up to the picture's question (at 30 s `slow` is still in its listener): the TreeMap's keys
# and both copies.

# %%
def offsets_over_time(times):
    """At each time: the TreeMap keys, the client's committed offset and the broker's stored one."""
    lab, c = five_messages()
    rows = []
    for t in times:
        lab.run(until=t)
        mq, pq = topic_queue(c)
        broker = lab.brokers["broker-a"].query_consumer_offset("cg", "TopicTest", 0)
        rows.append([t, list(pq.msg_tree_map.keys()), c.offset_store.offset_table.get(mq), broker])
    return table(rows, ["virtual time", "msg_tree_map keys", "client (committed)", "broker (persisted)"])

print(offsets_over_time(["1.5s", "5.5s", "30s"]))

# %% [markdown]
# The client's copy moves when `removeMessage` says so; the broker's only when the client tells it: piggy-backed on
# each pull request, and from `persistAllConsumerOffset`, which runs 10 s after start and then every 5 s
# (`persistConsumerOffsetInterval`). Between the two a crash loses the client's copy.

# %% [markdown]
# ## A crash between the two copies
# The picture: the same run with a crash at 30 s and a restart at 40 s (the knobs), stopped at the crash. Step on: it
# stops after the restart and asks where `slow` is delivered next.

# %% tags=["nbval-ignore-output"]
crash_dash = Dashboard(crash_lab, knobs={"crash_at_s": 30, "restart_at_s": 40}, horizon="2m", checkpoints=[
    Checkpoint(before="delivered", msg_id="M0002", nth=2, pause_before="pulled", ask="where", optional=True,
               name="what becomes of slow",
               question="c1 crashed while slow ({msg}) was in its listener, and has restarted. Where is slow delivered "
                        "next? Click the place in the picture (or a button).",
               hint="A restarted consumer starts each queue from the offset the broker holds for its group; what "
                    "had the client committed, and sent, while slow was running?",
               explain=sealed_explanation("05.slow-after-restart"))])
crash_dash.controller.seek_time("30s")
crash_dash

# %% [markdown]
# ### Exercise 2 — predict, then run
# The picture's crash and restart (30 s, 40 s), but `slow` is sent **third** this time (`ok0`, `ok1`, `slow`, `ok3`,
# `ok4`: `slow` has offset 2). The consumer restarts from the broker's offset. How many messages are delivered a
# **second** time after the restart?

# %% nbgrader={"grade": false, "grade_id": "ex05_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← your prediction
### BEGIN SOLUTION
answer_2 = 3
### END SOLUTION

# %%
lab, c = five_messages(slow_at=2)
lab.at("30s", c.crash)
lab.at("40s", c.start)
lab.run(until="2m")
again = [e for e in lab.trace.of_kind("delivered") if e.time_ms >= 40_000]

# %% nbgrader={"grade": true, "grade_id": "ex05_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("05.2", answer_2, len(again))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_05_2
grading_05_2.verify("05.2", answer_2)
### END HIDDEN TESTS

# %%
show_trace(lab.trace, "delivered", "lifecycle", fields=("queue_offset", "event"))

# %% [markdown]
# ### Exercise 3 — predict, then run
# A fresh run; this time the consumer crashes at **63 s**, after `slow` has returned: all five messages are
# consumed and the client holds offset 5. From which offset does the restarted consumer pull?
# Predict, then set the picture's knobs to a crash at 63 s and a restart at 70 s, Rebuild, and step past 70 s.

# %% nbgrader={"grade": false, "grade_id": "ex05_3_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_3 = ...  # ← your prediction
### BEGIN SOLUTION
answer_3 = 1
### END SOLUTION

# %%
lab, c = five_messages()
lab.at("63s", c.crash)
lab.at("70s", c.start)
lab.run(until="3m")
restart_offset = min(e.get("queue_offset") for e in lab.trace.of_kind("delivered") if e.time_ms >= 70_000)

# %% nbgrader={"grade": true, "grade_id": "ex05_3", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("05.3", answer_3, restart_offset)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_05_3
grading_05_3.verify("05.3", answer_3)
### END HIDDEN TESTS

# %%
show_trace(lab.trace, "offset_updated", "offset_persisted", "lifecycle", fields=("queue", "offset", "event"))
print(offsets_over_time(["62s", "66s"]))  # the crash-free run after slow returns: both copies reach 5

# %% [markdown]
# The last persist before the crash was at 60 s, when the committed offset was still 1; the 5 reached only the
# client's memory. In the crash-free run (the table above) the client's copy reaches 5 the moment `slow` returns, and
# the broker's at the next persist tick. At-least-once, never at-most-once: make listeners idempotent.
#
# > **Common belief vs. the source.** "A consumer acknowledges each message, so its offset is the last message it
# > finished." — a concurrent consumer commits the *smallest* offset still in flight: `ProcessQueue.removeMessage`
# > (4.9.7) returns `msgTreeMap.firstKey()`, or `queueOffsetMax + 1` once the TreeMap is empty. One slow message holds
# > the whole queue's offset back, and a crash re-delivers everything after it.

# %% [markdown]
# ### The whole run as a chart: consumer lag
# `mqadmin consumerProgress` reports a group's lag per queue as the queue's max offset minus the offset the
# *broker* holds (`ConsumeStats`: brokerOffset − consumerOffset). Before you look: in a crash-free run, when does
# that lag drop to 0, and when does the lag against the client's own copy?

# %%
from rmqlab.widgets.charts import lag_chart

lab, c = five_messages()
lag_chart(lab.run(until="2m"))

# %% [markdown]
# Read the two lines: what holds both up while `slow` runs, and when does each drop to 0? The broker's drops at
# the next persist tick after the client's: between the two the broker counts as unconsumed messages that are done,
# and a crash then would deliver them again.
#
# ## Key points
# - The committed offset comes from `ProcessQueue.removeMessage`, read off `msgTreeMap`; `consumeConcurrentlyMaxSpan`
#   (2000) limits how far the map may spread by pausing pulls.
# - Pulls pause, they never drop: while a ProcessQueue caches more than `pullThresholdForQueue` (1000) messages,
#   more than `pullThresholdSizeForQueue` (100 MiB of bodies) or spans more than `consumeConcurrentlyMaxSpan`,
#   `pullMessage` puts the queue's next pull off by 50 ms. Each time is a `pull_deferred` event with its reason
#   (`lab.trace.where("pull_deferred")`; `examples/pull_flow_control.yaml` shows all of them).
# - The broker's copy of the offset comes from pulls and the 5 s persist timer, the client's from `removeMessage`:
#   two copies, updated at different moments. Listeners must be idempotent. A clean `shutdown()` discards what its listeners
#   are still doing (`awaitTerminationMillisWhenShutdown` 0); with `await_termination_millis_when_shutdown` set it
#   waits that long for them and persists what they finished.
# - A new group with `CONSUME_FROM_LAST_OFFSET` does not skip what a fresh queue already holds: while offset 0 is
#   still in the queue the broker answers 0 (`queryConsumerOffset`), so a message sent the millisecond before the
#   start is consumed. Only a failed offset query starts it at the max offset it sees
#   (`examples/start_order_same_ms.yaml`, where a scenario's `start_order` puts the start after the send).
# - The same holds for `CONSUME_FROM_TIMESTAMP`; where it applies, it starts at the message stored *nearest*
#   `consume_timestamp` (a binary search, not "the first one after"): `examples/consume_from_timestamp.yaml`.

# %% [markdown]
# ## Your score
# Run this cell last: one line per exercise of this lab, from the checks you ran.

# %%
score("05")
