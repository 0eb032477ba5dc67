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
# [Index](README.md) · [← Back](00_tour.ipynb) · [Next →](02a_consume_failure_send_back.ipynb)

# %% [markdown]
# # 01 · Producer send and its retries
#
# **Goal:** see which failures a send retries, where each retry goes, and what the caller gets back.
# Source: `client/.../impl/producer/DefaultMQProducerImpl.java` (`sendDefaultImpl`),
# `client/.../impl/producer/TopicPublishInfo.java` (`selectOneMessageQueue`), `client/.../impl/MQClientAPIImpl.java`
# (`onExceptionImpl`), `client/.../producer/DefaultMQProducer.java` (defaults, `retryResponseCodes`).

# %% [markdown]
# Defaults: `sendMsgTimeout` = 3000 ms, `retryTimesWhenSendFailed` = 2 (SYNC: 3 attempts),
# `retryTimesWhenSendAsyncFailed` = 2, ONEWAY: 1 attempt.

# %%
from rmqlab import Lab, Message
from rmqlab.course.exercises import assert_right, check, score, show_trace

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
SEND_MODES = ["send", "send_async", "send_oneway"]


# %%
def sends_every_second(lab, producer, *, first=1, count=4, mode="send", topic="TopicTest"):
    """Schedule ``count`` messages m1, m2, … one per second from ``first`` s, each sent with ``producer.<mode>``."""
    for k in range(count):
        lab.at(f"{first + k}s", getattr(producer, mode), Message(topic, f"m{k + 1}"))


# %% [markdown]
# Every section starts with its picture, a `Dashboard` replaying a small run: Step (or Play) through it, answer
# the section's question while it waits, then step on to see the answer. Its knobs change the run (then Rebuild).


# %% [markdown]
# ## A tiny run: broker-a dies after the route was cached

# %%
def broker_a_dies(mode="send", sends=1):
    """The route is cached by a warm-up send at 1 s, broker-a dies at 2 s, then ``sends`` messages from 3 s."""
    lab, p = cluster()
    lab.at("1s", p.send, Message("TopicTest", "warm-up"))
    lab.at("2s", lab.broker_down, "broker-a")
    sends_every_second(lab, p, first=3, count=sends, mode=mode)
    return lab


# %% [markdown]
# The picture: broker-a goes down at 2 s (the producer still has it in its cached route), then eight SYNC sends.
# Step until m1's first attempt fails, and watch where its retry goes.

# %% tags=["nbval-ignore-output"]
from widgets.dashboard import Dashboard

dash = Dashboard(broker_a_dies, knobs={"mode": "send", "sends": 8}, knob_options={"mode": SEND_MODES}, horizon="12s")
dash


# %%
lab = broker_a_dies()
lab.run(until="5s")
show_trace(lab.trace, *SEND)

# %% [markdown]
# Where each queue came from: the route lists `broker-a` queues 0–3, then `broker-b` queues 0–3 (8 queues), and
# `sendWhichQueue` is a counter that every pick pre-increments (`list[++index % 8]`). The warm-up took index 1
# (broker-a queue 1), m1's first attempt index 2 (broker-a queue 2). For the retry, `selectOneMessageQueue(lastBrokerName)`
# keeps incrementing until the queue's broker is not the one that just failed: index 3 is broker-a queue 3 (skipped),
# index 4 is broker-b queue 0. No sleep between attempts ("resend at once").

# %% [markdown]
# ### Exercise 1 — predict, then run
# Same failure, but the message is sent with `send_oneway`. How many attempts does it get?
# Predict, then set the picture's `mode` knob to `send_oneway`, Rebuild and step through it.

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
# ## ASYNC: a retry re-sends the same request
# `send(msg, callback)` retries only *no-response* failures, inside `MQClientAPIImpl`, and asks
# `selectOneMessageQueue(failedBroker)` which broker to try next. The picture: the tiny run sent with `send_async`,
# paused at m1's first attempt.

# %% tags=["nbval-ignore-output"]
async_dash = Dashboard(
    broker_a_dies, knobs={"mode": "send_async", "sends": 8}, knob_options={"mode": SEND_MODES}, horizon="12s"
)
async_dash.controller.jump_to_next("send_attempt")
async_dash.controller.jump_to_next("send_attempt")
async_dash

