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
# [Index](README.md) · [← Back](01_producer_send_retry.ipynb) · [Next →](03_delay_levels_schedule.ipynb)

# %% [markdown]
# # 02 · Concurrent consumption and retry
#
# **Goal:** learn what counts as a failure, what happens to a failed message, and the 5 s local retry.
# Source: `client/.../impl/consumer/ConsumeMessageConcurrentlyService.java`, `DefaultMQPushConsumerImpl.sendMessageBack`.

# %%
from rmqlab import ConsumeConcurrentlyStatus, ConsumeOrderlyStatus, Lab, Message, after, format_duration
from rmqlab.exercises import assert_right, check, score, show_trace, table

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
# ## A tiny run: four listeners, four answers

# %%
def returns_null(msgs, ctx):
    """Forget to return a status."""
    return None

def raises(msgs, ctx):
    """Throw, like a NullPointerException in business code."""
    raise RuntimeError("db down")

def slow_success(msgs, ctx):
    """Succeed, but after 20 minutes (consumeTimeout is 15 minutes)."""
    return after("20m", CONSUME_SUCCESS)


# %%
rows = []
def reconsume_later(msgs, ctx):
    """Ask for a retry."""
    return RECONSUME_LATER

for listener in (reconsume_later, returns_null, raises, slow_success):
    lab, p, c = one_queue_lab(listener)
    lab.at("1s", p.send, Message("TopicTest", "x"))
    lab.run(until="30m")
    e = lab.trace.of_kind("consumed")[0]
    sent_back = any(b.time_ms == e.time_ms for b in lab.trace.of_kind("send_back"))
    rows.append([getattr(listener, "__name__", "?"), e.get("status"), e.get("return_type"), e.get("took_ms"), sent_back])
print(table(rows, ["listener", "effective status", "ConsumeReturnType", "took_ms", "sent back"]))


# %% [markdown]
# null and exceptions become `RECONSUME_LATER`. A slow `CONSUME_SUCCESS` stays a success: `TIME_OUT` is a stats label.
# > **Common belief vs. the source.** "A consume timeout counts as a failure and is retried." — The listener's status is
# > kept; only `cleanExpiredMsg` (every `consumeTimeout` minutes) sends back a *stuck* lowest-offset message.

# %% [markdown]
# ## ackIndex: partial success of a batch

# %%
def first_two_ok(msgs, ctx):
    """Acknowledge msgs[0..1] of the batch; the rest count as failed."""
    ctx.ack_index = 1
    return CONSUME_SUCCESS


# %% [markdown]
# ### Exercise 1 — predict, then run
# A batch of 4 messages (`consume_message_batch_max_size=4`) returns `CONSUME_SUCCESS` with `ack_index = 1`.
# How many messages are sent back for retry?

# %% nbgrader={"grade": false, "grade_id": "ex02_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
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

# %% nbgrader={"grade": true, "grade_id": "ex02_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("02.1", answer_1, len(lab.trace.of_kind("send_back")))
### BEGIN HIDDEN TESTS
assert_right("02.1")
### END HIDDEN TESTS

# %% [markdown]
# ## Where a failed message goes: `%RETRY%<group>`
# `sendMessageBack` asks the broker (`CONSUMER_SEND_MSG_BACK`) to re-store it under `%RETRY%cg`, delayed.

# %%
def fails_once_lab():
    """One message at 1 s; its first delivery fails, the retry succeeds."""
    lab, p, c = one_queue_lab(lambda m, ctx: RECONSUME_LATER if m[0].reconsume_times == 0 else CONSUME_SUCCESS)
    lab.at("1s", p.send, Message("TopicTest", "x"))
    return lab


# %%
lab = fails_once_lab()
lab.run(until="20s")
show_trace(lab.trace, "delivered", "consumed", "send_back", "scheduled", "stored", msg_id="M0001")

# %% [markdown]
# The retry is consumed from `%RETRY%cg@broker-a:0`, but the listener sees `topic=TopicTest` (`resetRetryAndNamespace`).
# ## When send-back fails: the fallback, then the 5 s local retry
# First, the broker rejects `CONSUMER_SEND_MSG_BACK` (`reject_send_back=True`): the client produces the retry itself.

# %%
lab, p, c = one_queue_lab(lambda m, ctx: RECONSUME_LATER if m[0].reconsume_times == 0 else CONSUME_SUCCESS)
lab.set_broker_fault("broker-a", reject_send_back=True)
lab.at("1s", p.send, Message("TopicTest", "x"))
lab.run(until="20s")
show_trace(lab.trace, "send_back", "send_back_fallback", "scheduled", msg_id="M0001")


# %% [markdown]
# Now the link c1 ↔ broker-a breaks while the listener runs: the send-back **and** the fallback (a SYNC send of
# `CLIENT_INNER_PRODUCER`, 3 attempts) fail. The message stays in the ProcessQueue and is re-consumed locally.

# %%
def fails_until_20s(msgs, ctx):
    """Take 1 s and fail, until virtual time 20 s."""
    return after("1s", RECONSUME_LATER) if lab.now < 20_000 else CONSUME_SUCCESS


# %% [markdown]
# ### Exercise 2 — predict, then run
# The partition heals at 12 s. When the send-back finally succeeds, which `reconsume_times` does the broker store
# on the retry copy? (The listener has seen 0, 1, 2.)

