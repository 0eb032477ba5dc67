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
# [Index](README.md) · [← Back](07b_orderly_failover.ipynb) · [Next →](09_capstone.ipynb)

# %% [markdown]
# # 08 · Broadcasting vs. clustering
#
# **Goal:** compare who gets a message, what happens when consuming it fails, and where offsets live in the two
# message models.
# Source: `DefaultMQPushConsumer.messageModel`, `ConsumeMessageConcurrentlyService.processConsumeResult`,
# `DefaultMQPushConsumerImpl.copySubscription`, `client/.../consumer/store/LocalFileOffsetStore.java`.

# %%
from rmqlab import ConsumeConcurrentlyStatus, Lab, Message
from rmqlab.course.exercises import assert_right, check, score, show_trace, table

CONSUME_SUCCESS = ConsumeConcurrentlyStatus.CONSUME_SUCCESS
RECONSUME_LATER = ConsumeConcurrentlyStatus.RECONSUME_LATER
SEED = 7


# %%
def fails_once(msgs, ctx):
    """Fail the first delivery, succeed on a retry."""
    return RECONSUME_LATER if msgs[0].reconsume_times == 0 else CONSUME_SUCCESS

def two_consumers_lab(model="CLUSTERING", messages=1, instances=2, listener=fails_once):
    """One broker, 2 queues, ``instances`` consumers c1, c2 … of group cg in the given message model, each with
    ``listener`` (``fails_once``); ``messages`` from 1 s."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=2)
    p = lab.add_producer("pg")
    for k in range(instances):
        lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=listener, name=f"c{k + 1}", message_model=model)
    for k in range(messages):
        lab.at(f"{1 + 2 * k}s", p.send, Message("TopicTest", "config changed" if k == 0 else f"config changed ({k + 1})"))
    return lab

def two_consumers(model):
    """two_consumers_lab(model) run for its first minute."""
    return two_consumers_lab(model).run(until="1m")


# %% [markdown]
# ## A tiny run: CLUSTERING (the default)
# The picture: three messages to group cg (c1 and c2), each failing once. The `model` knob switches CLUSTERING /
# BROADCASTING (then Rebuild). Step through in CLUSTERING first: who gets each message, and where its retry goes. It
# stops when c1 has pulled the first one (its listener will return RECONSUME_LATER), and asks where that message goes.

# %% tags=["nbval-ignore-output"]
from rmqlab.widgets.checkpoint_whether import owns
from rmqlab.widgets.checkpoints import Checkpoint, sealed_explanation
from rmqlab.widgets.dashboard import Dashboard

MODELS = ("CLUSTERING", "BROADCASTING")
dash = Dashboard(two_consumers_lab, knobs={"model": "CLUSTERING", "messages": 3}, knob_options={"model": MODELS},
                 horizon="30s", checkpoints=[
    Checkpoint(before="consumed", actor="consumer:c1", ask="where", optional=True, name="where c1's failure goes",
               question="c1 has just pulled {msg}, and its listener will return RECONSUME_LATER for it. The group "
                        "is in CLUSTERING. Where is {msg} after the next step? Click the place in the picture (or a button).",
               hint="In CLUSTERING processConsumeResult sends a failed message back to the broker "
                    "(sendMessageBack), with a delay level that grows with its reconsumeTimes.",
               explain=sealed_explanation("08.clustering-send-back"))])
dash

# %% [markdown]
# One message as a table, up to the picture's question: who got it.

# %%
show_trace(two_consumers_lab("CLUSTERING").run(until="1s").trace, "delivered", fields=("queue", "reconsume_times"))

# %% [markdown]
# ## BROADCASTING: every instance, its own copy
# The picture in BROADCASTING, three messages. It opens on a yes/no question: does c1 subscribe the retry topic?
# Then Step: it stops when c1 has pulled its copy of the first one (its listener will return RECONSUME_LATER), and
# asks where that copy goes. Exercises 1 and 3 below ask the same two rules about other runs.

# %% tags=["nbval-ignore-output"]
broadcast_dash = Dashboard(two_consumers_lab, knobs={"model": "BROADCASTING", "messages": 3},
                           knob_options={"model": MODELS}, horizon="30s", checkpoints=[
    Checkpoint(before="rebalanced", actor="consumer:c1", ask="whether", name="whether c1 subscribes %RETRY%cg",
               holds=lambda trace, snap: owns(snap, "c1", "%RETRY%cg"),
               question="c1 is about to start and rebalance for the first time. Does it subscribe its group's "
                        "retry topic, %RETRY%cg (will it take one of its queues)? Mind the group's message model.",
               hint="Where does a retry topic's message come from? Look at what processConsumeResult does with a "
                    "failure in this message model, and at DefaultMQPushConsumerImpl.copySubscription.",
               explain=sealed_explanation("08.retry-topic")),
    Checkpoint(before="consumed", actor="consumer:c1", ask="where", optional=True, name="where c1's failed copy goes",
               question="c1 has just pulled its copy of {msg}, and its listener will return RECONSUME_LATER for it. "
                        "The group is in BROADCASTING. "
                        "Where is that copy after the next step? Click the place in the picture (or a button).",
               hint="processConsumeResult switches on the message model, and only its CLUSTERING branch calls "
                    "sendMessageBack. Which of these places could the copy reach without the broker's help?",
               explain=sealed_explanation("08.failed-copy")),
])
broadcast_dash

# %% [markdown]
# Play on past the question and watch c2's copy too.
#
# ### Exercise 1 — predict, then run
# The picture has two instances. In BROADCASTING with **three** instances (c1, c2, c3) and one message, which fails
# at its first delivery everywhere, how many deliveries happen in total in the first minute?

# %% nbgrader={"grade": false, "grade_id": "ex08_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← your prediction
### BEGIN SOLUTION
answer_1 = 3
### END SOLUTION

# %%
three = two_consumers_lab("BROADCASTING", instances=3).run(until="1m")
deliveries = three.trace.of_kind("delivered")
lab = two_consumers("BROADCASTING")

# %% nbgrader={"grade": true, "grade_id": "ex08_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("08.1", answer_1, len(deliveries))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_08_1
grading_08_1.verify("08.1", answer_1)
### END HIDDEN TESTS

# %%
show_trace(lab.trace, "delivered", "consumed", "send_back", "broadcast_dropped", fields=("queue", "reconsume_times", "status"))

# %% [markdown]
# The tiny run's first message in CLUSTERING, for comparison: one instance got the message; its failure went
# back to the broker and came again 10 s later from `%RETRY%cg`.

# %%
show_trace(two_consumers("CLUSTERING").trace, "delivered", "send_back", fields=("queue", "reconsume_times", "ok"))

# %% [markdown]
# ## Where the offsets live
# The picture: the same group with a listener that never fails, three messages, in BROADCASTING (the `model` knob).
# Its ProcessQueues tab draws each instance's queues and, under each, the offset that instance keeps. Step: it stops
# before c1 first saves its offsets and asks whether broker-a will then know them.

# %% tags=["nbval-ignore-output"]
def offsets_picture(model="BROADCASTING", messages=3):
    """``messages`` messages to c1 and c2 of cg in ``model``; the listener never fails."""
    return two_consumers_lab(model, messages=messages, listener=lambda msgs, ctx: CONSUME_SUCCESS)


def broker_knows_cg(trace, snap):
    """Whether broker-a's consumerOffset table holds an offset of group cg."""
    return any(group == "cg" for b in snap.brokers for group, mq, offset in b.committed_offsets)