# %% [markdown]
# ### Exercise 2 — predict, then run
# m1's first attempt went to a queue of broker-a, which is down. Its retry goes to broker-b.
# Does the retry carry the **same queue id** as the first attempt (`True` or `False`)?
# Predict, then step on and compare the two attempts' queues.

# %% nbgrader={"grade": false, "grade_id": "ex01_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← your prediction
### BEGIN SOLUTION
answer_2 = True
### END SOLUTION

# %%
lab, p = cluster()
lab.at("1s", p.send, Message("TopicTest", "warm-up"))
lab.at("2s", lab.broker_down, "broker-a")
lab.at("3s", p.send_async, Message("TopicTest", "async"))
lab.run(until="5s")
show_trace(lab.trace, *SEND, msg_id="M0002")
attempts = {e.get("attempt"): e for e in lab.trace.of_kind("send_attempt") if e.msg_id == "M0002"}

# %% nbgrader={"grade": true, "grade_id": "ex01_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("01.2", answer_2, attempts[2].get("queue_id") == attempts[1].get("queue_id"))
### BEGIN HIDDEN TESTS
assert_right("01.2")
### END HIDDEN TESTS

# %% [markdown]
# > **Common belief vs. the source.** "Async send retries on the same broker." — For `send(msg, callback)`,
# > `MQClientAPIImpl.onExceptionImpl` re-selects a broker avoiding the failed one, but takes only the *broker name* of
# > that pick: it re-sends the same request, queue id included, to the new broker's address. Only `send(msg, mq, cb)`
# > and selector sends stay on the same broker. And only a failure *without* a response is retried: an error
# > response goes straight to `onException`.

# %% [markdown]
# ## Which broker answers are retried
# A broker that answers with an error code throws `MQBrokerException` in the client. `sendDefaultImpl` retries it only
# if the code is in `DefaultMQProducer.retryResponseCodes`: TOPIC_NOT_EXIST, SERVICE_NOT_AVAILABLE, SYSTEM_ERROR,
# NO_PERMISSION, NO_BUYER_ID, NOT_IN_CURRENT_UNIT.


# %%
def broker_a_answers(send_error="SYSTEM_ERROR", sends=1):
    """broker-a answers every send with the error code ``send_error``; ``sends`` SYNC sends from 1 s."""
    lab, p = cluster()
    lab.set_broker_fault("broker-a", send_error=send_error)
    sends_every_second(lab, p, count=sends)
    return lab


# %% [markdown]
# The picture: broker-a answers every send SYSTEM_ERROR (code 1). Step through the first send, then switch the
# `send_error` knob to SYSTEM_BUSY, Rebuild, and step again once you have answered exercise 3.

# %% tags=["nbval-ignore-output"]
answers_dash = Dashboard(
    broker_a_answers,
    knobs={"send_error": "SYSTEM_ERROR", "sends": 8},
    knob_options={"send_error": ["SYSTEM_ERROR", "SYSTEM_BUSY"]},
    horizon="10s",
)
answers_dash

# %% [markdown]
# The same run as a table (one send):

# %%
lab = broker_a_answers("SYSTEM_ERROR").run(until="5s")
show_trace(lab.trace, *SEND)

# %% [markdown]
# ### Exercise 3 — predict, then run
# Now broker-a answers SYSTEM_BUSY (code 2): its send thread pool is full, the flow-control answer
# (`[REJECTREQUEST]system busy`, `[TIMEOUT_CLEAN_QUEUE]…`). How many attempts does the SYNC send make?

# %% nbgrader={"grade": false, "grade_id": "ex01_3_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_3 = ...  # ← your prediction
### BEGIN SOLUTION
answer_3 = 1
### END SOLUTION

# %%
lab, p = cluster()
lab.set_broker_fault("broker-a", send_error="SYSTEM_BUSY")
lab.at("1s", p.send, Message("TopicTest", "m1"))
lab.run(until="5s")
show_trace(lab.trace, *SEND)

# %% nbgrader={"grade": true, "grade_id": "ex01_3", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("01.3", answer_3, lab.sends[0].attempts)
### BEGIN HIDDEN TESTS
assert_right("01.3")
### END HIDDEN TESTS

# %% [markdown]
# > **Common belief vs. the source.** "The producer retries when the broker is busy." — In 4.9.7
# > `DefaultMQProducer.retryResponseCodes` does not contain SYSTEM_BUSY, so `sendDefaultImpl` rethrows the
# > `MQBrokerException` itself after one attempt (5.3.0 adds SYSTEM_BUSY to the set). Retry it in your own code,
# > with a pause, or add the code with `addRetryResponseCode`.

