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
# [Index](README.md) · [← Back](05_offsets_process_queue.ipynb) · [Next →](07_orderly_consumption_locks.ipynb)

# %% [markdown]
# # 06 · Ordered send with a MessageQueueSelector
#
# **Goal:** pin each order to one queue, and see what a broker outage does to that mapping.
# Source: `DefaultMQProducerImpl.sendSelectImpl`, `client/.../producer/selector/SelectMessageQueueByHash.java`.

# %%
from rmqlab import ConsumeConcurrentlyStatus, ConsumeOrderlyStatus, Lab, Message, after, format_duration
from rmqlab.exercises import assert_right, check, score, show_trace, table

CONSUME_SUCCESS = ConsumeConcurrentlyStatus.CONSUME_SUCCESS
RECONSUME_LATER = ConsumeConcurrentlyStatus.RECONSUME_LATER
SEED = 7


# %%
def by_order_id(mqs, msg, order_id):
    """The classic selector: order_id % len(mqs)."""
    return mqs[order_id % len(mqs)]

def ordered_lab():
    """Two brokers × 4 queues; orders 3 and 5 send one event each at the given seconds."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("TopicTest")
    return lab, lab.add_producer("pg")


# %% [markdown]
# ## A tiny run: two orders, two queues

# %%
lab, p = ordered_lab()
for order_id in (3, 5):
    lab.at("1s", p.send_with_selector, Message("TopicTest", f"order {order_id} created"), by_order_id, order_id)
_ = lab.run(until="2s")
show_trace(lab.trace, "send_attempt", "send_result")

# %% [markdown]
# The selector sees the route's 8 queues `[a0..a3, b0..b3]`: order 3 → a3, order 5 → b1.
# ### Exercise 1 — predict, then run
# broker-a goes down at 5 s. Order 3's next event is sent at 10 s. How many attempts does that send make?

# %% nbgrader={"grade": false, "grade_id": "ex06_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← your prediction
### BEGIN SOLUTION
answer_1 = 1
### END SOLUTION

# %%
def outage_lab():
    """Orders 3 and 5 send at 1 s, 10 s and 45 s; broker-a goes down at 5 s."""
    lab, p = ordered_lab()
    for t in ("1s", "10s", "45s"):
        for order_id in (3, 5):
            lab.at(t, p.send_with_selector, Message("TopicTest", f"order {order_id} @ {t}"), by_order_id, order_id)
    lab.at("5s", lab.broker_down, "broker-a")
    return lab

lab = outage_lab()
lab.run(until="50s")
show_trace(lab.trace, "send_attempt", "send_failed")

# %% nbgrader={"grade": true, "grade_id": "ex06_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("06.1", answer_1, lab.sends[2].attempts)
### BEGIN HIDDEN TESTS
assert_right("06.1")
### END HIDDEN TESTS

# %% [markdown]
# That is what makes ordered sending "stick": a retry elsewhere would break the order.
# ### Exercise 2 — predict, then run
# After the producer's route refresh (every 30 s, `pollNameServerInterval`), the list has only broker-b's 4 queues.
# Which queue does order 3 use at 45 s? Answer like `"TopicTest@broker-a:0"`.

# %% nbgrader={"grade": false, "grade_id": "ex06_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← your prediction
### BEGIN SOLUTION
answer_2 = "TopicTest@broker-b:3"
### END SOLUTION

# %%
late = [e for e in lab.trace.of_kind("send_attempt") if e.time_ms == 45_000]
where = {e.msg_id: f"TopicTest@{e.get('broker')}:{e.get('queue_id')}" for e in late}
print(where)

# %% nbgrader={"grade": true, "grade_id": "ex06_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("06.2", answer_2, where["M0005"])
### BEGIN HIDDEN TESTS
assert_right("06.2")
### END HIDDEN TESTS

# %% [markdown]
# ## Watch it step by step
# `outage_lab()` in a `Dashboard`. Below, the controller seeks to the end of the run (50 s) and the queue tab prints
# as text: order 3's events are split between `broker-a:3` and `broker-b:3`.

# %% tags=["nbval-ignore-output"]
from widgets.dashboard import Dashboard

dash = Dashboard(outage_lab, horizon="50s")
dash

# %%
dash.controller.seek(dash.controller.end)
tabs = {view.title: view.text for view in dash.views}
print(dash.controller.clock_text)
print(tabs["Queues"])

# %% [markdown]
# ## Key points
# - Selector sends: one attempt, same queue; a down broker means failed sends until the route changes.
# - `order_id % len(mqs)` depends on the queue count: when the route changes the mapping shifts.

# %% [markdown]
# ## Your score
# Run this cell last: one line per exercise of this lab, from the checks you ran.

# %%
score("06")
