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
# [Index](README.md) · [← Back](03_delay_levels_schedule.ipynb) · [Next →](05_offsets_process_queue.ipynb)

# %% [markdown]
# # 04 · The dead-letter queue
#
# **Goal:** know when a message is dead-lettered, where it lands, and how an operator gets it back.
# Source: `broker/.../processor/SendMessageProcessor.java`, `common/.../MixAll.java` (`getDLQTopic`),
# `broker/.../processor/AbstractSendMessageProcessor.java` (`DLQ_NUMS_PER_GROUP`).

# %%
from rmqlab import ConsumeConcurrentlyStatus, ConsumeOrderlyStatus, Lab, Message, after, format_duration
from rmqlab.exercises import assert_right, check, score, show_trace, table

CONSUME_SUCCESS = ConsumeConcurrentlyStatus.CONSUME_SUCCESS
RECONSUME_LATER = ConsumeConcurrentlyStatus.RECONSUME_LATER
SEED = 7

# %%
bug_fixed = False

def business(msgs, ctx):
    """Fails until the bug is fixed."""
    return CONSUME_SUCCESS if bug_fixed else RECONSUME_LATER

def refund_lab(listener, max_reconsume_times=1):
    """One broker, a one-queue TopicTest, producer pg, consumer c1 of group cg."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    c = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=listener, name="c1", max_reconsume_times=max_reconsume_times)
    return lab, p, c

lab, p, c = refund_lab(business)

# %% [markdown]
# ## A tiny run: `max_reconsume_times=1`

# %%
lab.at("1s", p.send, Message("TopicTest", "refund 17", keys="order-17"))
lab.run(until="1m")
show_trace(lab.trace, "delivered", "send_back", msg_id="M0001")

# %% [markdown]
# The broker's rule (`asyncConsumerSendMsgBack`): **`rt >= max` or `delayLevel < 0` → `%DLQ%<group>`**, no delay.
# ### Exercise 1 — predict, then run
# What is the DLQ topic's exact name, and how many queues does it have? Answer as `("name", queues)`.

# %% nbgrader={"grade": false, "grade_id": "ex04_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← your prediction
### BEGIN SOLUTION
answer_1 = ("%DLQ%cg", 1)
### END SOLUTION

# %%
broker = lab.brokers["broker-a"]
dlq_name = lab.trace.of_kind("dead_lettered")[0].get("topic")
cfg = broker.topic_config[dlq_name]
print(dlq_name, "read/write queues:", cfg.read_queue_nums, cfg.write_queue_nums, "perm:", cfg.perm)

# %% nbgrader={"grade": true, "grade_id": "ex04_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("04.1", answer_1, (dlq_name, cfg.read_queue_nums))
### BEGIN HIDDEN TESTS
assert_right("04.1")
### END HIDDEN TESTS

# %% [markdown]
# The whole story of M0001, dead letter included:

# %%
show_trace(lab.trace, "delivered", "send_back", "dead_lettered", msg_id="M0001")

# %% [markdown]
# > **Common belief vs. the source.** "The DLQ is `%DLQ%group@group`." — `topic@group` is the broker *stats* key format.
# > And "DLQ messages cannot be consumed (perm 2)" is true only up to 4.9.1: 4.9.2+ creates it read+write (perm 6).

# %% [markdown]
# Nobody subscribes to a DLQ by default: it just sits there, and it **expires like any message**
# (`fileReservedTime` = 72 h in `MessageStoreConfig`). Check within three days. Watch it happen in a
# fresh copy of the tiny run, left alone for 80 virtual hours (the CleanCommitLogService deletes in the 04:00 window):

# %%
old, old_p, _ = refund_lab(lambda msgs, ctx: RECONSUME_LATER, 1)
old.at("1s", old_p.send, Message("TopicTest", "refund 17", keys="order-17"))
old.run(until="80h")
show_trace(old.trace, "dead_lettered", "retention_deleted")


# %% [markdown]
# ## The operator's re-send
# Fix the bug, then subscribe a consumer (own group) to `%DLQ%cg` and produce each message again to its real topic.

# %%
def resend(msgs, ctx):
    """Re-produce a dead letter to its original topic (the RETRY_TOPIC property)."""
    for m in msgs:
        p.send(Message(m.properties["RETRY_TOPIC"], m.body, keys=m.keys))
    return CONSUME_SUCCESS


# %% [markdown]
# ### Exercise 2 — predict, then run
# The re-sent copy gets a new client id. Which one?

# %% nbgrader={"grade": false, "grade_id": "ex04_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← your prediction
### BEGIN SOLUTION
answer_2 = "M0002"
### END SOLUTION

# %%
bug_fixed = True
ops = lab.add_consumer("dlq-ops", subscribe={"%DLQ%cg": "*"}, listener=resend, name="ops1",
                       consume_from_where="CONSUME_FROM_FIRST_OFFSET")
lab.run(until="2m")
show_trace(lab.trace, "delivered", "consumed", "stored")
resent = [e for e in lab.trace.of_kind("delivered") if e.actor == "consumer:c1" and e.msg_id != "M0001"]

# %% nbgrader={"grade": true, "grade_id": "ex04_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("04.2", answer_2, resent[0].msg_id)
### BEGIN HIDDEN TESTS
assert_right("04.2")
### END HIDDEN TESTS

# %% [markdown]
# Fix first, re-send second: re-sending while the bug is still there just makes a new message that dies again.

# %% [markdown]
# ## "Retries off" is not "straight to the DLQ": `retryQueueNums` = 0
# An operator wants failed refunds parked in the DLQ at once, without the retry schedule, and runs
# `mqadmin updateSubGroup -g cg -q 0` (0 retry queues; here `lab.update_subscription_group("cg", retry_queue_nums=0)`).
# Same tiny run, a listener that always fails.
# ### Exercise 3 — predict, then run
# Where does the failed message end up? Answer with a topic name, or `None` for nowhere.

# %% nbgrader={"grade": false, "grade_id": "ex04_3_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_3 = ...  # ← your prediction
### BEGIN SOLUTION
answer_3 = None
### END SOLUTION

# %%
off, off_p, _ = refund_lab(lambda msgs, ctx: RECONSUME_LATER)
off.update_subscription_group("cg", retry_queue_nums=0)
off.at("1s", off_p.send, Message("TopicTest", "refund 18", keys="order-18"))
off.run(until="1h")
show_trace(off.trace, "admin", "delivered", "send_back", "stored", "dead_lettered")
stored = [m.topic for m in off.brokers["broker-a"].commit_log.live()]
ended_in = next((topic for topic in stored if topic != "TopicTest"), None)
print("topics stored on broker-a:", stored)

# %% nbgrader={"grade": true, "grade_id": "ex04_3", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("04.3", answer_3, ended_in)
### BEGIN HIDDEN TESTS
assert_right("04.3")
### END HIDDEN TESTS

# %% [markdown]
# The consumer saw `ok=True` and moved its offset on; nothing in the client hints at the loss. The lab's invariant
# checker follows every produced message to its fate, and names the cause:

# %%
from rmqlab import check_invariants

print(check_invariants(off))

# %% [markdown]
# > **Common belief vs. the source.** "`retryQueueNums` 0 disables retry safely." — `asyncConsumerSendMsgBack` returns
# > SUCCESS before it even looks at the DLQ rule, so every failed message is silently dropped. To dead-letter at once,
# > keep one retry queue and have the listener set `ctx.delay_level_when_next_consume = -1` (or give the consumer
# > `max_reconsume_times=0`).

# %% [markdown]
# ## Watch it step by step
# The tiny run (bug still in) as a `Dashboard` factory with a `max_reconsume_times` knob. Below, the controller
# jumps to the `dead_lettered` event; the queues and the retry timeline print as text.

# %% tags=["nbval-ignore-output"]
from widgets.dashboard import Dashboard

def refund_fails(max_reconsume_times=1):
    """The tiny run as a factory: `refund 17` at 1 s, and a listener that always fails."""
    lab, p, _ = refund_lab(lambda msgs, ctx: RECONSUME_LATER, max_reconsume_times)
    lab.at("1s", p.send, Message("TopicTest", "refund 17", keys="order-17"))
    return lab

dash = Dashboard(refund_fails, knobs={"max_reconsume_times": 1}, horizon="2m")
dash

# %%
dash.controller.jump_to_next("dead_lettered")
tabs = {view.title: view.text for view in dash.views}
print(dash.controller.clock_text)
print(tabs["Queues"])
print(tabs["Retry timeline"])

# %% [markdown]
# ## Key points
# - DLQ when rt ≥ max (16 by default) or the listener sets delay level −1; name `%DLQ%<group>`, one queue.
# - Readable since 4.9.2, unsubscribed by default, deleted after 72 h like everything else.
# - `retryQueueNums` 0 does not dead-letter: the failed message is dropped without a trace in the client.

# %% [markdown]
# ## Your score
# Run this cell last: one line per exercise of this lab, from the checks you ran.

# %%
score("04")
