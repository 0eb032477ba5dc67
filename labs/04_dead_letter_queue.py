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
# [Index](README.md) · [← Back](03_delay_levels_schedule.ipynb) · [Next →](04b_stranded_retry_queues.ipynb)
#
# # 04 · The dead-letter queue
#
# **Goal:** know when a message is dead-lettered, where it lands, why the two send-back paths do not count alike, and
# how an operator gets a dead letter back.
# Source: `broker/.../processor/SendMessageProcessor.java` (`asyncConsumerSendMsgBack`, `handleRetryAndDLQ`),
# `client/.../impl/consumer/DefaultMQPushConsumerImpl.java` (`sendMessageBack`), `common/.../MixAll.java` (`getDLQTopic`),
# `broker/.../processor/AbstractSendMessageProcessor.java` (`DLQ_NUMS_PER_GROUP`),
# `broker/.../topic/TopicConfigManager.java` (`createTopicInSendMessageBackMethod`).

# %%
from rmqlab import ConsumeConcurrentlyStatus, Lab, Message, check_invariants
from rmqlab.course.exercises import assert_right, check, score, show_trace, table

CONSUME_SUCCESS = ConsumeConcurrentlyStatus.CONSUME_SUCCESS
RECONSUME_LATER = ConsumeConcurrentlyStatus.RECONSUME_LATER
SEED = 7

bug_fixed = False


def business(msgs, ctx):
    """Fails until the bug is fixed."""
    return CONSUME_SUCCESS if bug_fixed else RECONSUME_LATER


def always_fails(msgs, ctx):
    """Never succeed."""
    return RECONSUME_LATER