# %% [markdown]
# "Another broker" needs another broker. `Solo` lives on broker-a only; broker-a answers SYSTEM_ERROR:

# %%
lab = Lab(seed=SEED)
lab.add_broker("broker-a")
lab.add_broker("broker-b")
lab.create_topic("Solo", brokers=["broker-a"])
p = lab.add_producer("pg", send_which_queue_start=0)
lab.set_broker_fault("broker-a", send_error="SYSTEM_ERROR")
lab.at("1s", p.send, Message("Solo", "m1"))
lab.run(until="5s")
show_trace(lab.trace, *SEND)

# %% [markdown]
# All three attempts hit broker-a: when every queue of the route belongs to the last broker, `selectOneMessageQueue`
# falls back to a plain round-robin pick, so the retries only move to broker-a's next queues.

# %% [markdown]
# ## A status is not an exception: FLUSH_DISK_TIMEOUT
# With `flushDiskType=SYNC_FLUSH` a broker that stored the message but did not flush it in time answers
# FLUSH_DISK_TIMEOUT (also FLUSH_SLAVE_TIMEOUT, SLAVE_NOT_AVAILABLE). The client turns these into a `SendStatus`.


# %%
def flush_timeouts(retry_another_broker_when_not_store_ok=False, sends=1):
    """Both brokers answer FLUSH_DISK_TIMEOUT; ``sends`` SYNC sends from 1 s."""
    lab, p = cluster(retry_another_broker_when_not_store_ok=retry_another_broker_when_not_store_ok)
    lab.set_broker_fault("broker-a", put_status="FLUSH_DISK_TIMEOUT")
    lab.set_broker_fault("broker-b", put_status="FLUSH_DISK_TIMEOUT")
    sends_every_second(lab, p, count=sends)
    return lab


# %% [markdown]
# The picture: both brokers store but answer FLUSH_DISK_TIMEOUT. Step through with the switch off, then turn
# `retry_another_broker_when_not_store_ok` on, Rebuild, and count the stored copies once you have answered
# exercise 4.

# %% tags=["nbval-ignore-output"]
flush_dash = Dashboard(
    flush_timeouts, knobs={"retry_another_broker_when_not_store_ok": False, "sends": 8}, horizon="10s"
)
flush_dash

# %% [markdown]
# One send, broker-a alone answering FLUSH_DISK_TIMEOUT, as a table:

# %%
lab, p = cluster()
lab.set_broker_fault("broker-a", put_status="FLUSH_DISK_TIMEOUT")
lab.at("1s", p.send, Message("TopicTest", "m1"))
lab.run(until="5s")
show_trace(lab.trace, *SEND, "stored")
print("the caller gets:", lab.sends[0].result.send_status.value, "| exception:", lab.sends[0].error)

# %% [markdown]
# One attempt, stored, and a normal return: the caller must look at `sendStatus`. Only the *producer* setting
# `retryAnotherBrokerWhenNotStoreOK` (default false) makes `sendDefaultImpl` try again on a non-OK status.
#
# ### Exercise 4 — predict, then run
# Both brokers answer FLUSH_DISK_TIMEOUT and the producer sets `retry_another_broker_when_not_store_ok=True`.
# How many copies of `M0001` are stored in the cluster?

# %% nbgrader={"grade": false, "grade_id": "ex01_4_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_4 = ...  # ← your prediction
### BEGIN SOLUTION
answer_4 = 3
### END SOLUTION

# %%
lab, p = cluster(retry_another_broker_when_not_store_ok=True)
lab.set_broker_fault("broker-a", put_status="FLUSH_DISK_TIMEOUT")
lab.set_broker_fault("broker-b", put_status="FLUSH_DISK_TIMEOUT")
lab.at("1s", p.send, Message("TopicTest", "m1"))
lab.run(until="5s")
show_trace(lab.trace, *SEND, "stored")
copies = len(lab.trace.of_kind("stored"))
print("the caller gets:", lab.sends[0].result.send_status.value, "| exception:", lab.sends[0].error)

# %% nbgrader={"grade": true, "grade_id": "ex01_4", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("01.4", answer_4, copies)
### BEGIN HIDDEN TESTS
assert_right("01.4")
### END HIDDEN TESTS

