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
# [Index](README.md) · [← Back](01a_send_retry.ipynb) · [Next →](02a_consume_failure_send_back.ipynb)
#
# # 01b · Producer send: statuses, the shared timeout, duplicates and slow brokers
#
# **Goal:** see what the caller gets back when a broker answers a status, answers late or never answers, and how a
# producer can sidestep a slow broker. Lab [01a](01a_send_retry.ipynb) has where a retry goes. Source:
# `DefaultMQProducerImpl.sendDefaultImpl`, `client/.../latency/MQFaultStrategy.java`, `LatencyFaultToleranceImpl.java`, `DefaultMQProducer.java`.
#
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

def sends_every_second(lab, producer, *, first=1, count=4, mode="send", topic="TopicTest"):
    """Schedule ``count`` messages m1, m2, … one per second from ``first`` s, each sent with ``producer.<mode>``."""
    for k in range(count):
        lab.at(f"{first + k}s", getattr(producer, mode), Message(topic, f"m{k + 1}"))


# %% [markdown]
# Every section starts with its picture, a `Dashboard` replaying a small run: Step (or Play) through it, answer
# the section's question while it waits, then step on to see the answer. Its knobs change the run (then Rebuild).


# %% [markdown]
# ## A status is not an exception: FLUSH_DISK_TIMEOUT
# With `flushDiskType=SYNC_FLUSH` a broker that stored the message but did not flush it in time answers
# FLUSH_DISK_TIMEOUT (also FLUSH_SLAVE_TIMEOUT, SLAVE_NOT_AVAILABLE). The client turns these into a `SendStatus`.
#
# The picture: broker-a stores every message but answers FLUSH_DISK_TIMEOUT (the **!** on its tokens); broker-b is
# healthy. Step to M0001's answer: the run stops there and asks where pg sends the next message. Later, for
# exercise 1, the knobs turn `retry_another_broker_when_not_store_ok` on and make broker-b answer the same
# (`broker_b_too`).


# %%
def flush_timeouts(retry_another_broker_when_not_store_ok=False, broker_b_too=False, sends=1):
    """broker-a (and broker-b too, with ``broker_b_too``) stores but answers FLUSH_DISK_TIMEOUT; ``sends`` SYNC sends
    from 1 s."""
    lab, p = cluster(retry_another_broker_when_not_store_ok=retry_another_broker_when_not_store_ok)
    lab.set_broker_fault("broker-a", put_status="FLUSH_DISK_TIMEOUT")
    if broker_b_too:
        lab.set_broker_fault("broker-b", put_status="FLUSH_DISK_TIMEOUT")
    sends_every_second(lab, p, count=sends)
    return lab


# %% tags=["nbval-ignore-output"]
from rmqlab.widgets.checkpoints import Checkpoint, sealed_explanation
from rmqlab.widgets.dashboard import Dashboard