def refund_lab(listener, max_reconsume_times=1):
    """One broker, a one-queue TopicTest, producer pg, consumer c1 of group cg."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    c = lab.add_consumer(
        "cg", subscribe={"TopicTest": "*"}, listener=listener, name="c1", max_reconsume_times=max_reconsume_times
    )
    return lab, p, c


def refund_fails(max_reconsume_times=1, reject_send_back=False, retry_queue_nums=1, messages=1):
    """Always-failing refunds, one per second from 1 s (``refund 17``, ``refund 18``, …); broker knobs as named."""
    lab, p, _ = refund_lab(always_fails, max_reconsume_times)
    if reject_send_back:
        lab.set_broker_fault("broker-a", reject_send_back=True)
    if retry_queue_nums != 1:
        lab.update_subscription_group("cg", retry_queue_nums=retry_queue_nums)
    for k in range(messages):
        lab.at(f"{1 + k}s", p.send, Message("TopicTest", f"refund {17 + k}", keys=f"order-{17 + k}"))
    return lab

# %% [markdown]
# ## A tiny run: `max_reconsume_times=1`
# The picture: three refunds that always fail, with `max_reconsume_times=1`. Knobs change the run (then Rebuild).
# Step through the first refund's deliveries and stop before its second send-back.

# %% tags=["nbval-ignore-output"]
from rmqlab.widgets.checkpoints import Checkpoint, sealed_explanation
from rmqlab.widgets.dashboard import Dashboard

dash = Dashboard(refund_fails, knobs={"max_reconsume_times": 1, "messages": 3}, horizon="1m", checkpoints=[
    Checkpoint(before="send_back", msg_id="M0001", nth=2, ask="where", optional=True, name="where refund 17 goes after its retry fails",
               question="Where is refund 17 (M0001) after its retry fails? Click the place in the picture (or a button).",
               explain=sealed_explanation("04.refund-17")),
])
dash

# %% [markdown]
# The broker's rule, in `asyncConsumerSendMsgBack`: when the **stored** `reconsumeTimes` of the failed message is
# `>= maxReconsumeTimes` (from the request header), or the listener asked for delay level < 0, the copy goes to the
# group's dead-letter topic instead of `%RETRY%<group>`, with no delay.
#
# ### Exercise 1 — predict, then run
# Another run: c1 of group `invoices` consumes `Orders`, a topic with **4** queues, with `max_reconsume_times=1`, and fails
# every delivery; one order is sent to each queue. What is the exact name of the topic they end up in, and how many
# queues does that topic have? Answer as `("name", queues)`.

# %% nbgrader={"grade": false, "grade_id": "ex04_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← your prediction
### BEGIN SOLUTION
answer_1 = ("%DLQ%invoices", 1)
### END SOLUTION

# %%
pay = Lab(seed=SEED)
pay.add_broker("broker-a")
pay.create_topic("Orders", queues=4)
pay_p = pay.add_producer("pg")
pay.add_consumer("invoices", subscribe={"Orders": "*"}, listener=always_fails, name="c1", max_reconsume_times=1)
for k in range(4):
    pay.at(f"{1 + k}s", pay_p.send, Message("Orders", f"order {k + 1}"))
broker = pay.brokers["broker-a"]
print("topics before:", sorted(broker.topic_config))
pay.run(until="1m")
print("topics after: ", sorted(broker.topic_config))
show_trace(pay.trace, "dead_lettered", fields=("topic", "queue_id", "reconsume_times"))
dlq_name = pay.trace.of_kind("dead_lettered")[0].get("topic")
cfg = broker.topic_config[dlq_name]
print(dlq_name, "read/write queues:", cfg.read_queue_nums, cfg.write_queue_nums, "perm:", cfg.perm)

# %% nbgrader={"grade": true, "grade_id": "ex04_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("04.1", answer_1, (dlq_name, cfg.read_queue_nums))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_04_1
grading_04_1.verify("04.1", answer_1)
### END HIDDEN TESTS

# %% [markdown]
# The dead-letter topic did not exist before: the broker creates it (`createTopicInSendMessageBackMethod`) the first
# time one of the group's messages dies, on that broker.

# %% [markdown]
# ## Two topics, one group: how many dead-letter topics?
# The picture: orders and refunds that all fail, in one group whose c1 allows no retry. Step on: it stops before the
# first failed order goes anywhere and asks where.

# %%
def two_topics_lab(per_topic=3):
    """Group cg subscribes Orders and Refunds, ``max_reconsume_times=0``; ``per_topic`` failing messages of each."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("Orders", queues=1)
    lab.create_topic("Refunds", queues=1)
    p = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"Orders": "*", "Refunds": "*"}, listener=always_fails, name="c1",
                     max_reconsume_times=0)
    for k in range(per_topic):
        lab.at(f"{1 + 2 * k}s", p.send, Message("Orders", f"order {5 + k}"))
        lab.at(f"{2 + 2 * k}s", p.send, Message("Refunds", f"refund {9 + k}"))
    return lab


# %% tags=["nbval-ignore-output"]
two_dash = Dashboard(two_topics_lab, knobs={"per_topic": 3}, horizon="10s", checkpoints=[
    Checkpoint(before="send_back", msg_id="M0001", ask="where", optional=True,
               name="where the first failed order goes",
               question="c1 is about to fail order 5 (M0001), and c1 allows no retry. Where is M0001 after the next "
                        "step? Click the place in the picture (or a button).",
               hint="c1's own maxReconsumeTimes is checked against the count stored with the message.",
               explain=sealed_explanation("04.first-dead")),
])
two_dash

# %% [markdown]
# ### Exercise 2 — predict, then run
# Another run: **two** groups, `billing` and `audit`, each subscribe `Orders` and `Refunds` with
# `max_reconsume_times=0` (the first failure dead-letters), and both listeners always fail. One message is sent to each
# topic (each group gets both). How many `%DLQ%` topics exist on broker-a afterwards?

# %% nbgrader={"grade": false, "grade_id": "ex04_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← your prediction
### BEGIN SOLUTION
answer_2 = 2
### END SOLUTION

