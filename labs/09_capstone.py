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
# [Index](README.md) · [← Back](08_broadcasting_vs_clustering.ipynb)

# %% [markdown]
# # 09 · Capstone: diagnose a misbehaving system
#
# **Goal:** read a trace, name the mechanism at fault, and fix the configuration.

# %%
from rmqlab import ConsumeConcurrentlyStatus, ConsumeOrderlyStatus, Lab, Message, after, format_duration
from rmqlab.exercises import assert_right, check, score, show_trace, table

CONSUME_SUCCESS = ConsumeConcurrentlyStatus.CONSUME_SUCCESS
RECONSUME_LATER = ConsumeConcurrentlyStatus.RECONSUME_LATER
SEED = 7


# %% [markdown]
# The story: an orderly payment consumer "hangs" — new payments on queue 0 stop being processed,
# and nothing shows up in any DLQ. Here is the system as deployed.

# %%
def payments(msgs, ctx):
    """A payment whose body is 'bad-card' can never succeed."""
    if msgs[0].body == "bad-card":
        return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT
    return ConsumeOrderlyStatus.SUCCESS

def deployed_lab(**consumer_options):
    """One queue, an orderly consumer, five payments at 1..5 s, the third one poisoned."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("Payments", queues=1)
    p = lab.add_producer("pay-producer")
    lab.add_consumer("pay-cg", subscribe={"Payments": "*"}, listener=payments, orderly=True, name="pay-1", **consumer_options)
    for i, body in enumerate(["p1", "p2", "bad-card", "p4", "p5"]):
        lab.at(f"{1 + i}s", p.send, Message("Payments", body))
    return lab

def deployed(**consumer_options):
    """deployed_lab run for its first 10 minutes."""
    return deployed_lab(**consumer_options).run(until="10m")


# %% [markdown]
# ## A tiny look first: the first 12 deliveries

# %%
lab = deployed()
show_trace(lab.trace, "delivered", fields=("queue_offset", "reconsume_times"), limit=12)

# %% [markdown]
# ### Exercise 1 — diagnose
# How many times was `bad-card` (M0003) delivered in the first 10 minutes? (Count from the trace.)

# %% nbgrader={"grade": false, "grade_id": "ex09_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← your prediction
### BEGIN SOLUTION
answer_1 = 598
### END SOLUTION

# %%
bad = [e for e in lab.trace.of_kind("delivered") if e.msg_id == "M0003"]
others_done = sorted({e.msg_id for e in lab.trace.of_kind("consumed") if e.get("status") == "SUCCESS"})
print(len(bad), "deliveries of M0003; succeeded:", others_done)

# %% nbgrader={"grade": true, "grade_id": "ex09_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("09.1", answer_1, len(bad))
### BEGIN HIDDEN TESTS
assert_right("09.1")
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 2 — fix the config
# Choose a `max_reconsume_times` so that `bad-card` gets **6 deliveries** and then goes to the DLQ.

# %% nbgrader={"grade": false, "grade_id": "ex09_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← your prediction
### BEGIN SOLUTION
answer_2 = 5
### END SOLUTION

# %%
def deliveries_of_bad_card(max_reconsume_times):
    """Deliveries of M0003 in 10 minutes with the given max (and the DLQ'd ids)."""
    run = deployed(max_reconsume_times=max_reconsume_times)
    bad = [e for e in run.trace.of_kind("delivered") if e.msg_id == "M0003"]
    return len(bad), [e.msg_id for e in run.trace.of_kind("dead_lettered")]


# %%
if answer_2 is not ...:
    print("your setting:", deliveries_of_bad_card(answer_2))
needed = next(n for n in range(20) if deliveries_of_bad_card(n)[0] == 6)

# %% nbgrader={"grade": true, "grade_id": "ex09_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("09.2", answer_2, needed)
### BEGIN HIDDEN TESTS
assert_right("09.2")
### END HIDDEN TESTS

# %% [markdown]
# Then alert on `%DLQ%pay-cg` and re-send after fixing (notebook 04), within the 72 h retention.

# %% [markdown]
# ## Watch it step by step
# `deployed_lab` in a `Dashboard`; try the `max_reconsume_times` knob with your fix (then Rebuild). Below, as deployed,
# the controller jumps to the third `suspended` event: `bad-card` holds the queue and `p4`, `p5` wait behind it.

# %% tags=["nbval-ignore-output"]
from widgets.dashboard import Dashboard

dash = Dashboard(deployed_lab, knobs={"max_reconsume_times": -1}, horizon="10m")
dash

# %%
for _ in range(3):
    dash.controller.jump_to_next("suspended")
tabs = {view.title: view.text for view in dash.views}
print(dash.controller.clock_text)
print(tabs["ProcessQueues"])
print(tabs["Queues"])

# %% [markdown]
# ## Key points
# - Read the trace: the same message id at a fixed 1 s interval on one queue = an orderly local retry loop.
# - The fix is configuration (`max_reconsume_times`), not code: the default is unlimited for orderly consumers.

# %% [markdown]
# ## Your score
# Run this cell last: one line per exercise of this lab, from the checks you ran.

# %%
score("09")
