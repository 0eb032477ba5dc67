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
# [Index](README.md) · [← Back](00_tour.ipynb) · [Next →](02_concurrent_consumption_retry.ipynb)

# %% [markdown]
# # 01 · Producer send and its retries
#
# **Goal:** see which sends retry, where the retry goes, and why a timed-out send is *not* retried.
# Source: `client/.../impl/producer/DefaultMQProducerImpl.java` (`sendDefaultImpl`), `DefaultMQProducer.java`.

# %% [markdown]
# Defaults: `sendMsgTimeout` = 3000 ms, `retryTimesWhenSendFailed` = 2 (SYNC: 3 attempts),
# `retryTimesWhenSendAsyncFailed` = 2, ONEWAY: 1 attempt.

# %%
from rmqlab import ConsumeConcurrentlyStatus, ConsumeOrderlyStatus, Lab, Message, after, format_duration
from rmqlab.exercises import assert_right, check, score, show_trace, table

CONSUME_SUCCESS = ConsumeConcurrentlyStatus.CONSUME_SUCCESS
RECONSUME_LATER = ConsumeConcurrentlyStatus.RECONSUME_LATER
SEED = 7


# %%
def cluster(**producer_options):
    """Two brokers, TopicTest with 4 queues each, a producer whose round robin starts at 0."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("TopicTest")
    return lab, lab.add_producer("pg", send_which_queue_start=0, **producer_options)


# %%
SEND = ("send_attempt", "send_result", "send_failed")


# %% [markdown]
# ## A tiny run: broker-a dies after the route was cached

# %%
def broker_a_dies():
    """The route is cached by a warm-up send at 1 s, broker-a dies at 2 s, m1 is sent at 3 s."""
    lab, p = cluster()
    lab.at("1s", p.send, Message("TopicTest", "warm-up"))
    lab.at("2s", lab.broker_down, "broker-a")
    lab.at("3s", p.send, Message("TopicTest", "m1"))
    return lab


# %%
lab = broker_a_dies()
lab.run(until="5s")
show_trace(lab.trace, *SEND)

# %% [markdown]
# Attempt 2 went to **broker-b**: `selectOneMessageQueue(lastBrokerName)` skips queues of the broker that just failed.
# No sleep between attempts ("resend at once").

# %% [markdown]
# ### Exercise 1 — predict, then run
# Same failure, but the message is sent with `send_oneway`. How many attempts does it get?

# %% nbgrader={"grade": false, "grade_id": "ex01_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← your prediction
### BEGIN SOLUTION
answer_1 = 1
### END SOLUTION

# %%
lab, p = cluster()
lab.at("1s", p.send, Message("TopicTest", "warm-up"))
lab.at("2s", lab.broker_down, "broker-a")
lab.at("3s", p.send_oneway, Message("TopicTest", "fire-and-forget"))
lab.run(until="5s")
show_trace(lab.trace, *SEND, msg_id="M0002")

# %% nbgrader={"grade": true, "grade_id": "ex01_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("01.1", answer_1, lab.sends[1].attempts)
### BEGIN HIDDEN TESTS
assert_right("01.1")
### END HIDDEN TESTS

# %% [markdown]
# ASYNC (`send(msg, callback)`) retries only *no-response* failures, re-selecting with last-broker avoidance:

# %%
lab, p = cluster()
lab.at("1s", p.send, Message("TopicTest", "warm-up"))
lab.at("2s", lab.broker_down, "broker-a")
lab.at("3s", p.send_async, Message("TopicTest", "async"))
lab.run(until="5s")
show_trace(lab.trace, *SEND, msg_id="M0002")

# %% [markdown]
# > **Common belief vs. the source.** "Async send retries on the same broker." — For `send(msg, callback)` the retry
# > re-selects a queue avoiding the failed broker (`MQClientAPIImpl.onExceptionImpl`); only `send(msg, mq, cb)` and
# > selector sends stay on the same broker. An *error response* is not retried at all.

# %% [markdown]
# ## The shared send timeout
# `sendMsgTimeout` is **one budget for all attempts**, checked before each attempt. broker-a now answers after 4 s.

# %% [markdown]
# ### Exercise 2 — predict, then run
# How many attempts does a SYNC send to slow broker-a make before the caller sees an error?

# %% nbgrader={"grade": false, "grade_id": "ex01_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← your prediction
### BEGIN SOLUTION
answer_2 = 1
### END SOLUTION

# %%
lab, p = cluster()
lab.set_broker_fault("broker-a", response_delay_ms=4000)
lab.at("1s", p.send, Message("TopicTest", "slow"))
lab.run(until="10s")
show_trace(lab.trace, *SEND, "stored")

# %% nbgrader={"grade": true, "grade_id": "ex01_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("01.2", answer_2, lab.sends[0].attempts)
### BEGIN HIDDEN TESTS
assert_right("01.2")
### END HIDDEN TESTS

# %% [markdown]
# > **Common belief vs. the source.** "Sync send retries 2 more times, each with 3 s." — The budget is shared; a timed-out
# > first attempt leaves nothing, so the caller gets `sendDefaultImpl call timeout`. Retries help against *fast* failures.

# %% [markdown]
# Notice the `stored` row: the broker **did** store the message; only the response was late.
# ## A lost response after the store makes a duplicate

# %% [markdown]
# ### Exercise 3 — predict, then run
# broker-a stores the message but the connection drops before the response (`lose_responses=True`).
# How many copies of `M0001` end up stored in the cluster?

# %% nbgrader={"grade": false, "grade_id": "ex01_3_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_3 = ...  # ← your prediction
### BEGIN SOLUTION
answer_3 = 2
### END SOLUTION

# %%
lab, p = cluster()
lab.set_broker_fault("broker-a", lose_responses=True)
lab.at("1s", p.send, Message("TopicTest", "pay order 42"))
lab.run(until="5s")
show_trace(lab.trace, *SEND, "stored")
stored = lab.trace.of_kind("stored")

# %% nbgrader={"grade": true, "grade_id": "ex01_3", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("01.3", answer_3, len(stored))
### BEGIN HIDDEN TESTS
assert_right("01.3")
### END HIDDEN TESTS

# %% [markdown]
# Both copies carry the same id `M0001` (`UNIQ_KEY`): consumers deduplicate on it (or on business keys).

# %% [markdown]
# ## Watch it step by step
# The tiny run again, in a `Dashboard` (a replay of `broker_a_dies()`; Step / Step back / Jump move through the trace).
# Below, the controller seeks to the end of the run and the queue and event tabs print as text: M0002's attempt on
# broker-a fails, its retry is stored on broker-b.

# %% tags=["nbval-ignore-output"]
from widgets.dashboard import Dashboard

dash = Dashboard(broker_a_dies, horizon="5s")
dash

# %%
dash.controller.seek(dash.controller.end)
tabs = {view.title: view.text for view in dash.views}
print(dash.controller.clock_text)
print(tabs["Queues"])
print(tabs["Events"])

# %% [markdown]
# ## Key points
# - SYNC: 1 + `retryTimesWhenSendFailed` attempts, another broker each time, no back-off.
# - One 3000 ms budget for all attempts: a timeout is not retried.
# - A retry after a lost response stores a duplicate.

# %% [markdown]
# ## Your score
# Run this cell last: one line per exercise of this lab, from the checks you ran.

# %%
score("01")