# %% nbgrader={"grade": false, "grade_id": "ex02_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← your prediction
### BEGIN SOLUTION
answer_2 = 1
### END SOLUTION

# %%
lab, p, c = one_queue_lab(fails_until_20s)
lab.at("1s", p.send, Message("TopicTest", "x"))
lab.at("1500ms", lab.partition, "c1", "broker-a")
lab.at("12s", lab.partition, "c1", "broker-a", heal=True)
lab.run(until="40s")
show_trace(lab.trace, "delivered", "send_back", "send_back_fallback", "local_retry", "scheduled", "fault")
retry_copy = lab.trace.of_kind("scheduled")[0]

# %% nbgrader={"grade": true, "grade_id": "ex02_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("02.2", answer_2, retry_copy.get("reconsume_times"))
### BEGIN HIDDEN TESTS
assert_right("02.2")
### END HIDDEN TESTS

# %% [markdown]
# > **Common belief vs. the source.** "A failed send-back loses the message." — The client falls back to producing a
# > `%RETRY%` message; if that fails too it re-consumes locally every 5000 ms, keeping the offset pinned.

# %% [markdown]
# ## More retry queues? Only before the first heartbeat
# The broker puts each retry in queue `random % retryQueueNums` of `%RETRY%<group>`, a topic it creates when the
# group's first consumer heartbeats. Here an operator raises the group's `retryQueueNums` from 1 to 4 *after* c1
# started (`mqadmin updateSubGroup -g cg -q 4`), to spread the retries over four queues.
# ### Exercise 3 — predict, then run
# Four messages fail once, then succeed. How many of them are redelivered in the minute after they fail?

# %% nbgrader={"grade": false, "grade_id": "ex02_3_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_3 = ...  # ← your prediction
### BEGIN SOLUTION
answer_3 = 1
### END SOLUTION

# %%
lab, p, c = one_queue_lab(lambda m, ctx: RECONSUME_LATER if m[0].reconsume_times == 0 else CONSUME_SUCCESS)
lab.update_subscription_group("cg", retry_queue_nums=4)
for i in range(4):
    lab.at("1s", p.send, Message("TopicTest", f"x{i}"))
lab.run(until="61s")
retries = [e for e in lab.trace.of_kind("stored") if e.get("topic") == "%RETRY%cg"]
redelivered = [e for e in lab.trace.of_kind("delivered") if e.get("reconsume_times") == 1]
print(table([[e.msg_id, e.get("queue_id")] for e in retries], ["retry of", "stored in %RETRY%cg queue"]))
print("redelivered:", [e.msg_id for e in redelivered])

# %% nbgrader={"grade": true, "grade_id": "ex02_3", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("02.3", answer_3, len(redelivered))
### BEGIN HIDDEN TESTS
assert_right("02.3")
### END HIDDEN TESTS

# %% [markdown]
# The other retries sit in queues the route does not list. The queue view says so, and the invariant checker
# would report them as *stranded*:

# %%
from widgets import take_snapshot
from widgets.queue_view import queue_view_model, queue_view_text

print(queue_view_text(queue_view_model(take_snapshot(lab), kinds=("retry",))))

# %% [markdown]
# `mqadmin updateTopic -t %RETRY%cg -r 4 -w 4` lists the four queues. The consumer sees the new route on its next
# name-server poll (every 30 s) and takes the queues at its next rebalance (every 20 s):

# %%
lab.update_topic("%RETRY%cg", queues=4)
lab.run(until="3m")
show_trace([e for e in lab.trace.of_kind("delivered") if e.get("reconsume_times") == 1], fields=["queue"])

# %% [markdown]
# > **Common belief vs. the source.** "Raising `retryQueueNums` spreads retries over more queues." — `%RETRY%<group>`
# > keeps the queue count it got at the first heartbeat (`createTopicInSendMessageBackMethod` returns an existing topic
# > as is), and nothing checks the random queue id against it: the retry is stored in a queue no consumer reads.
# > Set it before the group first starts, or run `updateTopic` on the retry topic too.

# %% [markdown]
# ## Watch it step by step
# `fails_once_lab()` in a `Dashboard`: Step / Play / Jump replay it. Below, the controller jumps to the moment the
# retry copy leaves `SCHEDULE_TOPIC_XXXX` (`delay_delivered`) and three tabs print as text.

# %% tags=["nbval-ignore-output"]
from widgets.dashboard import Dashboard

dash = Dashboard(fails_once_lab, horizon="30s")
dash

# %%
dash.controller.jump_to_next("delay_delivered")
tabs = {view.title: view.text for view in dash.views}
print(dash.controller.clock_text)
print(tabs["Queues"])
print(tabs["ProcessQueues"])
print(tabs["Retry timeline"])

# %% [markdown]
# ## Key points
# - Failure = `RECONSUME_LATER`, null, an exception, or `ackIndex` < size−1. Slowness is not a failure.
# - Failed → `%RETRY%<group>` via the broker, else via the client fallback, else a local retry after 5 s.
# - `%RETRY%<group>` keeps the queue count of its creation: raising `retryQueueNums` later strands retries.

# %% [markdown]
# ## Your score
# Run this cell last: one line per exercise of this lab, from the checks you ran.

# %%
score("02")
