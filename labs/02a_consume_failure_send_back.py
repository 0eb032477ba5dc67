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
# [Index](README.md) · [← Back](01b_send_status_timeout.ipynb) · [Next →](02b_send_back_failures.ipynb)

# %% [markdown]
# # 02a · Concurrent consumption: failure and send-back
#
# **Goal:** learn what counts as a failure, where a failed message goes, and which delay it gets.
# Source: `client/.../impl/consumer/ConsumeMessageConcurrentlyService.java` (`ConsumeRequest.run`, `processConsumeResult`),
# `DefaultMQPushConsumerImpl.sendMessageBack`, `broker/.../processor/SendMessageProcessor.java` (`asyncConsumerSendMsgBack`).

# %%
from rmqlab import ConsumeConcurrentlyStatus, Lab, Message
from rmqlab.course.exercises import assert_right, check, score, show_trace, table

CONSUME_SUCCESS = ConsumeConcurrentlyStatus.CONSUME_SUCCESS
RECONSUME_LATER = ConsumeConcurrentlyStatus.RECONSUME_LATER
SEED = 7


# %%
def one_queue_lab(listener, **consumer_options):
    """One broker, a one-queue TopicTest, one consumer c1 of group cg."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    c = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=listener, name="c1", **consumer_options)
    return lab, p, c


# %% [markdown]
# ## A tiny run: three listeners, one outcome

# %%
def reconsume_later(msgs, ctx):
    """Ask for a retry."""
    return RECONSUME_LATER


def returns_null(msgs, ctx):
    """Forget to return a status."""
    return None


def raises(msgs, ctx):
    """Throw, like a NullPointerException in business code."""
    raise RuntimeError("db down")


# %%
LISTENERS = {"reconsume_later": reconsume_later, "returns_null": returns_null, "raises": raises}


def listener_lab(listener="raises"):
    """One message at 1 s to c1, whose listener is ``listener`` (a name in LISTENERS)."""
    lab, p, c = one_queue_lab(LISTENERS[listener])
    lab.at("1s", p.send, Message("TopicTest", "x"))
    return lab


# %% [markdown]
# The picture: one message, and a listener that throws (the `listener` knob picks one of the three, then Rebuild).
# Step: the run stops before the listener's answer to ask where the message is after it — acknowledged, or
# somewhere else? Then step on, and compare the three listeners in the table under it.

# %% jupyter={"source_hidden": true}
# The words the picture says. Every answer in them ({answer}, {scheduled_level} …) is a field the picture fills in
# from the run it shows: this cell names none.
HINT_THROWS = (
    "An exception is not an answer: ConsumeRequest.run catches it and is left with a null status, which it counts "
    "as RECONSUME_LATER, like a listener that returns null or asks for a retry. processConsumeResult then decides "
    "by that status, and the delay level follows from reconsumeTimes."
)

# %% tags=["nbval-ignore-output"]
from rmqlab.widgets.checkpoints import Checkpoint, sealed_explanation
from rmqlab.widgets.dashboard import Dashboard

listener_dash = Dashboard(listener_lab, knobs={"listener": "raises"}, knob_options={"listener": list(LISTENERS)},
                          horizon="45s", checkpoints=[
    Checkpoint(before="send_back", ask="where", optional=True, name="where a message whose listener failed goes",
               hint=HINT_THROWS, explain=sealed_explanation("02a.listener-throws"),
               question="In the next step c1's listener answers {msg} with return type {consumed_return_type}. "
                        "Where is {msg} after that step? Click the place in the picture (or a button)."),
])
listener_dash

# %%
rows = []
for listener in (reconsume_later, returns_null, raises):
    lab, p, c = one_queue_lab(listener)
    lab.at("1s", p.send, Message("TopicTest", "x"))
    lab.run(until="5s")
    e = lab.trace.of_kind("consumed")[0]
    rows.append([listener.__name__, e.get("return_type"), e.get("status"), len(lab.trace.of_kind("send_back"))])
print(table(rows, ["listener", "ConsumeReturnType", "effective status", "send-backs"]))

# %% [markdown]
# `ConsumeReturnType` is only a label for statistics and hooks. What happens next depends on the *effective* status:
# `ConsumeRequest.run` turns a null status (returned, or left by an exception it caught) into `RECONSUME_LATER`.

# %% [markdown]
# ## ackIndex: partial success of a batch

# %%
def first_two_ok(msgs, ctx):
    """Acknowledge msgs[0..1] of the batch; the rest count as failed."""
    ctx.ack_index = 1
    return CONSUME_SUCCESS


# %%
def ack_index_lab(ack_index=1, batch=4):
    """Four messages at 1 s, c1 starts at 10 s and gets them as one batch; its listener sets ``ctx.ack_index``."""

    def acks_some(msgs, ctx):
        ctx.ack_index = ack_index
        return CONSUME_SUCCESS

    lab, p, c = one_queue_lab(acks_some, consume_message_batch_max_size=batch, start="10s")
    for i in range(4):
        lab.at("1s", p.send, Message("TopicTest", f"m{i}"))
    return lab


# %% [markdown]
# The picture: the batch of four, then whatever the listener did not acknowledge. Step to the first `consumed`
# and stop: that is the listener's answer for the whole batch.

# %% tags=["nbval-ignore-output"]
from rmqlab.widgets.checkpoints import Checkpoint, sealed_explanation
from rmqlab.widgets.dashboard import Dashboard

ack_dash = Dashboard(ack_index_lab, knobs={"ack_index": 1, "batch": 4}, horizon="40s", checkpoints=[
    Checkpoint(before="send_back", ask="where", optional=True, name="where the first unacknowledged message goes", explain=sealed_explanation("02a.unacknowledged"),
               question="The listener returned CONSUME_SUCCESS for the whole batch, with ctx.ack_index set. Where is "
                        "the first message it did not acknowledge after the next step? Click the place in the "
                        "picture (or a button)."),
])
ack_dash

# %% [markdown]
# ### Exercise 1 — predict, then run
# A batch of 4 messages (`consume_message_batch_max_size=4`) returns `CONSUME_SUCCESS` with `ack_index = 1`.
# How many messages are sent back for retry?

# %% nbgrader={"grade": false, "grade_id": "ex02a_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← your prediction
### BEGIN SOLUTION
answer_1 = 2
### END SOLUTION

# %%
lab, p, c = one_queue_lab(first_two_ok, consume_message_batch_max_size=4, start="10s")
for i in range(4):
    lab.at("1s", p.send, Message("TopicTest", f"m{i}"))
lab.run(until="11s")
show_trace(lab.trace, "send_back")

# %% nbgrader={"grade": true, "grade_id": "ex02a_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("02a.1", answer_1, len(lab.trace.of_kind("send_back")))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_02a_1
grading_02a_1.verify("02a.1", answer_1)
### END HIDDEN TESTS

# %% [markdown]
# ## Where a failed message goes: `%RETRY%<group>`
# `sendMessageBack` asks the broker (`CONSUMER_SEND_MSG_BACK`, with the message's CommitLog offset) to store it again
# under `%RETRY%cg`, delayed. Here the first delivery fails and the retry succeeds:

# %%
def failing_lab(failures=1, messages=1):
    """``messages`` messages, one per second from 1 s; each fails its first ``failures`` deliveries, then succeeds."""
    lab, p, c = one_queue_lab(lambda m, ctx: RECONSUME_LATER if m[0].reconsume_times < failures else CONSUME_SUCCESS)
    for k in range(messages):
        lab.at(f"{1 + k}s", p.send, Message("TopicTest", f"x{k + 1}"))
    return lab


def fails_once_lab():
    """One message at 1 s; its first delivery fails, the retry succeeds."""
    return failing_lab(failures=1, messages=1)


# %% [markdown]
# The picture: three messages, each failing once. Step and follow M0001 (its colour): where is it when its wait
# ends?

# %% tags=["nbval-ignore-output"]
retry_dash = Dashboard(failing_lab, knobs={"failures": 1, "messages": 3}, horizon="30s", checkpoints=[
    Checkpoint(before="delay_delivered", msg_id="M0001", ask="where", optional=True, name="where M0001 goes when its wait is over",
               question="c1 failed M0001 once, and the broker parked it at a delay level. In the next step its "
                        "wait ends: broker-a puts it on %RETRY%cg:0 and it is pulled at once. Whose ProcessQueue "
                        "holds it then? Click the place in the picture (or a button).",
               hint="%RETRY%cg is a topic of its own: which consumer subscribed it, and when? Its ProcessQueue "
                    "for %RETRY%cg:0 is where the pulled message waits.",
               explain=sealed_explanation("02a.back-on-retry")),
])
retry_dash


# %%
lab = fails_once_lab()
lab.run(until="20s")
show_trace(lab.trace, "delivered", "send_back", "scheduled", "delay_delivered", msg_id="M0001")

# %% [markdown]
# M0001's path: from `TopicTest` through `SCHEDULE_TOPIC_XXXX` to `%RETRY%cg` and back to c1. The broker stored the
# retry in `SCHEDULE_TOPIC_XXXX` with a delay level, and the ScheduleMessageService moved it to `%RETRY%cg` when it
# was due. c1 subscribed `%RETRY%cg` by itself at start (CLUSTERING); the listener still sees
# `topic=TopicTest` (`resetRetryAndNamespace`).
#
# The listener left `ctx.delay_level_when_next_consume` at 0, so the broker picked the level:
# **3 + the stored `reconsumeTimes`** (levels: 1 s, 5 s, 10 s, 30 s, 1 min, 2 min, … — lab 03 has them all).

# %% [markdown]
# ### Exercise 2 — predict, then run
# The picture at the top of this lab failed one message on every delivery: its third delivery came at 41 s. Now the
# message is sent at 1 s and fails on its first **three** deliveries. At which second does its **fourth** delivery
# start? Predict, then run the cell below (the next section's picture plays this run too).

# %% nbgrader={"grade": false, "grade_id": "ex02a_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← your prediction
### BEGIN SOLUTION
answer_2 = 101
### END SOLUTION

# %%
lab, p, c = one_queue_lab(lambda m, ctx: RECONSUME_LATER if m[0].reconsume_times < 3 else CONSUME_SUCCESS)
lab.at("1s", p.send, Message("TopicTest", "x"))
lab.run(until="3m")
show_trace(lab.trace, "delivered", "send_back", "scheduled", msg_id="M0001")
fourth = lab.trace.of_kind("delivered")[3]

# %% nbgrader={"grade": true, "grade_id": "ex02a_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("02a.2", answer_2, fourth.time_ms // 1000)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_02a_2
grading_02a_2.verify("02a.2", answer_2)
### END HIDDEN TESTS

# %% [markdown]
# ## The retry count travels with the message
# Each delivery above showed a growing `reconsume_times`. Where does the broker keep it? The picture: one message
# that fails three times (each token is numbered with its count). Step on: it stops when c1 fails M0001 a second
# time and asks where the message goes.

# %% tags=["nbval-ignore-output"]
count_dash = Dashboard(failing_lab, knobs={"failures": 3, "messages": 1}, horizon="3m", checkpoints=[
    Checkpoint(before="send_back", msg_id="M0001", nth=2, ask="where", optional=True,
               name="where M0001 goes after its retry fails",
               question="c1 fails M0001 again, on its first retry. Where is M0001 after the next step? Click the "
                        "place in the picture (or a button).",
               hint="The broker picks the delay level from the count stored with the message it re-stores.",
               explain=sealed_explanation("02a.count")),
])
count_dash

# %% [markdown]
# ### Exercise 3 — predict, then run
# On its second delivery the listener reads `msgs[0].reconsume_times` and `msgs[0].properties.get("RECONSUME_TIME")`.
# What does it get? Answer as a pair `(reconsume_times, property)`.

# %% nbgrader={"grade": false, "grade_id": "ex02a_3_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_3 = ...  # ← your prediction
### BEGIN SOLUTION
answer_3 = (1, None)
### END SOLUTION

# %%
seen = []


def peek(msgs, ctx):
    """Record what the listener can read about the retry count, then fail once."""
    m = msgs[0]
    seen.append((m.reconsume_times, m.properties.get("RECONSUME_TIME")))
    return RECONSUME_LATER if m.reconsume_times == 0 else CONSUME_SUCCESS


lab, p, c = one_queue_lab(peek)
lab.at("1s", p.send, Message("TopicTest", "x"))
lab.run(until="20s")
print(table([[m.topic, m.queue_id, m.reconsume_times] for m in lab.brokers["broker-a"].commit_log.live()],
            ["CommitLog entry", "queue", "reconsume_times"]))

# %% nbgrader={"grade": true, "grade_id": "ex02a_3", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("02a.3", answer_3, seen[1])
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_02a_3
grading_02a_3.verify("02a.3", answer_3)
### END HIDDEN TESTS

# %% [markdown]
# > **Common belief vs. the source.** "The retry count is the `RECONSUME_TIME` property." — `reconsumeTimes` is a
# > field of every CommitLog record (field 13, written by `CommitLog`'s append callback, read back into
# > `MessageExt.reconsumeTimes`). `asyncConsumerSendMsgBack` stores the new copy with `reconsumeTimes + 1` and copies the
# > original's properties, which have no count; the schedule service keeps the field when it moves the copy to
# > `%RETRY%`. The property exists only while a client sends to a `%RETRY%` topic itself: `sendKernelImpl` moves it
# > into the request header (lab 02b).

# %% [markdown]
# ## Key points
# - Failure = `RECONSUME_LATER`, null, an exception, or `ackIndex` < size−1; all are the same afterwards.
# - A failed message is sent back to the broker, which stores a delayed copy for `%RETRY%<group>`: level
#   3 + `reconsumeTimes` unless the listener set `delayLevelWhenNextConsume` — which it may do per call, so each
#   delivery of one message can choose its own level (`examples/listener_per_call.yaml`).
# - Next: [02b](02b_send_back_failures.ipynb) — when the send-back itself fails, slow listeners, and per-instance limits.

# %% [markdown]
# ## Your score
# Run this cell last: one line per exercise of this lab, from the checks you ran.

# %%
score("02a")
