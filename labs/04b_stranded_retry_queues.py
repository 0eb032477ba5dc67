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
# [Index](README.md) · [← Back](04_dead_letter_queue.ipynb) · [Next →](05_offsets_process_queue.ipynb)

# %% [markdown]
# # 04b · Stranded retries: raising `retryQueueNums` on a running group
#
# **Goal:** see why more retry queues, configured late, hide retries from every consumer, and how an operator frees them.
# Source: `broker/.../processor/SendMessageProcessor.java` (`asyncConsumerSendMsgBack`),
# `broker/.../processor/ClientManageProcessor.java` (`heartBeat`), `broker/.../topic/TopicConfigManager.java`
# (`createTopicInSendMessageBackMethod`), `client/.../impl/consumer/RebalanceService.java`.

# %%
from rmqlab import ConsumeConcurrentlyStatus, Lab, Message, check_invariants
from rmqlab.course.exercises import assert_right, check, score, show_trace, table

CONSUME_SUCCESS = ConsumeConcurrentlyStatus.CONSUME_SUCCESS
RECONSUME_LATER = ConsumeConcurrentlyStatus.RECONSUME_LATER
SEED = 7


# %%
def fails_once(msgs, ctx):
    """Fail the first delivery, succeed on the retry."""
    return RECONSUME_LATER if msgs[0].reconsume_times == 0 else CONSUME_SUCCESS


def raised_late(update_topic_at_s=0, retry_queue_nums_at_start=1):
    """c1 of group cg starts; at 0.5 s an operator raises cg's retryQueueNums from 1 (or
    ``retry_queue_nums_at_start``, set before c1 starts) to 4; four messages fail once at 1 s.

    ``update_topic_at_s`` > 0: the operator also runs ``updateTopic -t %RETRY%cg -r 4 -w 4`` at that second.
    """
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    if retry_queue_nums_at_start != 1:
        lab.update_subscription_group("cg", retry_queue_nums=retry_queue_nums_at_start)
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=fails_once, name="c1")
    lab.at("500ms", lab.update_subscription_group, "cg", retry_queue_nums=4)
    for i in range(4):
        lab.at("1s", p.send, Message("TopicTest", f"x{i}"))
    if update_topic_at_s > 0:
        lab.at(f"{update_topic_at_s}s", lab.update_topic, "%RETRY%cg", queues=4)
    return lab


# %% [markdown]
# ## A tiny run: four messages fail once
# The picture: c1 starts, the operator raises `retryQueueNums` to 4, and four messages fail once at 1 s. Step until
# the retries are back from their 10 s delay: it stops there and asks about M0001.

# %% tags=["nbval-ignore-output"]
from rmqlab.widgets.checkpoints import Checkpoint, sealed_explanation
from rmqlab.widgets.dashboard import Dashboard

def pulls_where_m0001_is(trace, snap):
    """Whether c1 holds a ProcessQueue for the queue M0001 was last stored in."""
    stored = [e for e in trace if e.kind.value == "stored" and e.msg_id == "M0001"][-1]
    where = f"{stored.data['topic']}@{stored.actor}:{stored.data['queue_id']}"
    return any(pq.queue == where for c in snap.consumers if c.client_id == "c1" for pq in c.process_queues)


dash = Dashboard(raised_late, horizon="61s", checkpoints=[
    Checkpoint(before="delivered", msg_id="M0003", nth=2, ask="whether", optional=True, holds=pulls_where_m0001_is,
               name="whether c1 pulls M0001's queue",
               question="The 10 s are over: each retry is now in the queue of %RETRY%cg its send-back drew at random "
                        "(random % retryQueueNums, now 4), and c1 is about to consume M0003 again. Find M0001 in "
                        "the picture. Does c1 pull the queue M0001 is in?",
               hint="c1 pulls only the queues its rebalance gave it, drawn in its lane, and its rebalance shares out "
                    "the queues the route lists. Which queues of %RETRY%cg does the route list?",
               explain=sealed_explanation("04b.retry-lands")),
])
dash


# %% [markdown]
# Two facts from the broker: it creates `%RETRY%<group>` with `retryQueueNums` queues when the group's first consumer
# heartbeats (`ClientManageProcessor`), and every send-back puts the retry in queue `random % retryQueueNums` of that
# topic (`asyncConsumerSendMsgBack`). Here an operator raises cg's `retryQueueNums` from 1 to 4 *after* c1 started
# (`mqadmin updateSubGroup -g cg -q 4`), to spread the retries over four queues.
#
# ### Exercise 1 — predict, then run
# Another group history: the operator had set cg's `retryQueueNums` to **2** before c1 first started
# (`mqadmin updateSubGroup -g cg -q 2`), and raises it to 4 at 0.5 s as above. After that update, how many read queues
# does the route of `%RETRY%cg` list?

