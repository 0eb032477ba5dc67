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
# [Index](README.md) · [← Back](02a_consume_failure_send_back.ipynb) · [Next →](03_delay_levels_schedule.ipynb)

# %% [markdown]
# # 02b · When the send-back fails, slow listeners, and per-instance limits
#
# **Goal:** follow a failed message when `CONSUMER_SEND_MSG_BACK` itself fails, see what a listener that runs too long
# causes, and see whose `maxReconsumeTimes` decides.
# Source: `client/.../impl/consumer/DefaultMQPushConsumerImpl.java` (`sendMessageBack`),
# `client/.../impl/consumer/ConsumeMessageConcurrentlyService.java` (`processConsumeResult`, `cleanExpireMsg`),
# `client/.../impl/consumer/ProcessQueue.java` (`cleanExpiredMsg`).

# %%
from rmqlab import ConsumeConcurrentlyStatus, Lab, Message, after
from rmqlab.course.exercises import assert_right, check, score, show_trace

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


def fails_once(msgs, ctx):
    """Fail the first delivery, succeed on the retry."""
    return RECONSUME_LATER if msgs[0].reconsume_times == 0 else CONSUME_SUCCESS


# %% [markdown]
# ## A tiny run: the broker refuses the send-back
# c1's listener fails each message once, and broker-a answers every `CONSUMER_SEND_MSG_BACK` with an error
# (`reject_send_back=True`). Is the failed message lost? The picture: three messages. Step on: it stops after c1's
# first failure and asks where M0001 goes.

# %%
def refused_lab(messages=3):
    """broker-a refuses every send-back; ``messages`` messages, one per second from 1 s, each failing once."""
    lab, p, c = one_queue_lab(fails_once)
    lab.set_broker_fault("broker-a", reject_send_back=True)
    for k in range(messages):
        lab.at(f"{1 + k}s", p.send, Message("TopicTest", f"x{k + 1}"))
    return lab


# %% tags=["nbval-ignore-output"]
from rmqlab.widgets.checkpoints import Checkpoint, sealed_explanation
from rmqlab.widgets.dashboard import Dashboard

refused_dash = Dashboard(refused_lab, knobs={"messages": 3}, horizon="30s", checkpoints=[
    Checkpoint(before="scheduled", msg_id="M0001", ask="where", optional=True,
               name="where M0001 goes when the broker refuses the send-back",
               question="c1's listener is about to fail M0001, and broker-a refuses every send-back. Where is M0001 "
                        "after the next step? Click the place in the picture (or a button).",
               hint="A refused send-back is an exception in the client: what does sendMessageBack do when "
                    "CONSUMER_SEND_MSG_BACK fails?",
               explain=sealed_explanation("02b.refused")),
])
refused_dash

# %% [markdown]
# The same run as a table (one message): `sendMessageBack` catches the error answer and produces the retry itself,
# a new message to `%RETRY%cg` sent by the consumer's internal producer (`CLIENT_INNER_PRODUCER`), with
# `RECONSUME_TIME` = rt + 1 and delay level 3 + rt.

# %%
lab, p, c = one_queue_lab(fails_once)
lab.set_broker_fault("broker-a", reject_send_back=True)
lab.at("1s", p.send, Message("TopicTest", "x"))
lab.run(until="20s")
show_trace(lab.trace, "delivered", "send_back", "send_back_fallback", "scheduled", msg_id="M0001")


# %% [markdown]
# Why would a broker refuse? `SendMessageProcessor.asyncConsumerSendMsgBack` answers NO_PERMISSION (16) when the
# broker is not writable (`the broker[<its IP>] sending message is forbidden`) or `%RETRY%<group>` is not writable
# (`the topic[%RETRY%cg] sending message is forbidden`), SYSTEM_ERROR `look message by offset failed, <offset>`
# when the message is gone, and SYSTEM_ERROR with the put status's name when the store fails. The client treats
# them all alike. Here `mqadmin updateBrokerConfig` makes broker-a read-only while c1 consumes; the trace keeps the
# answer's code and remark (`examples/send_back_no_permission.yaml` has a second broker that takes the retry):

# %%
def fails_once_slowly(msgs, ctx):
    """Take 1 s and fail the first delivery; succeed on the next."""
    return after("1s", RECONSUME_LATER) if msgs[0].reconsume_times == 0 else CONSUME_SUCCESS