offsets_dash = Dashboard(offsets_picture, knobs={"model": "BROADCASTING", "messages": 3},
                         knob_options={"model": MODELS}, horizon="12s", checkpoints=[
    Checkpoint(before="offset_persisted", actor="consumer:c1", ask="whether", optional=True, tab="ProcessQueues",
               name="whether broker-a learns c1's offsets", holds=broker_knows_cg,
               question="c1 is about to save its consumer offsets (persistAll). Mind the group's message model: "
                        "will broker-a hold an offset of cg afterwards?",
               hint="Which OffsetStore does DefaultMQPushConsumerImpl.start() create for this message model, and "
                    "where does its persistAll write?",
               explain=sealed_explanation("08.offsets-local"))])
offsets_dash

# %% [markdown]
# ### Exercise 2 — predict, then run
# Back to Exercise 1's run with two instances (BROADCASTING): after c1's copy fails, what offset does c1 hold for `TopicTest@broker-a:0`, the queue of the failed message
# (offset 0)?

# %% nbgrader={"grade": false, "grade_id": "ex08_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← your prediction
### BEGIN SOLUTION
answer_2 = 1
### END SOLUTION

# %%
c1 = lab.consumers["c1"]
queue_0 = next(mq for mq in c1.offset_store.offset_table if str(mq) == "TopicTest@broker-a:0")
after_drop = c1.offset_store.offset_table[queue_0]

