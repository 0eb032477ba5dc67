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
# [Index](README.md) · [← Back](00_tour.ipynb) · [Next →](01b_send_status_timeout.ipynb)

# %% [markdown]
# # 01a · Producer send: which failures are retried, and where
#
# **Goal:** see which failures a send retries, where each retry goes, in each send mode.
# Source: `client/.../impl/producer/DefaultMQProducerImpl.java` (`sendDefaultImpl`),
# `client/.../impl/producer/TopicPublishInfo.java` (`selectOneMessageQueue`), `client/.../impl/MQClientAPIImpl.java`
# (`onExceptionImpl`), `client/.../producer/DefaultMQProducer.java` (defaults, `retryResponseCodes`).
# Next, [01b](01b_send_status_timeout.ipynb): what the caller gets back.

# %% [markdown]
# Defaults: `sendMsgTimeout` = 3000 ms, `retryTimesWhenSendFailed` = 2 (SYNC: 3 attempts),
# `retryTimesWhenSendAsyncFailed` = 2.

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
# The warm-up is message `M0001`, so m1 is `M0002`. Its tries all happen in the same millisecond (a SYNC send
# retries at once, in one scheduler step), and the picture stops between them: try 1 has just failed (the crossed,
# faded ghost on the queue it was sent to; the Events tab says why), try 2 is next. Predict where try 2 goes, then
# step on.

# %% jupyter={"source_hidden": true}
# The words the picture says. Every answer in them ({answer}, {queue_id}, {broker} …) is a field the picture fills
# in from the run it shows: this cell names none.
ASK_B0 = (
    "pg's try 1 of M0002 has just failed (the crossed ghost marks where it went, the Events tab why). Where does "
    "try 2 go? Click the queue in the picture (or a button)."
)
HINT_B0 = (
    "A SYNC send retries at once, inside one sendMsgTimeout budget, and picks the next queue with "
    "selectOneMessageQueue(lastBrokerName): the round robin moves on, skipping the broker of the try before."
)

# %% tags=["nbval-ignore-output"]
from rmqlab.widgets.checkpoints import Checkpoint, sealed_explanation
from rmqlab.widgets.dashboard import Dashboard

dash = Dashboard(broker_a_dies, knobs={"mode": "send", "sends": 8}, knob_options={"mode": SEND_MODES}, horizon="12s",
                 checkpoints=[Checkpoint(before="send_attempt", msg_id="M0002", nth=2, inside_step=True, ask="where",
                                         optional=True, name="where M0002's second try goes", question=ASK_B0,
                                         hint=HINT_B0, explain=sealed_explanation("01a.second-try"))])
dash


# %% [markdown]
# ### Exercise 1 — predict, then run
# Same failure, but the message is sent with `send_oneway`. How many attempts does it get?
# Predict, then set the picture's `mode` knob to `send_oneway`, Rebuild and step through it.

# %% nbgrader={"grade": false, "grade_id": "ex01a_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
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

# %% nbgrader={"grade": true, "grade_id": "ex01a_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("01a.1", answer_1, lab.sends[1].attempts)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_01a_1
grading_01a_1.verify("01a.1", answer_1)
### END HIDDEN TESTS

# %% [markdown]
# **The first picture, as a table** (its question answered): where each queue came from. The route lists `broker-a` queues 0–3, then `broker-b` queues 0–3 (8 queues), and
# `sendWhichQueue` is a counter that every pick pre-increments (`list[++index % 8]`). The warm-up took index 1
# (broker-a queue 1), m1's first attempt index 2 (broker-a queue 2). For the retry, `selectOneMessageQueue(lastBrokerName)`
# keeps incrementing until the queue's broker is not the one that just failed: index 3 is broker-a queue 3 (skipped),
# index 4 is broker-b queue 0. No sleep between attempts ("resend at once"). And a ONEWAY send gets 1 attempt:
# `sendDefaultImpl` retries only SYNC sends (`timesTotal` = 1 otherwise).

# %%
lab = broker_a_dies()
lab.run(until="5s")
show_trace(lab.trace, *SEND)

# %% [markdown]
# ## ASYNC: where does a retry go?
# `send(msg, callback)` retries only *no-response* failures, inside `MQClientAPIImpl`, and asks
# `selectOneMessageQueue(failedBroker)` which broker to try next. The picture: the tiny run sent with `send_async`.
# Step on: it stops after m1's (M0002's) first attempt failed and asks where the second one goes.