# %%
two = Lab(seed=SEED)
two.add_broker("broker-a")
two.create_topic("Orders", queues=1)
two.create_topic("Refunds", queues=1)
two_p = two.add_producer("pg")
for group in ("billing", "audit"):
    two.add_consumer(group, subscribe={"Orders": "*", "Refunds": "*"}, listener=always_fails, name=f"c-{group}",
                     max_reconsume_times=0)
two.at("1s", two_p.send, Message("Orders", "order 5"))
two.at("2s", two_p.send, Message("Refunds", "refund 9"))
two.run(until="1m")
store = two.brokers["broker-a"]
dlq_topics = [t for t in sorted(store.topic_config) if t.startswith("%DLQ%")]
dead = [m for m in store.commit_log.live() if m.topic.startswith("%DLQ%")]
print(table([[m.msg_id, m.topic, m.queue_id, m.properties["RETRY_TOPIC"]] for m in dead],
            ["dead letter", "stored in", "queue", "RETRY_TOPIC"]))

# %% nbgrader={"grade": true, "grade_id": "ex04_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("04.2", answer_2, len(dlq_topics))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_04_2
grading_04_2.verify("04.2", answer_2)
### END HIDDEN TESTS

# %% [markdown]
# > **Common belief vs. the source.** "Each topic has its dead-letter queue." — It is one per consumer group:
# > `%DLQ%<group>`, with `DLQ_NUMS_PER_GROUP` = 1 queue, which the broker creates at the group's first dead letter
# > (`SendMessageProcessor.asyncConsumerSendMsgBack`). Nothing subscribes to it: a dead letter waits for a person.
#
# Each dead letter carries the `RETRY_TOPIC` property (set at the first send-back): the topic it came from, which a
# re-send must read. Two ids name each dead letter. `msg_id` is the client's (`UNIQ_KEY`: set once by the producer, the id every
# listener sees); `offset_msg_id` is the store's, the broker's address and the copy's CommitLog offset
# (`MessageDecoder.createMessageId`), new for every stored copy. The send-back reads the failed message back from
# the store by offset and writes *that* copy's store id into `ORIGIN_MESSAGE_ID`; every later copy keeps it.

# %%
print(table([[m.msg_id, m.offset_msg_id, m.properties["ORIGIN_MESSAGE_ID"]] for m in dead],
            ["msg_id (UNIQ_KEY)", "offset_msg_id (this copy)", "ORIGIN_MESSAGE_ID (the first copy)"]))

# %% [markdown]
# ## The two send-back paths count differently
# A failed message reaches the DLQ by one of two paths (lab 02b):
# - **broker path** — `CONSUMER_SEND_MSG_BACK`: the broker compares the *stored* `reconsumeTimes` (rt) with the max,
#   and stores the copy with rt + 1;
# - **fallback path** — that request failed, so the client itself sends a message to `%RETRY%<group>` whose header
#   already says rt + 1 (`RECONSUME_TIME`), and the broker's `handleRetryAndDLQ` compares *that* with the max.
#
# The picture: the broker path with `max_reconsume_times=2`, two refunds. Step through it, then turn the
# `reject_send_back` knob on and Rebuild — but answer exercise 3 first.

# %% tags=["nbval-ignore-output"]
paths_dash = Dashboard(
    refund_fails, knobs={"max_reconsume_times": 2, "reject_send_back": False, "messages": 2}, horizon="2m",
    checkpoints=[
        Checkpoint(before="dead_lettered", msg_id="M0001", ask="when", optional=True, name="when refund 17 is dead-lettered",
                   question="c1 allows 2 retries (max_reconsume_times=2) and fails refund 17 (M0001) every time. When does "
                            "the broker write it to %DLQ%cg? Pick the time.",
                   explain=sealed_explanation("04.broker-path-dlq")),
    ],
)
paths_dash

