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
# [Index](README.md) · [← Back](07a_orderly_locks.ipynb) · [Next →](08_broadcasting_vs_clustering.ipynb)
#
# # 07b · Orderly consumption: failure, take-over and shutdown
#
# **Goal:** see what happens to an orderly queue when its holder crashes, when the queue moves to another consumer
# mid-listener, when the consumer shuts down, when the listener commits by hand (`autoCommit`), and when a batch
# fails. Lab [07a](07a_orderly_locks.ipynb) has the local retry and the three locks.
# Source: `client/.../impl/consumer/ConsumeMessageOrderlyService.java`, `RebalancePushImpl.java`, `ProcessQueue.java`,
# `broker/.../client/rebalance/RebalanceLockManager.java`.

# %%
from rmqlab import ConsumeOrderlyStatus, Lab, Message, after, format_duration
from rmqlab.course.exercises import assert_right, check, score, show_trace, table
from rmqlab.widgets.checkpoints import Checkpoint, sealed_explanation
from rmqlab.widgets.dashboard import Dashboard

SUCCESS = ConsumeOrderlyStatus.SUCCESS
SUSPEND = ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT
SEED = 7


# %%
def bad_suspends(msgs, ctx):
    """Message 'bad' always asks to suspend; others succeed."""
    return SUSPEND if msgs[0].body == "bad" else SUCCESS

def orderly_lab(listener=bad_suspends, bodies=("a", "bad", "c"), queues=1, **consumer_options):
    """One broker, TopicTest with `queues` queues, an orderly consumer c1; one message per second from 2 s."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=queues)
    p = lab.add_producer("pg", send_which_queue_start=0)
    c = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=listener, orderly=True, name="c1", **consumer_options)
    for i, body in enumerate(bodies):
        lab.at(f"{2 + i}s", p.send, Message("TopicTest", body))
    return lab, c

def topic_queue(c, queue_id=0):
    """c's MessageQueue and ProcessQueue for TopicTest queue `queue_id`."""
    return next((mq, pq) for mq, pq in c.process_queue_table.items() if mq.topic == "TopicTest" and mq.queue_id == queue_id)


# %%
# The scenarios of the pictures and exercises below (each section names the one it runs).
def takeover_lab(crash_at_s=10, c2_start_s=11):
    """a, bad, c from 2 s on one queue; c1 crashes at ``crash_at_s``, c2 of the same group starts at ``c2_start_s``."""
    lab, c = orderly_lab()
    lab.at(f"{crash_at_s}s", c.crash)
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=bad_suspends, orderly=True, name="c2",
                     start=f"{c2_start_s}s")
    return lab

def moving_queue_lab(listener_seconds=25):
    """Two queues, four messages from 2 s; c1 consumes them orderly, c2 joins at 10 s."""
    slow = lambda msgs, ctx: after(listener_seconds * 1000, SUCCESS)  # noqa: E731
    lab, c1 = orderly_lab(slow, bodies=("m0", "m1", "m2", "m3"), queues=2)
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=slow, orderly=True, name="c2", start="10s")
    return lab

def shutdown_picture(response_delay_s=4):
    """a … f on one queue from 2 s; broker-a answers every request ``response_delay_s`` late from 7.5 s; c1 shuts down at 8 s."""
    lab, c1 = orderly_lab(bodies=("a", "b", "c", "d", "e", "f"))
    lab.at("7.5s", lab.set_broker_fault, "broker-a", response_delay_ms=f"{response_delay_s}s")
    lab.at("8s", c1.shutdown)
    return lab

def manual_commit(commits="c", auto_commit=False):
    """A listener that sets ``ctx.auto_commit``: ROLLBACK for 'b' on its first call, COMMIT for ``commits``, SUCCESS
    otherwise."""
    rolled_back = []

    def listener(msgs, ctx):
        ctx.auto_commit = auto_commit
        if msgs[0].body == "b" and not rolled_back:
            rolled_back.append(msgs[0].msg_id)
            return ConsumeOrderlyStatus.ROLLBACK
        return ConsumeOrderlyStatus.COMMIT if msgs[0].body == commits else SUCCESS

    return listener


def commit_picture(messages=5, auto_commit=False):
    """``messages`` messages a, b, c, … on one queue, consumed by ``manual_commit()``."""
    return orderly_lab(manual_commit(auto_commit=auto_commit), bodies=tuple("abcdefgh"[:messages]))[0]