# %% [markdown]
# > **Common belief vs. the source.** "FLUSH_DISK_TIMEOUT is an error that the broker retries." — It is a status of a
# > message that *was* stored. The broker retries nothing; the retry is the client's (`retryAnotherBrokerWhenNotStoreOK`
# > in `DefaultMQProducer`), every retry stores one more copy, and after the last attempt the caller still gets the last
# > non-OK `SendResult`, not an exception.

# %% [markdown]
# ## The shared send timeout
# `sendMsgTimeout` is **one budget for all attempts**, checked before each attempt. broker-a now answers after 4 s.


# %%
def slow_broker_a(response_delay_ms=4000, sends=1):
    """broker-a answers after ``response_delay_ms``; ``sends`` SYNC sends, one every 5 s from 1 s."""
    lab, p = cluster()
    lab.set_broker_fault("broker-a", response_delay_ms=response_delay_ms)
    for k in range(sends):
        lab.at(f"{1 + 5 * k}s", p.send, Message("TopicTest", f"m{k + 1}"))
    return lab


# %% [markdown]
# The picture: eight sends, one every 5 s; the round robin takes broker-a's and broker-b's queues in turn.
# Step to the first attempt on broker-a and stop there.

# %% tags=["nbval-ignore-output"]
slow_dash = Dashboard(slow_broker_a, knobs={"response_delay_ms": 4000, "sends": 8}, horizon="45s")
slow_dash

# %% [markdown]
# ### Exercise 5 — predict, then run
# How many attempts does a SYNC send to slow broker-a make before the caller sees an error?

# %% nbgrader={"grade": false, "grade_id": "ex01_5_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_5 = ...  # ← your prediction
### BEGIN SOLUTION
answer_5 = 1
### END SOLUTION

# %%
lab = slow_broker_a().run(until="10s")
show_trace(lab.trace, *SEND, "stored")

# %% nbgrader={"grade": true, "grade_id": "ex01_5", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("01.5", answer_5, lab.sends[0].attempts)
### BEGIN HIDDEN TESTS
assert_right("01.5")
### END HIDDEN TESTS

# %% [markdown]
# > **Common belief vs. the source.** "Sync send retries 2 more times, each with 3 s." — The budget is shared
# > (`sendDefaultImpl` checks `timeout < costTime` before each attempt); a timed-out first attempt leaves nothing, so the
# > caller gets `sendDefaultImpl call timeout`. Retries help against *fast* failures.

# %% [markdown]
# Notice the `stored` row: the broker **did** store the message; only the response was late.

# %% [markdown]
# ## A lost response after the store makes a duplicate


# %%
def lost_responses(sends=1):
    """broker-a stores each message, then the connection drops before its response; ``sends`` SYNC sends from 1 s."""
    lab, p = cluster()
    lab.set_broker_fault("broker-a", lose_responses=True)
    sends_every_second(lab, p, count=sends)
    return lab


# %% [markdown]
# The picture: broker-a stores, and its answers never arrive. Step to m1's first `stored` and stop.

# %% tags=["nbval-ignore-output"]
lost_dash = Dashboard(lost_responses, knobs={"sends": 8}, horizon="10s")
lost_dash

# %% [markdown]
# ### Exercise 6 — predict, then run
# broker-a stores the message but the connection drops before the response (`lose_responses=True`).
# How many copies of `M0001` end up stored in the cluster?

# %% nbgrader={"grade": false, "grade_id": "ex01_6_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_6 = ...  # ← your prediction
### BEGIN SOLUTION
answer_6 = 2
### END SOLUTION

# %%
lab = lost_responses().run(until="5s")
show_trace(lab.trace, *SEND, "stored")
stored = lab.trace.of_kind("stored")

# %% nbgrader={"grade": true, "grade_id": "ex01_6", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("01.6", answer_6, len(stored))
### BEGIN HIDDEN TESTS
assert_right("01.6")
### END HIDDEN TESTS

# %% [markdown]
# Both copies carry the same id `M0001` (`UNIQ_KEY`): consumers deduplicate on it (or on business keys).