# %% nbgrader={"grade": false, "grade_id": "ex04b_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← your prediction
### BEGIN SOLUTION
answer_1 = 2
### END SOLUTION

# %%
other = raised_late(retry_queue_nums_at_start=2)
other.run(until="61s")
route = other.namesrv.route("%RETRY%cg")
show_trace(other.trace, "admin", "stored", fields=("command", "retry_queue_nums", "topic", "queue_id"))
lab = raised_late()  # the picture's run again: retryQueueNums 1 at c1's start
lab.run(until="61s")
print("route of %RETRY%cg:", [(q.broker_name, q.read_queue_nums, q.write_queue_nums) for q in route.queue_datas])

# %% nbgrader={"grade": true, "grade_id": "ex04b_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("04b.1", answer_1, route.queue_datas[0].read_queue_nums)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_04b_1
grading_04b_1.verify("04b.1", answer_1)
### END HIDDEN TESTS

# %% [markdown]
# The send-backs drew queues 0–3 (each draw is random), and the broker stored every retry where it was told: the
# send-back path never compares the queue id with the topic's queue count. Only the retries in queue 0 can be
# delivered; the others sit in queues that no route lists, so no consumer ever pulls them. The invariant checker
# calls them *stranded*:

# %%
report = check_invariants(lab)
print(table([[msg, fate] for (_, msg), fate in sorted(report.fates.items())], ["message", "fate at 61 s"]))
print(report.violations[0].detail)

# %% [markdown]
# ## The operator's fix: updateTopic
# `mqadmin updateTopic -t %RETRY%cg -r 4 -w 4` lists the four queues. The picture: the same run, with the operator's
# `updateTopic` at 62 s (the `update_topic_at_s` knob). Play it: it stops before the stranded M0001 is delivered and
# asks when that is (Exercise 2's question).

# %% tags=["nbval-ignore-output"]
freed_dash = Dashboard(raised_late, knobs={"update_topic_at_s": 62}, horizon="2m", checkpoints=[
    Checkpoint(before="delivered", msg_id="M0001", nth=2, ask="when", optional=True, name="when M0001 is freed",
               question="The operator's updateTopic has listed all the queues of %RETRY%cg. When is the stranded "
                        "M0001 delivered at last? Pick the time.",
               hint="The name server has the new route at once, but c1 reads routes only at its route poll "
                    "(pollNameServerInterval) and takes a new queue only at its next rebalance (RebalanceService).",
               explain=sealed_explanation("04b.freed"))])
freed_dash

# %% [markdown]
# The broker registers the new route with the name server at once; the consumer re-reads routes every 30 s
# (`pollNameServerInterval`, first poll 10 ms after start) and assigns queues only at its rebalance, 20 s after the
# previous one (`RebalanceService`; here every 20 s from its start at 0 s, since no group change wakes it early).
#
# ### Exercise 2 — predict, then run
# The picture's operator ran `updateTopic` at 62 s. In this run the operator is later: `updateTopic` at **125 s**
# (the same stranded retries, the same timers). At which second is the first stranded retry delivered?

# %% nbgrader={"grade": false, "grade_id": "ex04b_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← your prediction
### BEGIN SOLUTION
answer_2 = 160
### END SOLUTION

# %%
lab.run(until="125s")
lab.update_topic("%RETRY%cg", queues=4)
lab.run(until="4m")
freed = [e for e in lab.trace.of_kind("delivered") if e.get("reconsume_times") == 1 and not e.get("queue").endswith(":0")]
show_trace(freed, fields=("queue", "reconsume_times"))

# %% nbgrader={"grade": true, "grade_id": "ex04b_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("04b.2", answer_2, freed[0].time_ms // 1000)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_04b_2
grading_04b_2.verify("04b.2", answer_2)
### END HIDDEN TESTS

# %% [markdown]
# > **Common belief vs. the source.** "Raising `retryQueueNums` spreads retries over more queues." — `%RETRY%<group>`
# > keeps the queue count it got at the first heartbeat (`createTopicInSendMessageBackMethod` returns an existing topic
# > as is), and nothing checks the random queue id against it: the retry is stored in a queue no consumer reads.
# > Set it before the group first starts, or run `updateTopic` on the retry topic too — and expect the freed retries up
# > to a route poll plus a rebalance later.

# %% [markdown]
# ## Key points
# - The broker creates `%RETRY%<group>` at the group's first heartbeat (`ClientManageProcessor`); a send-back picks
#   queue `random % retryQueueNums` of it (`asyncConsumerSendMsgBack`).
# - What a consumer pulls is what the topic's route lists, learnt by its own route poll and rebalance timers.
# - `updateTopic` on the retry topic is the operator's fix (`mqadmin updateTopic`).

# %% [markdown]
# ## Your score
# Run this cell last: one line per exercise of this lab, from the checks you ran.

# %%
score("04b")