def fails_with_bad(msgs, ctx):
    """One status for the batch: SUSPEND if any message is 'bad'."""
    return SUSPEND if any(m.body == "bad" for m in msgs) else SUCCESS


def batch_lab(batch=3, max_reconsume_times=2):
    """a, bad, c, d sent at 1.0–1.3 s and waiting when c1 starts at 2 s; batches of ``batch``; the listener fails any batch with bad."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    for k, body in enumerate(("a", "bad", "c", "d")):
        lab.at(f"{1000 + 100 * k}ms", p.send, Message("TopicTest", body))
    lab.add_consumer(
        "cg", subscribe={"TopicTest": "*"}, listener=fails_with_bad, orderly=True, name="c1", start="2s",
        consume_from_where="CONSUME_FROM_FIRST_OFFSET", consume_message_batch_max_size=batch,
        max_reconsume_times=max_reconsume_times,
    )
    return lab


# %% [markdown]
# ## A crashed holder: who takes the queue, and when
# A crashed consumer never unlocks: its broker lock, a lease in `RebalanceLockManager` renewed by `lockAll` every
# 20 s (lab 07a), stays until it expires. The picture (`takeover_lab`): c1 crashes at 10 s and c2 starts at 11 s; open
# its Locks tab and play on: it stops to ask when c2 gets the queue's lock (Exercise 1's question).

# %% tags=["nbval-ignore-output"]
dash = Dashboard(takeover_lab, knobs={"crash_at_s": 10, "c2_start_s": 11}, horizon="90s", checkpoints=[
    Checkpoint(before="lock_acquired", actor="consumer:c2", queue="TopicTest@broker-a:0", ask="when", optional=True,
               name="when c2 takes the crashed c1's queue",
               question="c1 crashed holding the lock on TopicTest@broker-a:0, and c2 has started. When does c2 get "
                        "that lock? Pick the time.",
               hint="A crashed consumer never unlocks: its lease in RebalanceLockManager lasts until it expires, "
                    "rebalanceLockMaxLiveTime after c1's last lockBatchMQ; c2 asks only when it rebalances.",
               explain=sealed_explanation("07b.takes-crashed-queue"))])
dash.controller.seek_time("11s")
dash

# %% [markdown]
# ### Exercise 1 — predict, then run
# The picture's c2 starts at 11 s. Here c1 again **crashes** at 10 s (it never unlocks), but c2 of the same group
# starts later, at **25 s**; c2 asks for locks at each of its rebalances (at its start, then 20 s after each). At which
# second does c2 first get the `TopicTest` queue lock?

# %% nbgrader={"grade": false, "grade_id": "ex07b_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← your prediction
### BEGIN SOLUTION
answer_1 = 65
### END SOLUTION

# %%
lab = takeover_lab(c2_start_s=25).run(until="90s")
got = [e for e in lab.trace.of_kind("lock_acquired") if e.actor == "consumer:c2" and e.get("queue") == "TopicTest@broker-a:0"]
show_trace(lab.trace, "lock_acquired", "lock_refused", "lock_expired", "lifecycle", fields=("queue", "holder", "previous_holder", "event"))

# %% nbgrader={"grade": true, "grade_id": "ex07b_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("07b.1", answer_1, got[0].time_ms // 1000)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_07b_1
grading_07b_1.verify("07b.1", answer_1)
### END HIDDEN TESTS

# %% [markdown]
# ## When a queue moves to another consumer
# c2 joins at 10 s and the average allocation gives it queue 1 — while c1 is 8 s into a 25 s listener call on it
# (`moving_queue_lab`). Watch c1 keep queue 1 while its listener runs, and the broker lease pass to c2 after c1 lets go.

# %% tags=["nbval-ignore-output"]
moving_dash = Dashboard(moving_queue_lab, knobs={"listener_seconds": 25}, horizon="2m", checkpoints=[
    Checkpoint(before="lock_acquired", actor="consumer:c2", queue="TopicTest@broker-a:1", ask="when", optional=True,
               name="when c2 gets queue 1's lock",
               question="c2 joined at 10 s and the rebalance gave it TopicTest queue 1, which c1 was consuming. "
                        "When does c2 get the broker's lock on TopicTest@broker-a:1? Pick the time.",
               hint="c2 asks the broker for a queue's lock only when it rebalances (lockBatchMQ), every 20 s after "
                    "its start; the broker grants it once nobody holds an unexpired lease on the queue.",
               explain=sealed_explanation("07b.queue-1-lock")),
    Checkpoint(before="delivered", msg_id="M0001", nth=2, pause_before="pulled", ask="where", optional=True, name="where M0001 is next",
               question="c1's listener finished M0001 with SUCCESS after the rebalance had marked queue 1's "
                        "ProcessQueue dropped, and c2 now holds the queue's lock. Where is M0001 after c2's next pull? "
                        "Click the place in the picture (or a button).",
               hint="A result is committed only for a ProcessQueue that is not dropped; a new owner starts from the "
                    "offset the old one persisted when it let the queue go.",
               explain=sealed_explanation("07b.where-m0001")),
])
moving_dash.controller.seek_time("10.5s")
moving_dash

# %% [markdown]
# `RebalancePushImpl.removeUnnecessaryMessageQueue` moves the queue away from c1:
#
# 1. persists the queue's offset to the broker and forgets it;
# 2. marks the ProcessQueue dropped and waits up to 1 s for its consume lock (`tryLock(1000 ms)`) — the listener
#    holds it until its call ends, so at 11 s the rebalance gives up ("[WRONG]mq is consuming, so can not unlock
#    it"), the queue stays in c1's table and the removal is tried again at c1's next rebalance, 20 s after this one
#    ended;
# 3. once it gets the lock, unlocks the queue at the broker — 20 s later (`UNLOCK_DELAY_TIME_MILLS`) if messages are
#    still cached in the ProcessQueue, so their in-flight work can drain.
#
# The whole rebalance waits in step 2: it is one thread (`RebalanceService`), so c1's other queues wait with it.
# The picture's `listener_seconds` knob changes how long each listener call takes (then Rebuild).

# %%
lab = moving_queue_lab()
lab.run(until="10.5s")
c1 = lab.consumers["c1"]
mq, pq = topic_queue(c1, 1)
waiting = [t for t in lab.snapshot().timers if t.kind.value == "consume_lock_wait"]
print("10.5 s:", mq, "— dropped:", pq.dropped, "· c1's rebalance waits for the consume lock until",
      format_duration(waiting[0].due_ms))
lab.run(until="11.5s")
print("11.5 s: removal attempts that found the consume lock held:", pq.try_unlock_times)

# %% [markdown]
# ### Exercise 2 — predict, then run
# The picture's listener calls take 25 s. Now each takes **5 s** (the picture's `listener_seconds` knob): `M0001`,
# queue 1's first message, reaches c1 at 2 s, and c2 still joins at 10 s. How many times is `M0001` delivered in all
# (c1 and c2 together) by the end of the run?

# %% nbgrader={"grade": false, "grade_id": "ex07b_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← your prediction
### BEGIN SOLUTION
answer_2 = 1
### END SOLUTION

# %%
lab = moving_queue_lab(listener_seconds=5)
lab.run(until="2m")
m0001 = [e for e in lab.trace.of_kind("delivered") if e.msg_id == "M0001"]
QUEUE_1 = "TopicTest@broker-a:1"

def about_queue_1(e):
    """The events of queue 1, and the rebalances that moved it."""
    return e.get("queue") == QUEUE_1 or QUEUE_1 in (e.get("added") or []) + (e.get("removed") or [])

show_trace(
    [e for e in lab.trace if about_queue_1(e)],
    "delivered", "consumed", "offset_updated", "offset_persisted", "rebalanced", "lock_acquired", "lock_refused", "unlocked",
    fields=("queue_offset", "status", "offset", "added", "removed", "holder"),
)

# %% nbgrader={"grade": true, "grade_id": "ex07b_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("07b.2", answer_2, len(m0001))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_07b_2
grading_07b_2.verify("07b.2", answer_2)
### END HIDDEN TESTS

# %% [markdown]
# ## A clean shutdown: locks first, each answer awaited
# The picture (`shutdown_picture`): broker-a answers every request 4 s late from 7.5 s on (the `response_delay_s`
# knob), and c1 shuts down at 8 s. Play it: it stops just before the shutdown ends and asks you when that is.

# %% tags=["nbval-ignore-output"]
shutdown_dash = Dashboard(shutdown_picture, knobs={"response_delay_s": 4}, horizon="15s", checkpoints=[
    Checkpoint(before="lifecycle", actor="consumer:c1", nth=2, ask="when", optional=True,
               name="when c1's shutdown ends",
               question="c1's shutdown() has begun with unlockAll: it is giving back its locks on broker-a, which now "
                        "answers every request late. When does c1's shutdown end (offsets persisted, consumer "
                        "stopped)? Pick the time.",
               hint="unlockAll sends one UNLOCK_BATCH_MQ per broker and waits for its answer, but only up to the "
                    "request's timeout; the offsets are persisted after that wait, whatever its outcome.",
               explain=sealed_explanation("07b.shutdown-ends")),
])
shutdown_dash

# %% [markdown]
# `shutdown()` of an orderly consumer ends its consume service with `unlockAll`: one UNLOCK_BATCH_MQ per broker with
# all of that broker's queues, one broker after another, each a request that expects an answer. Only then are the offsets persisted and the consumer unregistered. The table is the picture's run
# up to its question (it waits at 8 s): the broker acted on the unlock at once (the `unlocked` rows at 8 s are
# recorded when it releases the leases), and c1 is still waiting for its answer. When c1 stops waiting is the
# picture's question.

# %%
lab = shutdown_picture().run(until="8.5s")
show_trace([e for e in lab.trace if e.time_ms >= 7_500], "unlocked", "warning", "offset_persisted", "lifecycle",
           fields=("queue", "offset", "message", "event"))

# %% [markdown]
# ## `autoCommit = false`: the listener decides when to commit
# With `ctx.auto_commit = False`, `SUCCESS` only moves messages out of the way; the offset moves on `COMMIT` (up to
# everything consumed so far), and the listener may also return `ROLLBACK`. The picture (`commit_picture`): `a` … `e`
# with `manual_commit()`, `ROLLBACK` for `b` the first time and `COMMIT` for `c`; play it and answer its two questions.

# %% tags=["nbval-ignore-output"]
commit_dash = Dashboard(commit_picture, knobs={"messages": 5, "auto_commit": False}, horizon="20s", checkpoints=[
    Checkpoint(before="consumed", msg_id="M0002", inside_step=True, ask="where", optional=True,
               name="where b is after its ROLLBACK",
               question="Auto-commit is off, a returned SUCCESS, and the listener now returns ROLLBACK for b ({msg}). "
                        "Where is b after that? Click the place in the picture (or a button).",
               explain=sealed_explanation("07b.rollback-b")),
    Checkpoint(before="offset_updated", actor="consumer:c1", ask="when", optional=True,
               name="when c1's offset first moves",
               question="Auto-commit is off: the listener returns COMMIT for c and SUCCESS for the others (b rolled "
                        "back once). When does c1's committed offset first move? Pick the time.",
               hint="With autoCommit false, SUCCESS does not commit: ProcessQueue.commit() runs only on COMMIT.",
               explain=sealed_explanation("07b.offset-moves"))])
commit_dash

# %% [markdown]
# ### Exercise 3 — predict, then run
# Five messages `a` … `e` with auto-commit off, as in the picture (`b` rolled back once), but the listener returns
# `COMMIT` for **`d`** (`SUCCESS` for the others). What offset does c1 hold for the queue at the end?

# %% nbgrader={"grade": false, "grade_id": "ex07b_3_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_3 = ...  # ← your prediction
### BEGIN SOLUTION
answer_3 = 4
### END SOLUTION

# %%
lab, c = orderly_lab(manual_commit(commits="d"), bodies=("a", "b", "c", "d", "e"))
lab.run(until="20s")
mq, pq = topic_queue(c)
held_offset = c.offset_store.offset_table[mq]
show_trace(lab.trace, "consumed", "offset_updated", fields=("queue_offset", "status", "offset"))
print("still uncommitted (consumingMsgOrderlyTreeMap):", list(pq.consuming_msg_orderly_tree_map))

# %% nbgrader={"grade": true, "grade_id": "ex07b_3", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("07b.3", answer_3, held_offset)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_07b_3
grading_07b_3.verify("07b.3", answer_3)
### END HIDDEN TESTS

# %% [markdown]
# `ROLLBACK` puts every uncommitted message back into the ProcessQueue (`ProcessQueue.rollback`): `a`, which had
# returned `SUCCESS` but was not committed, is delivered again with `b`. Now set the picture's `auto_commit` knob
# to `True` and Rebuild: with the default `auto_commit = True` the two statuses are deprecated: `COMMIT` and
# `ROLLBACK` are logged as illegal and treated as `SUCCESS` — a `ROLLBACK` commits.
#
# > **Common belief vs. the source.** "Return `ROLLBACK` to retry." — `ConsumeMessageOrderlyService.processConsumeResult`
# > rolls back only when the listener turned `autoCommit` off; otherwise it commits. Return
# > `SUSPEND_CURRENT_QUEUE_A_MOMENT` to retry.

# %%
for auto_commit in (False, True):  # the picture's run with the knob both ways, as tables
    print("auto_commit =", auto_commit)
    show_trace(commit_picture(messages=3, auto_commit=auto_commit).run(until="10s").trace, "delivered", "consumed",
               "warning", "offset_updated", fields=("queue_offset", "status", "offset", "message"))

# %% [markdown]
# ## A batch fails as a whole
# With `consume_message_batch_max_size=3` (`batch_lab`) the listener gets up to three messages at once and returns one
# status for all of them. Play the picture: it stops before the first batch reaches the listener and asks where `a`,
# which the listener has nothing against, is once that batch has failed.

# %% tags=["nbval-ignore-output"]
batch_dash = Dashboard(batch_lab, knobs={"batch": 3, "max_reconsume_times": 2}, horizon="10s", checkpoints=[
    Checkpoint(before="suspended", msg_id="M0001", pause_before="delivered", ask="where", optional=True,
               name="where a is after its batch fails",
               question="c1 is about to hand a ({msg}), bad and c to the listener as one batch; the listener fails "
                        "any batch that holds bad. Where is a after the batch fails? Click the place in the picture "
                        "(or a button).",
               hint="A listener returns one ConsumeOrderlyStatus for its whole batch, and processConsumeResult acts "
                    "on the batch it handed out, not on each message.",
               explain=sealed_explanation("07b.batch-a")),
])
batch_dash

# %% [markdown]
# ### Exercise 4 — predict, then run
# The picture's batches hold 3 messages. Now `consume_message_batch_max_size=2` (the picture's `batch` knob): `a`,
# `bad`, `c`, `d` are waiting when c1 starts, `max_reconsume_times=2`, and the listener fails any batch containing
# `bad`. How many messages end up in `%DLQ%cg`?

# %% nbgrader={"grade": false, "grade_id": "ex07b_4_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_4 = ...  # ← your prediction
### BEGIN SOLUTION
answer_4 = 2
### END SOLUTION

# %%
lab = batch_lab(batch=2).run(until="3m")
dead = lab.trace.of_kind("dead_lettered")
show_trace(lab.trace, "delivered", "send_back", "dead_lettered", fields=("queue_offset", "reconsume_times", "batch", "topic"))

# %% nbgrader={"grade": true, "grade_id": "ex07b_4", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("07b.4", answer_4, len(dead))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_07b_4
grading_07b_4.verify("07b.4", answer_4)
### END HIDDEN TESTS

# %% [markdown]
# ## Key points
# - A crashed holder never unlocks: its lease at the broker (`RebalanceLockManager`) runs out on its own, and another
#   instance asks for the queue only at its own rebalances.
# - A queue leaves a consumer only between listener calls (`removeUnnecessaryMessageQueue` waits for the consume
#   lock).
# - A clean shutdown unlocks first (`unlockAll`, one request per broker, each answer awaited up to 1 s), then
#   persists the offsets: a slow broker delays the final persist, and a late answer is only logged
#   (`RemotingTimeoutException`): the ProcessQueues stay marked locked.
# - Every lock request is a `lock_batch` event (queues asked, granted, refused with their holder, or the error of an
#   unreachable broker), every ConsumeRequest a `consume_request` event with its delay (`submitConsumeRequestLater`):
#   `lab.trace.where("lock_batch")`. A queue whose first start offset cannot be computed is pulled again 1000 ms
#   later, and one not pulled for 120 s is dropped and re-created by the next rebalance.
# - `autoCommit = false` gives the listener `COMMIT` / `ROLLBACK`; with the default they mean `SUCCESS`.
# - The listener returns one status for a whole batch: `makeMessageToConsumeAgain` puts all of it back, and
#   `checkReconsumeTimes` counts a try for every message in it.
#
# ## Your score
# Run this cell last: one line per exercise of this lab, from the checks you ran.

# %%
score("07b")