# %% tags=["nbval-ignore-output"]
async_dash = Dashboard(
    broker_a_dies, knobs={"mode": "send_async", "sends": 8}, knob_options={"mode": SEND_MODES}, horizon="12s",
    checkpoints=[Checkpoint(before="send_attempt", msg_id="M0002", nth=2, inside_step=True, ask="where",
                            optional=True, name="where M0002's async retry goes",
                            question="pg's ASYNC try 1 of M0002 has just failed. Where does try 2 go? Click the "
                                     "queue in the picture (or a button).",
                            hint="The ASYNC retry is made in MQClientAPIImpl.onExceptionImpl, not in "
                                 "sendDefaultImpl's loop: what does it take from selectOneMessageQueue's answer, "
                                 "and what does it re-send?",
                            explain=sealed_explanation("01a.async-retry"))],
)
async_dash

# %% [markdown]
# ### Exercise 2 — predict, then run
# Another run of the same mechanism: the producer's round robin starts one queue further
# (`send_which_queue_start=1`), so m1's first ASYNC attempt goes to broker-a queue 3, and broker-a is down.
# Its retry goes to broker-b. On which **queue id** of broker-b?

# %% nbgrader={"grade": false, "grade_id": "ex01a_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← your prediction
### BEGIN SOLUTION
answer_2 = 3
### END SOLUTION

# %%
lab = Lab(seed=SEED)
lab.add_broker("broker-a")
lab.add_broker("broker-b")
lab.create_topic("TopicTest")
p = lab.add_producer("pg", send_which_queue_start=1)
lab.at("1s", p.send, Message("TopicTest", "warm-up"))
lab.at("2s", lab.broker_down, "broker-a")
lab.at("3s", p.send_async, Message("TopicTest", "async"))
lab.run(until="5s")
show_trace(lab.trace, *SEND, msg_id="M0002")
attempts = {e.get("attempt"): e for e in lab.trace.of_kind("send_attempt") if e.msg_id == "M0002"}

# %% nbgrader={"grade": true, "grade_id": "ex01a_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("01a.2", answer_2, attempts[2].get("queue_id"))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_01a_2
grading_01a_2.verify("01a.2", answer_2)
### END HIDDEN TESTS

# %% [markdown]
# > **Common belief vs. the source.** "Async send retries on the same broker." — For `send(msg, callback)`,
# > `MQClientAPIImpl.onExceptionImpl` re-selects a broker avoiding the failed one, but takes only the *broker name* of
# > that pick: it re-sends the same request, queue id included, to the new broker's address. Only `send(msg, mq, cb)`
# > and selector sends stay on the same broker. And only a failure *without* a response is retried: an error
# > response goes straight to `onException`.

# %% [markdown]
# ## Which broker answers are retried
# Here broker-a stores nothing: it answers every send with an error code. Does pg try again?


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
    checkpoints=[
        Checkpoint(before="send_attempt", msg_id="M0001", nth=2, inside_step=True, ask="where", optional=True,
                   name="where M0001 goes after an error answer",
                   question="broker-a answered pg's try 1 of M0001 with an error code. Where is M0001 after the next "
                            "step: stored somewhere, or failed? Click the place in the picture (or a button).",
                   hint="An error answer throws MQBrokerException in the client. Is SYSTEM_ERROR one of "
                        "DefaultMQProducer.retryResponseCodes, and which broker does a retry avoid?",
                   explain=sealed_explanation("01a.error-retried")),
    ],
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

# %% nbgrader={"grade": false, "grade_id": "ex01a_3_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
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

# %% nbgrader={"grade": true, "grade_id": "ex01a_3", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("01a.3", answer_3, lab.sends[0].attempts)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_01a_3
grading_01a_3.verify("01a.3", answer_3)
### END HIDDEN TESTS

# %% [markdown]
# The rule behind both runs: an error code throws `MQBrokerException` in the client, and `sendDefaultImpl` retries it
# only if the code is in `DefaultMQProducer.retryResponseCodes`: TOPIC_NOT_EXIST, SERVICE_NOT_AVAILABLE, SYSTEM_ERROR,
# NO_PERMISSION, NO_BUYER_ID, NOT_IN_CURRENT_UNIT.
#
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
# ## Key points
# - How many attempts a send gets depends on its mode (SYNC, ASYNC, ONEWAY) and on `retryTimesWhenSendFailed`;
#   `sendDefaultImpl` makes them at once, with no back-off.
# - A retry picks a queue on another broker *if the topic has one* (`selectOneMessageQueue(lastBrokerName)`); a
#   single-broker topic rotates through that broker's queues.
# - Which broker answers are worth a retry is a fixed set, `DefaultMQProducer.retryResponseCodes` (4.9.x): read it
#   before you count on a retry.
# - Next: [01b](01b_send_status_timeout.ipynb) — statuses, the shared timeout, duplicates, slow brokers.

# %% [markdown]
# ## Your score
# Run this cell last: one line per exercise of this lab, from the checks you ran.

# %%
score("01a")