lab, p, c = one_queue_lab(fails_once_slowly)
lab.at("1s", p.send, Message("TopicTest", "x"))
lab.at("1500ms", lab.update_broker_config, "broker-a", broker_permission=4)
lab.run(until="10s")
show_trace(lab.trace, "send_back", fields=("ok", "response_code", "remark"))
show_trace(lab.trace, "send_back_fallback", "delivered", fields=("ok", "error", "reconsume_times"))

# %% [markdown]
# The only broker is read-only, so the fallback finds no writable `%RETRY%cg` queue ("No route info") and the
# message comes back locally — the next section's path.

# %% [markdown]
# ## Both fail: what does c1 do with the message?
# Now the link c1 ↔ broker-a breaks while the listener runs: the send-back **and** the fallback (a SYNC send, 3
# attempts) fail. `processConsumeResult` adds 1 to the message's `reconsumeTimes` *in memory* and keeps it in the
# ProcessQueue (its offset stays pinned).
#
# The picture: the partition at 1.5 s, the failed send-back and fallback, the heal at 12 s. Step on: the run stops
# before c1's listener gets the message again and asks when.

# %%
def partitioned_lab(heal_at="12s", messages=1):
    """The link c1 ↔ broker-a breaks at 1.5 s and heals at ``heal_at``; c1's listener takes 1 s and fails until 20 s."""
    lab = None

    def fails_until_20s(msgs, ctx):
        """Take 1 s and fail, until virtual time 20 s."""
        return after("1s", RECONSUME_LATER) if lab.now < 20_000 else CONSUME_SUCCESS

    lab, p, c = one_queue_lab(fails_until_20s)
    for k in range(messages):
        lab.at(f"{1000 + 100 * k}ms", p.send, Message("TopicTest", "x" if k == 0 else f"x{k + 1}"))
    lab.at("1500ms", lab.partition, "c1", "broker-a")
    lab.at(heal_at, lab.partition, "c1", "broker-a", heal=True)
    return lab


# %% tags=["nbval-ignore-output"]
partition_dash = Dashboard(partitioned_lab, knobs={"heal_at": "12s", "messages": 1}, horizon="40s", checkpoints=[
    Checkpoint(before="delivered", nth=2, ask="when", optional=True, name="when the local retry comes",
               question="The link c1 ↔ broker-a is cut: c1's send-back of {msg} failed, and so did its fallback send. "
                        "When does c1's listener get {msg} again? Pick the time.",
               explain=sealed_explanation("02b.local-retry")),
])
partition_dash

# %% [markdown]
# What the picture showed: c1 submits the message again itself, **5000 ms** later (`submitConsumeRequestLater`),
# and again after each failed try, until a send-back gets through after the heal.

# %% [markdown]
# ### Exercise 1 — predict, then run
# The partition heals at 12 s. When the send-back finally succeeds, which `reconsume_times` does the broker store
# on the retry copy? (The listener will have seen 0, 1, 2.)

# %% nbgrader={"grade": false, "grade_id": "ex02b_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← your prediction
### BEGIN SOLUTION
answer_1 = 1
### END SOLUTION

# %%
lab = partitioned_lab().run(until="40s")
show_trace(lab.trace, "delivered", "send_back", "send_back_fallback", "local_retry", "scheduled", "fault",
           fields=("reconsume_times", "ok", "level", "retry_in_ms", "fault"))
retry_copy = lab.trace.of_kind("scheduled")[0]

# %% nbgrader={"grade": true, "grade_id": "ex02b_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("02b.1", answer_1, retry_copy.get("reconsume_times"))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_02b_1
grading_02b_1.verify("02b.1", answer_1)
### END HIDDEN TESTS

# %% [markdown]
# > **Common belief vs. the source.** "A failed send-back loses the message." — The client falls back to producing a
# > `%RETRY%` message; if that fails too it re-consumes locally every 5000 ms, keeping the offset pinned.
#
# The same 5000 ms appears once more in `ConsumeMessageConcurrentlyService`: when the consume thread pool rejects a
# `ConsumeRequest` (`RejectedExecutionException` in `submitConsumeRequest`), the request is submitted again 5 s later.
# The pool's queue is unbounded, so in 4.9.7 that happens only while the pool is shutting down. This lab's engine has
# no rejecting pool, so there is no run for it here.