# %% [markdown]
# ## Sidelining a slow broker: latency fault tolerance
# Off by default (`sendLatencyFaultEnable` = false). With `send_latency_fault_enable=True` the producer's
# `MQFaultStrategy` rates a broker after **every** attempt: the attempt's latency is looked up in
# `latencyMax` = 50, 100, 550, 1000, 2000, 3000, 15000 ms (the largest entry not above it) and the same row of
# `notAvailableDuration` = 0, 0, 30 s, 60 s, 120 s, 180 s, 600 s says how long the broker stays out of the queue
# choice, counted from the end of the attempt; a failed attempt counts as 30 000 ms. `selectOneMessageQueue` then
# walks the round robin past the queues of brokers that are out (when every broker is out, `pickOneAtLeast` takes
# the least bad one). Source: `client/.../latency/MQFaultStrategy.java`, `LatencyFaultToleranceImpl.java`.


# %%
def slow_then_fast(**producer_options):
    """broker-a answers after 600 ms until 2 s; one send at 1 s, then one every 5 s from 5 s to 35 s (not run yet)."""
    lab, p = cluster(**producer_options)
    lab.set_broker_fault("broker-a", response_delay_ms=600)
    lab.at("2s", lab.set_broker_fault, "broker-a", response_delay_ms=0)
    for t in ("1s", "5s", "10s", "15s", "20s", "25s", "30s", "35s"):
        lab.at(t, p.send, Message("TopicTest", f"sent at {t}"))
    return lab


# %% [markdown]
# The picture, with the switch on. Step through the first send (600 ms on broker-a) and stop there.

# %% tags=["nbval-ignore-output"]
latency_dash = Dashboard(slow_then_fast, knobs={"send_latency_fault_enable": True}, horizon="40s")
latency_dash

# %% [markdown]
# ### Exercise 7 — predict, then run
# broker-a answers the send at 1 s after 600 ms — a success — and is fast again from 2 s. Until what virtual time,
# in ms, does the producer keep broker-a out of its queue choice?

# %% nbgrader={"grade": false, "grade_id": "ex01_7_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_7 = ...  # ← your prediction
### BEGIN SOLUTION
answer_7 = 31_600
### END SOLUTION

# %%
lab = slow_then_fast(send_latency_fault_enable=True).run(until="40s")
show_trace(lab.trace, "send_result", fields=("broker", "queue_id", "not_available_until"))
out_until = lab.trace.first("send_result", msg_id="M0001").get("not_available_until")

# %% nbgrader={"grade": true, "grade_id": "ex01_7", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("01.7", answer_7, out_until)
### BEGIN HIDDEN TESTS
assert_right("01.7")
### END HIDDEN TESTS

# %% [markdown]
# The same sends without the switch (the default): the round robin gives broker-a its turns at once.

# %%
default = slow_then_fast().run(until="40s")
print("with the switch:   ", [e.get("broker") for e in lab.trace.of_kind("send_result")])
print("without (default): ", [e.get("broker") for e in default.trace.of_kind("send_result")])

# %% [markdown]
# > **Common belief vs. the source.** "The producer avoids a broker only after it fails." — With
# > `sendLatencyFaultEnable` a *successful* send that took 550 ms or more sidelines its broker too (30 s here); and
# > the switch is off by default, so a default producer keeps sending to a slow broker on its round-robin turns.
# > The scenario file `examples/slow_broker_avoided.yaml` is this run (`producers[].send_latency_fault_enable`).

# %% [markdown]
# ## Key points
# - SYNC: 1 + `retryTimesWhenSendFailed` attempts, no back-off; each retry picks a queue on another broker *if the
#   topic has one* (a single-broker topic rotates through that broker's queues).
# - Only connection failures, timeouts inside the budget and the codes in `retryResponseCodes` are retried:
#   SYSTEM_BUSY is not (4.9.x). ASYNC retries only failures without a response, re-sending the same request.
# - FLUSH_DISK_TIMEOUT & co. are statuses of a stored message; `retryAnotherBrokerWhenNotStoreOK` (a producer setting)
#   retries them and stores a copy each time.
# - One 3000 ms budget for all attempts: a timeout is not retried. A retry after a lost response stores a duplicate.
# - `sendLatencyFaultEnable` (off by default) keeps a broker out of the queue choice for a time looked up from the
#   latency of its last attempt (a success at 550 ms or more: 30 s; a failure: 600 s).

# %% [markdown]
# ## Your score
# Run this cell last: one line per exercise of this lab, from the checks you ran.

# %%
score("01")
