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
# [Index](README.md) · [← Back](04_dead_letter_queue.ipynb) · [Next →](06_ordered_send.ipynb)

# %% [markdown]
# # 05 · Offsets and the ProcessQueue TreeMap
#
# **Goal:** see why the committed offset is the *smallest* offset still in flight, and what a crash then costs.
# Source: `client/.../impl/consumer/ProcessQueue.java` (`removeMessage`), `client/.../consumer/store/RemoteBrokerOffsetStore.java`.

# %%
from rmqlab import ConsumeConcurrentlyStatus, ConsumeOrderlyStatus, Lab, Message, after, format_duration
from rmqlab.exercises import assert_right, check, score, show_trace, table

CONSUME_SUCCESS = ConsumeConcurrentlyStatus.CONSUME_SUCCESS
RECONSUME_LATER = ConsumeConcurrentlyStatus.RECONSUME_LATER
SEED = 7


# %%
def listener(msgs, ctx):
    """Message 'slow' takes 60 s; every other one is instant."""
    return after("60s", CONSUME_SUCCESS) if msgs[0].body == "slow" else CONSUME_SUCCESS

def five_messages():
    """One queue; ok0, slow, ok2, ok3, ok4 sent at 1..5 s."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    c = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=listener, name="c1")
    for i, body in enumerate(["ok0", "slow", "ok2", "ok3", "ok4"]):
        lab.at(f"{1 + i}s", p.send, Message("TopicTest", body))
    return lab, c


# %% [markdown]
# ## A tiny run: look inside the TreeMap at 10 s

# %%
lab, c = five_messages()
lab.run(until="10s")
(mq, pq), = [(mq, pq) for mq, pq in c.process_queue_table.items() if mq.topic == "TopicTest"]
print("msg_tree_map keys:", list(pq.msg_tree_map.keys()))

# %% [markdown]
# Offsets 2, 3, 4 are done, yet offset 1 is still in the map (its listener is running).
# ### Exercise 1 — predict, then run
# Which offset does the consumer commit for this queue at 10 s?

# %% nbgrader={"grade": false, "grade_id": "ex05_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← your prediction
### BEGIN SOLUTION
answer_1 = 1
### END SOLUTION

# %%
committed = c.offset_store.offset_table[mq]
print("committed:", committed)

# %% nbgrader={"grade": true, "grade_id": "ex05_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("05.1", answer_1, committed)
### BEGIN HIDDEN TESTS
assert_right("05.1")
### END HIDDEN TESTS

# %% [markdown]
# > **Common belief vs. the source.** "The committed offset is the last consumed message." — it is the smallest offset still
# > in the ProcessQueue (or last + 1 when empty).
# ## Crash → duplicates
# The consumer crashes at 30 s (nothing persisted since) and restarts at 40 s from the broker's offset.
# ### Exercise 2 — predict, then run
# How many messages are delivered a **second** time after the restart?

# %% nbgrader={"grade": false, "grade_id": "ex05_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← your prediction
### BEGIN SOLUTION
answer_2 = 4
### END SOLUTION

# %%
lab, c = five_messages()
lab.at("30s", c.crash)
lab.at("40s", c.start)
lab.run(until="2m")
show_trace(lab.trace, "delivered", "lifecycle", "offset_persisted", fields=("queue_offset", "event", "offset"))
again = [e for e in lab.trace.of_kind("delivered") if e.time_ms >= 40_000]

# %% nbgrader={"grade": true, "grade_id": "ex05_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("05.2", answer_2, len(again))
### BEGIN HIDDEN TESTS
assert_right("05.2")
### END HIDDEN TESTS

# %% [markdown]
# At-least-once, never at-most-once: make listeners idempotent.

# %% [markdown]
# ## Watch it step by step
# `five_messages()` in a `Dashboard`: scrub through the run and watch offset 1 pin the commit. Below, the controller
# steps until the virtual clock reaches 10 s (the tiny run's moment) and the TreeMap and queue tabs print as text.

# %% tags=["nbval-ignore-output"]
from widgets.dashboard import Dashboard

dash = Dashboard(lambda: five_messages()[0], horizon="2m")
dash

# %%
while dash.controller.snapshot.now_ms < 10_000 and dash.controller.step_once():
    pass
tabs = {view.title: view.text for view in dash.views}
print(dash.controller.clock_text)
print(tabs["ProcessQueues"])
print(tabs["Queues"])

# %% [markdown]
# ## Key points
# - Committed offset = smallest key in `msgTreeMap`; one slow message pins it (`consumeConcurrentlyMaxSpan` 2000 limits the damage).
# - Offsets reach the broker every 5 s (`persistConsumerOffsetInterval`) and on pulls; a crash loses the rest.

# %% [markdown]
# ## Your score
# Run this cell last: one line per exercise of this lab, from the checks you ran.

# %%
score("05")