# %% [markdown]
# ## A listener that runs past `consumeTimeout`
# Slowness is not a failure: a late `CONSUME_SUCCESS` stays a success (`ConsumeReturnType.TIME_OUT` is only a
# statistics label). But every `consumeTimeout` minutes (15, from the consumer's start) `cleanExpireMsg` looks at the
# **lowest-offset** message of each ProcessQueue; if it started more than 15 minutes ago, the client sends it back
# (delay level 3) and removes it from the ProcessQueue. The listener thread is not interrupted.
#
# The picture: three messages whose first listener call takes 40 minutes. Step on: it stops while the three calls
# run and asks where M0001 is next. Answer Exercise 2 below while it waits, then step on and check.

# %%
def slow_first(msgs, ctx):
    """The first delivery takes 40 minutes and succeeds; any later one is instant."""
    return after("40m", CONSUME_SUCCESS) if msgs[0].reconsume_times == 0 else CONSUME_SUCCESS


def slow_lab(messages=1):
    """``messages`` messages from 1 s, one per second, consumed by ``slow_first``."""
    lab, p, c = one_queue_lab(slow_first)
    for k in range(messages):
        lab.at(f"{1 + k}s", p.send, Message("TopicTest", "x" if k == 0 else f"x{k + 1}"))
    return lab


# %% tags=["nbval-ignore-output"]
slow_dash = Dashboard(slow_lab, knobs={"messages": 3}, horizon="45m", checkpoints=[
    Checkpoint(before="send_back", msg_id="M0001", ask="where", optional=True,
               name="where a message whose listener runs too long goes",
               question="c1's listener has been working on M0001 since it was delivered, and will take 40 m. "
                        "Where is M0001 after the next step? Click the place in the picture (or a button).",
               hint="Slowness is not a failure, but the client checks, every consumeTimeout, how long the oldest "
                    "message of each ProcessQueue has been consuming.",
               explain=sealed_explanation("02b.expired")),
])
slow_dash


# %% [markdown]
# ### Exercise 2 — predict, then run
# The message is delivered at 1 s and its listener call runs for 40 minutes. At which second does its **second**
# delivery start?

# %% nbgrader={"grade": false, "grade_id": "ex02b_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← your prediction
### BEGIN SOLUTION
answer_2 = 1810
### END SOLUTION

# %%
lab = slow_lab()
lab.run(until="1h")
show_trace(lab.trace, "delivered", "consumed", "clean_expired", "send_back", msg_id="M0001")
second = lab.trace.of_kind("delivered")[1]

# %% nbgrader={"grade": true, "grade_id": "ex02b_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("02b.2", answer_2, second.time_ms // 1000)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_02b_2
grading_02b_2.verify("02b.2", answer_2)
### END HIDDEN TESTS

# %% [markdown]
# Two `consumed` rows for one message: the retry ran while the first call was still running. If the slow call had
# returned `RECONSUME_LATER` instead, 4.9.7 would also send *that* result back — a second retry copy
# (`processConsumeResult` does not check whether `cleanExpiredMsg` already removed the message):

# %%
lab, p, c = one_queue_lab(lambda m, ctx: after("40m", RECONSUME_LATER) if m[0].reconsume_times == 0 else CONSUME_SUCCESS)
lab.at("1s", p.send, Message("TopicTest", "x"))
lab.run(until="1h")
show_trace(lab.trace, "delivered", "clean_expired", "send_back", msg_id="M0001")

# %% [markdown]
# > **Common belief vs. the source.** "A consume timeout counts as a failure and is retried." — The listener's status is
# > kept. `ProcessQueue.cleanExpiredMsg` sends back a message that is still *running*, so the message is consumed twice
# > (or more): make listeners idempotent, and keep them well under `consumeTimeout`.

# %% [markdown]
# ## Whose `maxReconsumeTimes`?
# Two instances of one group can be given different limits. Which one counts for a message that moves from one to
# the other?
#
# The picture: c1 (max 5) consumes alone and fails every delivery; at 20 s it shuts down cleanly and c2 (max 1)
# starts. Step on: it stops before the message's wait is over and asks where it goes then.

# %%
def always_fails(msgs, ctx):
    """Never succeed."""
    return RECONSUME_LATER