# %% nbgrader={"grade": true, "grade_id": "ex08_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("08.2", answer_2, after_drop)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_08_2
grading_08_2.verify("08.2", answer_2)
### END HIDDEN TESTS

# %% [markdown]
# The offsets picture's answer: CLUSTERING keeps one offset per queue for the whole group, on the broker (`RemoteBrokerOffsetStore`).
# BROADCASTING keeps one per queue **per instance**, in a local file (`LocalFileOffsetStore`,
# `~/.rocketmq_offsets/<clientId>/<group>/offsets.json`): the broker knows nothing of them. Switch the knob to
# CLUSTERING and Rebuild to see the group's one offset per queue. As a table, from Exercise 2's run:

# %%
rows = [[client, group, str(mq), offset] for (client, group), offsets in sorted(lab.local_offset_files.items()) for mq, offset in sorted(offsets.items())]
print(table(rows, ["instance", "group", "queue", "offset in its local file"]))
print("offsets of cg stored on broker-a:", {k: v for k, v in lab.brokers["broker-a"].consumer_offsets.items() if k[0] == "cg"})

# %% [markdown]
# ### Exercise 3 — predict, then run
# Back to the retry topic, in the other message model: a CLUSTERING group whose listener never fails, so that nothing is ever sent back: does c1 subscribe `%RETRY%cg`?
# (`True` / `False`)

# %% nbgrader={"grade": false, "grade_id": "ex08_3_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_3 = ...  # ← your prediction
### BEGIN SOLUTION
answer_3 = True
### END SOLUTION

# %%
never_fails = two_consumers_lab("CLUSTERING", listener=lambda msgs, ctx: CONSUME_SUCCESS).run(until="1m")
topics = sorted({e.get("topic") for e in never_fails.trace.of_kind("rebalanced") if e.actor == "consumer:c1"})

# %% nbgrader={"grade": true, "grade_id": "ex08_3", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("08.3", answer_3, "%RETRY%cg" in topics)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_08_3
grading_08_3.verify("08.3", answer_3)
### END HIDDEN TESTS

# %%
print(topics)

# %% [markdown]
# ## Key points
# - CLUSTERING and BROADCASTING differ in three things: which instances get a message, what
#   `processConsumeResult` does with a failure, and where the offsets live (`RemoteBrokerOffsetStore` /
#   `LocalFileOffsetStore`).
#
# > **Common belief vs. the source.** "A failed message is retried up to 16 times, then dead-lettered, whatever the
# > message model." — only in CLUSTERING. In BROADCASTING, 4.9.7's `ConsumeMessageConcurrentlyService.processConsumeResult`
# > logs "BROADCASTING, the message consume failed, drop it" for each failed message and moves on: nothing is sent
# > back, delayed or dead-lettered. A broadcasting listener that can fail must retry or park the work itself.

# %% [markdown]
# ## Your score
# Run this cell last: one line per exercise of this lab, from the checks you ran.

# %%
score("08")