# %%
# the broker path as a table
lab2, p2, _ = refund_lab(always_fails, max_reconsume_times=2)
lab2.at("1s", p2.send, Message("TopicTest", "refund 20"))
lab2.run(until="5m")
show_trace(lab2.trace, "delivered", "dead_lettered", fields=("reconsume_times", "topic"))


# %% [markdown]
# ### Exercise 3 — predict, then run
# Same consumer, but broker-a rejects every `CONSUMER_SEND_MSG_BACK` (`reject_send_back=True`), so every failure takes
# the fallback path. How many times is the message delivered before it is dead-lettered?

# %% nbgrader={"grade": false, "grade_id": "ex04_3_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_3 = ...  # ← your prediction
### BEGIN SOLUTION
answer_3 = 2
### END SOLUTION

# %%
fb, fb_p, _ = refund_lab(always_fails, max_reconsume_times=2)
fb.set_broker_fault("broker-a", reject_send_back=True)
fb.at("1s", fb_p.send, Message("TopicTest", "refund 20"))
fb.run(until="5m")
show_trace(fb.trace, "delivered", "send_back_fallback", "scheduled", "dead_lettered",
           fields=("reconsume_times", "real_topic", "level", "topic"))
fallback_deliveries = len(fb.trace.of_kind("delivered"))

# %% nbgrader={"grade": true, "grade_id": "ex04_3", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("04.3", answer_3, fallback_deliveries)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_04_3
grading_04_3.verify("04.3", answer_3)
### END HIDDEN TESTS

# %% [markdown]
# ## How long is a dead letter kept?
# Nobody subscribes to a DLQ by default: a dead letter just sits there. For how long? broker-a keeps RocketMQ's
# defaults: `fileReservedTime` 72 (hours) and `deleteWhen` "04" (the hour of the day it deletes old files in).
#
# The picture: c1 allows no retry (`max_reconsume_times=0`), so refunds 17 and 18 are dead-lettered at 1 s and 2 s;
# order 19 follows at 2 m and is consumed; at 3 m c1 and pg stop, and broker-a stays quiet for three days (virtual
# time 0 is midnight; each message stands for a CommitLog file). Step: it stops before broker-a deletes anything.

# %% tags=["nbval-ignore-output"]
def refunds_fail(msgs, ctx):
    """Refunds fail, orders succeed."""
    return RECONSUME_LATER if msgs[0].body.startswith("refund") else CONSUME_SUCCESS


def kept_lab():
    """Refunds 17 and 18 (1 s, 2 s) are dead-lettered at once; order 19 at 2 m succeeds; c1 and pg stop at 3 m."""
    lab, p, c = refund_lab(refunds_fail, max_reconsume_times=0)
    lab.at("1s", p.send, Message("TopicTest", "refund 17", keys="order-17"))
    lab.at("2s", p.send, Message("TopicTest", "refund 18", keys="order-18"))
    lab.at("2m", p.send, Message("TopicTest", "order 19", keys="order-19"))
    lab.at("3m", c.shutdown)
    lab.at("3m", p.shutdown)
    return lab


kept_dash = Dashboard(kept_lab, horizon="78h", checkpoints=[
    Checkpoint(before="retention_deleted", ask="when", optional=True, name="when refund 17's dead letter is deleted",
               question="Nobody reads %DLQ%cg. When does broker-a delete refund 17's dead letter (M0001), stored at 1 s? "
                        "Pick the time.",
               explain=sealed_explanation("04.dlq-kept")),
])
kept_dash

# %% [markdown]
# ## The operator's re-send
# Fix the bug, then subscribe a consumer (own group) to `%DLQ%cg` and produce each message again to the topic named
# by its `RETRY_TOPIC` property.
#
# The picture: refund 17 is dead-lettered at 11 s; at 30 s the bug is fixed and the operator's consumer ops1 (group
# dlq-ops) reads `%DLQ%cg` from the first offset and re-sends. Step: it stops before the copy is sent again
# and asks whether ops1 gets it.

