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
# [Index](README.md) · [← Back](07_orderly_consumption_locks.ipynb) · [Next →](09_capstone.ipynb)

# %% [markdown]
# # 08 · Broadcasting vs. clustering
#
# **Goal:** compare who gets a message, who retries it, and where offsets live in the two message models.
# Source: `DefaultMQPushConsumer.messageModel`, `ConsumeMessageConcurrentlyService.processConsumeResult`,
# `client/.../consumer/store/LocalFileOffsetStore.java`.

# %%
from rmqlab import ConsumeConcurrentlyStatus, ConsumeOrderlyStatus, Lab, Message, after, format_duration
from rmqlab.exercises import assert_right, check, score, show_trace, table

CONSUME_SUCCESS = ConsumeConcurrentlyStatus.CONSUME_SUCCESS
RECONSUME_LATER = ConsumeConcurrentlyStatus.RECONSUME_LATER
SEED = 7


# %%
def fails_once(msgs, ctx):
    """Fail the first delivery, succeed on a retry."""
    return RECONSUME_LATER if msgs[0].reconsume_times == 0 else CONSUME_SUCCESS

def two_consumers_lab(model="CLUSTERING"):
    """One broker, 2 queues, consumers c1 and c2 of group cg in the given message model; one message at 1 s."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=2)
    p = lab.add_producer("pg")
    for name in ("c1", "c2"):
        lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=fails_once, name=name, message_model=model)
    lab.at("1s", p.send, Message("TopicTest", "config changed"))
    return lab

def two_consumers(model):
    """two_consumers_lab(model) run for its first minute."""
    return two_consumers_lab(model).run(until="1m")


# %% [markdown]
# ## A tiny run: CLUSTERING (the default)

# %%
show_trace(two_consumers("CLUSTERING").trace, "delivered", "send_back", "broadcast_dropped")

# %% [markdown]
# ### Exercise 1 — predict, then run
# In BROADCASTING, how many deliveries of `M0001` happen in total (both consumers, first minute)?

# %% nbgrader={"grade": false, "grade_id": "ex08_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← your prediction
### BEGIN SOLUTION
answer_1 = 2
### END SOLUTION

# %%
lab = two_consumers("BROADCASTING")
show_trace(lab.trace, "delivered", "send_back", "broadcast_dropped", fields=("queue", "reconsume_times"))

# %% nbgrader={"grade": true, "grade_id": "ex08_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("08.1", answer_1, len(lab.trace.of_kind("delivered")))
### BEGIN HIDDEN TESTS
assert_right("08.1")
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 2 — predict, then run
# Does a BROADCASTING consumer subscribe `%RETRY%cg`? (`True` / `False`)

# %% nbgrader={"grade": false, "grade_id": "ex08_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← your prediction
### BEGIN SOLUTION
answer_2 = False
### END SOLUTION

# %%
topics = sorted({e.get("topic") for e in lab.trace.of_kind("rebalanced")})
print(topics)

# %% nbgrader={"grade": true, "grade_id": "ex08_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("08.2", answer_2, "%RETRY%cg" in topics)
### BEGIN HIDDEN TESTS
assert_right("08.2")
### END HIDDEN TESTS

# %% [markdown]
# Offsets: CLUSTERING → on the broker (`RemoteBrokerOffsetStore`); BROADCASTING → a local file per client
# (`LocalFileOffsetStore`, `~/.rocketmq_offsets/<clientId>/<group>/offsets.json`).

# %% [markdown]
# ## Watch it step by step
# `two_consumers_lab` in a `Dashboard`; the `model` knob switches CLUSTERING / BROADCASTING (then Rebuild). Below,
# in BROADCASTING, the controller jumps to the first `broadcast_dropped` event and two tabs print as text.

# %% tags=["nbval-ignore-output"]
from widgets.dashboard import Dashboard

dash = Dashboard(
    two_consumers_lab,
    knobs={"model": "BROADCASTING"},
    knob_options={"model": ("CLUSTERING", "BROADCASTING")},
    horizon="1m",
)
dash

# %%
dash.controller.jump_to_next("broadcast_dropped")
tabs = {view.title: view.text for view in dash.views}
print(dash.controller.clock_text)
print(tabs["Queues"])
print(tabs["ProcessQueues"])

# %% [markdown]
# ## Key points
# - CLUSTERING: each message to one instance; failures go to `%RETRY%<group>`.
# - BROADCASTING: each message to every instance; failures are dropped.

# %% [markdown]
# ## Your score
# Run this cell last: one line per exercise of this lab, from the checks you ran.

# %%
score("08")
