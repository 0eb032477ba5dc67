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
# [Index](README.md) · [← Back](06_ordered_send.ipynb) · [Next →](08_broadcasting_vs_clustering.ipynb)

# %% [markdown]
# # 07 · Orderly consumption and the three locks
#
# **Goal:** see local retries with `SUSPEND_CURRENT_QUEUE_A_MOMENT`, the DLQ only past an explicit max, and lock timing.
# Source: `client/.../impl/consumer/ConsumeMessageOrderlyService.java`, `ProcessQueue.java`,
# `broker/.../client/rebalance/RebalanceLockManager.java`.

# %%
from rmqlab import ConsumeConcurrentlyStatus, ConsumeOrderlyStatus, Lab, Message, after, format_duration
from rmqlab.exercises import assert_right, check, score, show_trace, table

CONSUME_SUCCESS = ConsumeConcurrentlyStatus.CONSUME_SUCCESS
RECONSUME_LATER = ConsumeConcurrentlyStatus.RECONSUME_LATER
SEED = 7

# %%
SUSPEND = ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT

def listener(msgs, ctx):
    """Message 'bad' always asks to suspend; others succeed."""
    return SUSPEND if msgs[0].body == "bad" else ConsumeOrderlyStatus.SUCCESS

def orderly_lab(**consumer_options):
    """One queue, an orderly consumer c1; a, bad, c sent at 2, 3, 4 s."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    c = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=listener, orderly=True, name="c1", **consumer_options)
    for i, body in enumerate(["a", "bad", "c"]):
        lab.at(f"{2 + i}s", p.send, Message("TopicTest", body))
    return lab, c


# %% [markdown]
# ## A tiny run: default settings

# %%
lab, c = orderly_lab()
lab.run(until="10s")
show_trace(lab.trace, "delivered", "suspended", fields=("queue_offset", "reconsume_times", "retry_in_ms"))

# %% [markdown]
# Retries are **local**: same queue, same consumer, every `suspendCurrentQueueTimeMillis` = 1000 ms. `c` waits behind `bad`.
# > **Common belief vs. the source.** "Orderly consumers retry 16 times then DLQ." — orderly max −1 means
# > `Integer.MAX_VALUE`: the queue retries every second forever. No `%RETRY%` round trip, no 10 s / 30 s schedule.
# ### Exercise 1 — predict, then run
# With `max_reconsume_times=3`, how many times is `bad` delivered before the queue moves on?

# %% nbgrader={"grade": false, "grade_id": "ex07_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← your prediction
### BEGIN SOLUTION
answer_1 = 4
### END SOLUTION

# %%
lab, c = orderly_lab(max_reconsume_times=3)
lab.run(until="3m")
show_trace(lab.trace, "delivered", "scheduled", "dead_lettered", "stored", fields=("queue_offset", "reconsume_times", "level", "real_topic", "topic"))
bad = [e for e in lab.trace.of_kind("delivered") if e.msg_id == "M0002"]

# %% nbgrader={"grade": true, "grade_id": "ex07_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("07.1", answer_1, len(bad))
### BEGIN HIDDEN TESTS
assert_right("07.1")
### END HIDDEN TESTS

# %% [markdown]
# In 4.9.x the DLQ copy keeps `DELAY = 3 + rt` (level 6 = 2 min here) and reaches `%DLQ%cg` only after it (spec §4.3 quirk).
# ## The three locks
# 1. the **broker queue lock** (`lockBatchMQ`, CLUSTERING only), 2. the local per-queue lock (`MessageQueueLock`),
# 3. the ProcessQueue consume lock held around each listener call.

# %%
lab, c = orderly_lab()
lab.run(until="65s")
show_trace(lab.trace, "lock_acquired", "lock_renewed", fields=("queue",))

# %% [markdown]
# `lockAll` runs 1 s after start, then every 20 s (`REBALANCE_LOCK_INTERVAL`). The client trusts its lock for 30 s
# (`REBALANCE_LOCK_MAX_LIVE_TIME`), the broker keeps it for **60 s**.
# ### Exercise 2 — predict, then run
# c1 crashes at 10 s (no unlock). A second consumer c2 of the group started at 11 s. At which second does c2
# first acquire the `TopicTest` queue lock?

# %% nbgrader={"grade": false, "grade_id": "ex07_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← your prediction
### BEGIN SOLUTION
answer_2 = 71
### END SOLUTION

# %%
lab, c = orderly_lab()
lab.at("10s", c.crash)
c2 = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=listener, orderly=True, name="c2", start="11s")
lab.run(until="90s")
show_trace(lab.trace, "lock_acquired", "lock_refused", "lifecycle", fields=("queue", "event"))
got = [e for e in lab.trace.of_kind("lock_acquired") if e.actor == "consumer:c2" and e.get("queue") == "TopicTest@broker-a:0"]

# %% nbgrader={"grade": true, "grade_id": "ex07_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("07.2", answer_2, got[0].time_ms // 1000)
### BEGIN HIDDEN TESTS
assert_right("07.2")
### END HIDDEN TESTS

# %% [markdown]
# > **Common belief vs. the source.** "The broker lock expires after 30 s." — broker 60 s; 30 s is the client's own expiry.

# %% [markdown]
# ## Watch it step by step
# `orderly_lab` in a `Dashboard` with a `max_reconsume_times` knob. Below, the controller jumps to the second
# `suspended` event: `bad` (offset 1) is back in the TreeMap with `c` behind it, and the locks tab shows the broker
# lease and the client's own view of it.

# %% tags=["nbval-ignore-output"]
from widgets.dashboard import Dashboard

def orderly_run(max_reconsume_times=3):
    """orderly_lab as a zero-argument (knob-only) factory: the Lab alone."""
    return orderly_lab(max_reconsume_times=max_reconsume_times)[0]

dash = Dashboard(orderly_run, knobs={"max_reconsume_times": 3}, horizon="3m")
dash

# %%
for _ in range(2):
    dash.controller.jump_to_next("suspended")
tabs = {view.title: view.text for view in dash.views}
print(dash.controller.clock_text)
print(tabs["ProcessQueues"])
print(tabs["Locks"])

# %% [markdown]
# ## Key points
# - Orderly failure = local retry after `suspendCurrentQueueTimeMillis`; unlimited by default; DLQ only with an explicit max.
# - Locks: broker lease 60 s, renewed every 20 s, client trusts it for 30 s.

# %% [markdown]
# ## Your score
# Run this cell last: one line per exercise of this lab, from the checks you ran.

# %%
score("07")