# %% tags=["nbval-ignore-output"]
def resend_lab(fix_at="30s"):
    """Refund 17 at 1 s; c1 (max_reconsume_times=1) fails it until ``fix_at``, when ops1 starts re-sending."""
    fixed = []
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    fails_until_fixed = lambda msgs, ctx: CONSUME_SUCCESS if fixed else RECONSUME_LATER  # noqa: E731
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=fails_until_fixed, name="c1", max_reconsume_times=1)
    lab.at("1s", p.send, Message("TopicTest", "refund 17", keys="order-17"))

    def resend_each(msgs, ctx):
        """Re-produce each dead letter to its original topic."""
        for m in msgs:  # the operator's tool sends a second later
            lab.at(lab.now + 1_000, p.send, Message(m.properties["RETRY_TOPIC"], m.body, keys=m.keys))
        return CONSUME_SUCCESS

    def fix_and_resend():
        fixed.append(True)
        lab.add_consumer("dlq-ops", subscribe={"%DLQ%cg": "*"}, listener=resend_each, name="ops1",
                         consume_from_where="CONSUME_FROM_FIRST_OFFSET")

    lab.at(fix_at, fix_and_resend)
    return lab


def ops1_pulls_the_copy(trace, snap):
    """Whether ops1 fetches the re-sent copy (M0002), as the run did."""
    return any(e.kind.value == "pulled" and e.actor == "consumer:ops1" and "M0002" in e.get("msg_ids", []) for e in trace)


resend_dash = Dashboard(resend_lab, horizon="40s", checkpoints=[
    Checkpoint(before="send_attempt", msg_id="M0002", ask="whether", optional=True, holds=ops1_pulls_the_copy,
               name="whether ops1 gets the re-sent copy",
               question="ops1 has read refund 17 from %DLQ%cg; a second later its tool produces it again to the topic "
                        "its RETRY_TOPIC names, as a new message (M0002). Does ops1 get that copy?",
               hint="Which topic does ops1's group read, and to which topic does the tool send the copy? Who reads "
                    "that one?",
               explain=sealed_explanation("04.resend-who")),
])
resend_dash

# %%
def resend(msgs, ctx):
    """Re-produce a dead letter to its original topic (the RETRY_TOPIC property)."""
    for m in msgs:
        p.send(Message(m.properties["RETRY_TOPIC"], m.body, keys=m.keys))
    return CONSUME_SUCCESS


# %%
lab, p, c = refund_lab(business)
lab.at("1s", p.send, Message("TopicTest", "refund 17", keys="order-17"))
lab.run(until="1m")  # refund 17 fails twice and is dead-lettered to %DLQ%cg
bug_fixed = True
ops = lab.add_consumer("dlq-ops", subscribe={"%DLQ%cg": "*"}, listener=resend, name="ops1",
                       consume_from_where="CONSUME_FROM_FIRST_OFFSET")
lab.run(until="2m")
show_trace(lab.trace, "delivered", "consumed", fields=("topic", "reconsume_times", "status"))

# %% [markdown]
# The re-sent copy is a brand-new message (a new `UNIQ_KEY`, `reconsume_times` 0): deduplicate on business keys
# (`keys="order-17"`). Fix first, re-send second: re-sending while the bug is still there makes a new message that
# dies again.

# %% [markdown]
# ## `retryQueueNums` = 0: where does a failed message go?
# An operator wants failed refunds parked in the DLQ at once, without the retry schedule, and runs
# `mqadmin updateSubGroup -g cg -q 0` (0 retry queues; here `lab.update_subscription_group("cg", retry_queue_nums=0)`).
# Same tiny run, a listener that always fails. The picture, with the `retry_queue_nums` knob at 0: step on; it stops
# before c1's first send-back and asks where the refund goes.