def hand_over_lab(first_max=5, second_max=1, hand_over_at="20s"):
    """One queue; c1 (max ``first_max``) alone, failing; at ``hand_over_at`` c1 shuts down and c2 (max ``second_max``) starts."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    c1 = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=always_fails, name="c1",
                          max_reconsume_times=first_max)
    lab.at("5s", p.send, Message("TopicTest", "always fails"))
    lab.at(hand_over_at, c1.shutdown)
    lab.at(hand_over_at, lambda: lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=always_fails,
                                                  name="c2", max_reconsume_times=second_max))
    return lab


# %% tags=["nbval-ignore-output"]
hand_over_dash = Dashboard(hand_over_lab, knobs={"first_max": 5, "second_max": 1}, horizon="2m", checkpoints=[
    Checkpoint(before="delay_delivered", msg_id="M0001", nth=2, ask="where", optional=True,
               name="where the message goes after the hand-over",
               question="c1 has failed M0001 twice and shut down; c2 has started. In the next step M0001's wait "
                        "ends: broker-a puts it on %RETRY%cg:0 and it is pulled at once. Whose listener holds it then? "
                        "Click that place in the picture (or a button).",
               hint="A sent-back copy waits in the broker, and returns on %RETRY%cg: who reads that queue now?",
               explain=sealed_explanation("02b.hand-over")),
])
hand_over_dash

# %% [markdown]
# ### Exercise 3 — predict, then run
# How many times is the message delivered in all, by c1 and then c2, before it reaches `%DLQ%cg`?
# Predict, then step the picture on to the dead-letter write.

# %% nbgrader={"grade": false, "grade_id": "ex02b_3_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_3 = ...  # ← your prediction
### BEGIN SOLUTION
answer_3 = 3
### END SOLUTION

# %%
lab = hand_over_lab().run(until="5m")
show_trace(lab.trace, "delivered", "send_back", "dead_lettered", fields=("queue", "reconsume_times", "max_reconsume_times"))
deliveries = len(lab.trace.of_kind("delivered"))

# %% nbgrader={"grade": true, "grade_id": "ex02b_3", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("02b.3", answer_3, deliveries)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_02b_3
grading_02b_3.verify("02b.3", answer_3)
### END HIDDEN TESTS

# %% [markdown]
# **Why.** `maxReconsumeTimes` is a setting of each consumer instance, not of the group: each instance sends its own
# value in every `CONSUMER_SEND_MSG_BACK` header, and the broker compares the stored `reconsumeTimes` with *that*
# value. A second run shows it side by side: c1 with `max_reconsume_times=1` and c2 with 3, on two brokers; each owns
# one broker's TopicTest queue and that broker's `%RETRY%cg` queue (AVG allocation), so each message stays with one
# instance.
#
# > **Common belief vs. the source.** "`maxReconsumeTimes` is a property of the consumer group." — It is a field of
# > each `DefaultMQPushConsumer` (−1 → 16), sent in each send-back header (`ConsumerSendMsgBackRequestHeader`), and the
# > broker uses whatever the *current* sender says (`asyncConsumerSendMsgBack`). Give every instance of a group the same
# > value, or retries depend on which instance happens to hold the retry queue.

# %%
lab = Lab(seed=SEED)
lab.add_broker("broker-a")
lab.add_broker("broker-b")
lab.create_topic("TopicTest", queues=1)
p = lab.add_producer("pg", send_which_queue_start=0)
lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=always_fails, name="c1", max_reconsume_times=1)
lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=always_fails, name="c2", max_reconsume_times=3)
lab.at("5s", p.send, Message("TopicTest", "lands on broker-b"))
lab.at("5s", p.send, Message("TopicTest", "lands on broker-a"))
lab.run(until="10m")
show_trace(lab.trace, "delivered", "dead_lettered", fields=("queue", "reconsume_times"))


# %% [markdown]
# ## Key points
# - A send-back can fail (any code: NO_PERMISSION for a read-only broker or retry topic, SYSTEM_ERROR …); the client
#   then has two fallbacks of its own, the `%RETRY%` message it produces itself and a local retry after 5 s.
# - `consumeTimeout` (15 min) is checked by `cleanExpiredMsg` every 15 min, whatever the listener is doing.
# - `maxReconsumeTimes` is a setting of each consumer instance, not only of the group.
#
# ## Your score
# Run this cell last: one line per exercise of this lab, from the checks you ran.

# %%
score("02b")