flush_dash = Dashboard(
    flush_timeouts, knobs={"retry_another_broker_when_not_store_ok": False, "broker_b_too": False, "sends": 8},
    horizon="10s", checkpoints=[
        Checkpoint(before="stored", msg_id="M0002", ask="where", name="where M0002 goes after a FLUSH_DISK_TIMEOUT",
                   question="broker-a stored M0001 but answered FLUSH_DISK_TIMEOUT (the ! on its token). Where is "
                            "M0002 after the next step? Click the place in the picture (or a button).",
                   explain=sealed_explanation("01b.after-flush-timeout")),
    ],
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
# ### Exercise 1 — predict, then run
# Both brokers answer FLUSH_DISK_TIMEOUT and the producer sets `retry_another_broker_when_not_store_ok=True`.
# How many copies of `M0001` are stored in the cluster?

# %% nbgrader={"grade": false, "grade_id": "ex01b_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← your prediction
### BEGIN SOLUTION
answer_1 = 3
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

# %% nbgrader={"grade": true, "grade_id": "ex01b_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("01b.1", answer_1, copies)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_01b_1
grading_01b_1.verify("01b.1", answer_1)
### END HIDDEN TESTS

# %% [markdown]
# ## A slow broker and the send timeout
# broker-a now answers after 4 s; pg's `sendMsgTimeout` is 3000 ms.
#
# The picture: eight sends, one every 5 s; the round robin takes broker-a's and broker-b's queues in turn.
# Step on: the run stops after the first attempt on broker-a and asks when pg gives up on it.


# %%
def slow_broker_a(response_delay_ms=4000, sends=1):
    """broker-a answers after ``response_delay_ms``; ``sends`` SYNC sends, one every 5 s from 1 s."""
    lab, p = cluster()
    lab.set_broker_fault("broker-a", response_delay_ms=response_delay_ms)
    for k in range(sends):
        lab.at(f"{1 + 5 * k}s", p.send, Message("TopicTest", f"m{k + 1}"))
    return lab


# %% tags=["nbval-ignore-output"]
slow_dash = Dashboard(slow_broker_a, knobs={"response_delay_ms": 4000, "sends": 8}, horizon="45s", checkpoints=[
    Checkpoint(before="send_failed", msg_id="M0001", ask="when", optional=True, name="when pg gives up on M0001",
               question="broker-a has M0001 and is slow to answer. When does the caller of send() get an error? "
                        "Pick the time.",
               hint="One sendMsgTimeout covers every attempt of a SYNC send, counted from the call.",
               explain=sealed_explanation("01b.budget")),
])
slow_dash

# %% [markdown]
# ### Exercise 2 — predict, then run
# How many attempts does a SYNC send to slow broker-a make before the caller sees an error?

# %% nbgrader={"grade": false, "grade_id": "ex01b_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← your prediction
### BEGIN SOLUTION
answer_2 = 1
### END SOLUTION

# %%
lab = slow_broker_a().run(until="10s")
show_trace(lab.trace, *SEND, "stored")

# %% nbgrader={"grade": true, "grade_id": "ex01b_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("01b.2", answer_2, lab.sends[0].attempts)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_01b_2
grading_01b_2.verify("01b.2", answer_2)
### END HIDDEN TESTS

# %% [markdown]
# `sendMsgTimeout` is **one budget for all attempts**, counted from the call and checked before each attempt: the
# one attempt on broker-a spent it, so no retry went to broker-b. Notice the `stored` row: the broker **did** store
# the message; only the response was late.

# %% [markdown]
# ## A lost response after the store: how many copies?
# The picture: broker-a stores, and its answers never arrive. Step on: the run stops inside m1's send, right after
# broker-a's answer was lost, and asks which broker gets M0001 next.


# %%
def lost_responses(sends=1):
    """broker-a stores each message, then the connection drops before its response; ``sends`` SYNC sends from 1 s."""
    lab, p = cluster()
    lab.set_broker_fault("broker-a", lose_responses=True)
    sends_every_second(lab, p, count=sends)
    return lab


# %% tags=["nbval-ignore-output"]
lost_dash = Dashboard(lost_responses, knobs={"sends": 8}, horizon="10s", checkpoints=[
    Checkpoint(before="send_attempt", msg_id="M0001", nth=2, inside_step=True, ask="who", optional=True,
               name="which broker M0001 goes to after a lost answer",
               question="broker-a stored M0001, then its answer was lost on the way back. Which broker gets M0001 "
                        "next? Click it in the picture (or a button).",
               hint="The producer only sees that no answer came: what does sendDefaultImpl do with a failure "
                    "without a response?",
               explain=sealed_explanation("01b.lost")),
])
lost_dash

# %% [markdown]
# ### Exercise 3 — predict, then run
# broker-a stores the message but the connection drops before the response (`lose_responses=True`).
# How many copies of `M0001` end up stored in the cluster?

# %% nbgrader={"grade": false, "grade_id": "ex01b_3_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_3 = ...  # ← your prediction
### BEGIN SOLUTION
answer_3 = 2
### END SOLUTION

# %%
lab = lost_responses().run(until="5s")
show_trace(lab.trace, *SEND, "stored")
stored = lab.trace.of_kind("stored")

# %% nbgrader={"grade": true, "grade_id": "ex01b_3", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("01b.3", answer_3, len(stored))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_01b_3
grading_01b_3.verify("01b.3", answer_3)
### END HIDDEN TESTS

# %% [markdown]
# ## Sidelining a slow broker: latency fault tolerance
# Off by default (`sendLatencyFaultEnable` = false). The picture, with `send_latency_fault_enable=True`: broker-a
# answers the send at 1 s after 600 ms (a success), then is fast again. Step on: it stops before the 5 s send and
# asks where it goes.


# %%
def slow_then_fast(delay_ms=600, **producer_options):
    """broker-a answers after ``delay_ms`` until 2 s; one send at 1 s, then one every 5 s from 5 s to 35 s (not run yet)."""
    lab, p = cluster(**producer_options)
    lab.set_broker_fault("broker-a", response_delay_ms=delay_ms)
    lab.at("2s", lab.set_broker_fault, "broker-a", response_delay_ms=0)
    for t in ("1s", "5s", "10s", "15s", "20s", "25s", "30s", "35s"):
        lab.at(t, p.send, Message("TopicTest", f"sent at {t}"))
    return lab


# %% tags=["nbval-ignore-output"]
latency_dash = Dashboard(slow_then_fast, knobs={"send_latency_fault_enable": True}, horizon="40s", checkpoints=[
    Checkpoint(before="stored", msg_id="M0002", ask="where", optional=True, name="where the 5 s send goes",
               question="pg has sendLatencyFaultEnable on. broker-a answered the 1 s send (M0001) only after 600 ms, "
                        "and is fast again since 2 s. Where does the 5 s send (M0002) go? Click the queue in the "
                        "picture (or a button).",
               hides=("kept_out_until",),
               explain=sealed_explanation("01b.five-second-send")),
])
latency_dash

# %% [markdown]
# ### Exercise 4 — predict, then run
# The picture's broker-a answered after 600 ms. Now it answers the send at 1 s after **1,200 ms** — a success — and is
# fast again from 2 s. Until what virtual time, in ms, does the producer keep broker-a out of its queue choice?
#
# **The rule.** With `send_latency_fault_enable=True` the producer's `MQFaultStrategy` rates a broker after **every** attempt: the attempt's latency is looked up in
# `latencyMax` = 50, 100, 550, 1000, 2000, 3000, 15000 ms (the largest entry not above it) and the same row of
# `notAvailableDuration` = 0, 0, 30 s, 60 s, 120 s, 180 s, 600 s says how long the broker stays out of the queue
# choice, counted from the end of the attempt; a failed attempt counts as 30 000 ms. `selectOneMessageQueue` then
# walks the round robin past the queues of brokers that are out (when every broker is out, `pickOneAtLeast` takes
# the least bad one). Source: `client/.../latency/MQFaultStrategy.java`, `LatencyFaultToleranceImpl.java`.

# %% nbgrader={"grade": false, "grade_id": "ex01b_4_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_4 = ...  # ← your prediction
### BEGIN SOLUTION
answer_4 = 62_200
### END SOLUTION

# %%
lab = slow_then_fast(delay_ms=1200, send_latency_fault_enable=True).run(until="40s")
show_trace(lab.trace, "send_result", fields=("broker", "queue_id", "not_available_until"))
out_until = lab.trace.first("send_result", msg_id="M0001").get("not_available_until")

# %% nbgrader={"grade": true, "grade_id": "ex01b_4", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("01b.4", answer_4, out_until)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_01b_4
grading_01b_4.verify("01b.4", answer_4)
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
# - FLUSH_DISK_TIMEOUT & co. come back as the `sendStatus` of a `SendResult`: the caller must look at it, and the
#   producer setting `retryAnotherBrokerWhenNotStoreOK` decides whether `sendDefaultImpl` sends again.
# - All the attempts of one SYNC send share one 3000 ms budget (`sendDefaultImpl` checks it before each attempt).
# - `sendLatencyFaultEnable` (off by default) keeps a broker out of the queue choice for a time looked up from the
#   latency of its last attempt (`MQFaultStrategy`: `latencyMax` → `notAvailableDuration`).
#
# ## Your score
# Run this cell last: one line per exercise of this lab, from the checks you ran.

# %%
score("01b")