# %% tags=["nbval-ignore-output"]
off_dash = Dashboard(refund_fails, knobs={"retry_queue_nums": 0, "messages": 5}, horizon="1m", checkpoints=[
    Checkpoint(before="send_back", msg_id="M0001", ask="where", optional=True,
               name="where a refund goes without retry queues",
               question="cg now has no retry queue, and c1 is about to fail refund 17 (M0001). Where is M0001 after "
                        "the next step? Click the place in the picture (or a button).",
               hint="What does the broker check first when a send-back arrives: the group's retry queues, or the "
                    "DLQ rule?",
               explain=sealed_explanation("04.off")),
])
off_dash

# %% [markdown]
# ### Exercise 4 — predict, then run
# Another run: the operator's `updateSubGroup -q 0` comes later, at **5 s**. Refund 18 is sent at 1 s to c1
# (`max_reconsume_times=1`, a listener that always fails): its first send-back still finds a retry queue, and its retry
# comes at 11 s, with its retries used up. Where does refund 18 end up? Answer with a topic name, or `None` for
# nowhere.

# %% nbgrader={"grade": false, "grade_id": "ex04_4_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_4 = ...  # ← your prediction
### BEGIN SOLUTION
answer_4 = None
### END SOLUTION

# %%
off, off_p, _ = refund_lab(always_fails, max_reconsume_times=1)
off.at("1s", off_p.send, Message("TopicTest", "refund 18", keys="order-18"))
off.at("5s", off.update_subscription_group, "cg", retry_queue_nums=0)
off.run(until="1h")
show_trace(off.trace, "admin", "delivered", "send_back", "scheduled", "dead_lettered")
last_back = off.trace.where("send_back", msg_id="M0001")[-1]
fates = [e for e in off.trace.where("scheduled", "dead_lettered", msg_id="M0001")
         if e.get("reconsume_times") == last_back.get("reconsume_times") + 1]
ended_in = (fates[-1].get("real_topic") or fates[-1].get("topic")) if fates else None
print("topics stored on broker-a:", sorted({m.topic for m in off.brokers["broker-a"].commit_log.live()}))
print("after refund 18's last send-back:", ended_in)

# %% nbgrader={"grade": true, "grade_id": "ex04_4", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("04.4", answer_4, ended_in)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_04_4
grading_04_4.verify("04.4", answer_4)
### END HIDDEN TESTS

# %% [markdown]
# What does the consumer see, and what does the broker keep? The lab's invariant checker follows every produced
# message to its fate, and names the cause:

# %%
report = check_invariants(off)
print("ok:", report.ok, "| fate of M0001:", report.fates[("group:cg", "M0001")])
print(report.violations[0].detail)

# %% [markdown]
# > **Common belief vs. the source (the retention picture).** "The DLQ keeps a message until someone deals with
# > it." — A dead letter is an ordinary CommitLog entry, not kept longer. `CleanCommitLogService` deletes whole
# > CommitLog *files* (1 GiB each) whose last write is `fileReservedTime` (72 h) old, in the `deleteWhen` hour (04:xx), or sooner when the disk is fuller
# > than `diskMaxUsedSpaceRatio` (75 %). The file being written is never deleted this way
# > (`MappedFileQueue.deleteExpiredFileByTime`): here order 19 stands for it and stays. Inspect a DLQ within three days.

# %% [markdown]
# ## Key points
# - The broker dead-letters when the stored reconsumeTimes reaches `maxReconsumeTimes` (16 by default) or the listener
#   sets delay level −1; the topic's name comes from `MixAll.getDLQTopic`, and it is created at the first dead letter.
# - A dead letter is readable (perm 6) since 4.9.2, unsubscribed by default, and deleted with its CommitLog file after
#   ≥ 72 h like everything else.
# - The broker path and the client's fallback path apply the same `>=` rule: look at which count each one compares.
# - Try what `retryQueueNums` 0 does to a failed message before you rely on it.
# - Next: [04b](04b_stranded_retry_queues.ipynb) — raising `retryQueueNums` on a running group.
#
# ## Your score
# Run this cell last: one line per exercise of this lab, from the checks you ran.

# %%
score("04")
