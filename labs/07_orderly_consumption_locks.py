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
# [Index](README.md) · [← Back](06_ordered_send.ipynb) · [Next →](08_broadcasting_vs_clustering.ipynb)

# %% [markdown]
# # 07 · Orderly consumption and its three locks
#
# **Goal:** see how an orderly consumer retries (locally, on the same queue), which lock it holds while a listener
# runs, how long it trusts its broker lock, what happens when its queue moves to another consumer, and what the
# `ConsumeOrderlyContext` settings (`autoCommit`, the suspend time) change.
# Source: `client/.../impl/consumer/ConsumeMessageOrderlyService.java`, `MessageQueueLock.java`, `ProcessQueue.java`,
# `RebalancePushImpl.java`, `broker/.../client/rebalance/RebalanceLockManager.java`.

# %%
from rmqlab import ConsumeOrderlyStatus, Lab, Message, after, format_duration
from rmqlab.course.exercises import assert_right, check, score, show_trace, table

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


# %% [markdown]
# ## A tiny run: a failing message is retried where it is

# %%
lab, c = orderly_lab()
lab.run(until="8s")
show_trace(lab.trace, "delivered", "suspended", fields=("queue_offset", "reconsume_times", "retry_in_ms"))

# %% [markdown]
# The retry is **local**: same queue, same consumer, after `suspendCurrentQueueTimeMillis` (1000 ms), and `c` waits
# behind `bad` — that is what "orderly" costs.
#
# > **Common belief vs. the source.** "Orderly consumers retry 16 times, then dead-letter." —
# > `ConsumeMessageOrderlyService.getMaxReconsumeTimes` turns the default −1 into `Integer.MAX_VALUE`: the queue
# > retries every second forever. No `%RETRY%` round trip, no 10 s / 30 s schedule.
#
# ### Exercise 1 — predict, then run
# With `max_reconsume_times=3`, how many times is `bad` delivered before the queue moves on?

# %% nbgrader={"grade": false, "grade_id": "ex07_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← your prediction
### BEGIN SOLUTION
answer_1 = 4
### END SOLUTION

# %%
lab, c = orderly_lab(max_reconsume_times=3)
lab.run(until="3m")
bad = [e for e in lab.trace.of_kind("delivered") if e.msg_id == "M0002"]

# %% nbgrader={"grade": true, "grade_id": "ex07_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("07.1", answer_1, len(bad))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_07_1
grading_07_1.verify("07.1", answer_1)
### END HIDDEN TESTS

# %%
show_trace(lab.trace, "delivered", "send_back", "scheduled", "dead_lettered", fields=("queue_offset", "reconsume_times", "level", "topic"))

# %% [markdown]
# Past the max, `checkReconsumeTimes` sends the message to `%RETRY%cg` with `delayLevel = 3 + reconsumeTimes` and the
# broker, seeing `reconsumeTimes ≥ max` in the request header, diverts it to `%DLQ%cg`. It lands there only after
# that delay (level 6 = 2 min here): in 4.9.7 `SendMessageProcessor.asyncSendMessage` sets delay level 0 for the
# DLQ, then replaces the message's properties with the request's, which still carry the client's level (checked in
# the 4.9.7 source; 5.0 fixed it).

# %% [markdown]
# ## The suspend time is clamped
# A listener may ask for its own pause: `ctx.suspend_current_queue_time_millis` (−1 = the consumer's setting).
# `submitConsumeRequestLater` clamps whatever it gets to **10 … 30000 ms**.
#
# ### Exercise 2 — predict, then run
# The listener below asks for a 2-minute pause each time `bad` fails; `max_reconsume_times=3`. `bad` is first
# delivered at 3 s. At which second does c1 send it back to `%RETRY%cg` (on its way to the DLQ)?

# %%
def pause_two_minutes(msgs, ctx):
    """'bad' fails and asks the queue to pause for 120 000 ms."""
    if msgs[0].body == "bad":
        ctx.suspend_current_queue_time_millis = 120_000
        return SUSPEND
    return SUCCESS

# %% nbgrader={"grade": false, "grade_id": "ex07_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← your prediction
### BEGIN SOLUTION
answer_2 = 93
### END SOLUTION

# %%
lab, c = orderly_lab(pause_two_minutes, max_reconsume_times=3)
lab.run(until="5m")
sent_back = lab.trace.of_kind("send_back")[0]

# %% nbgrader={"grade": true, "grade_id": "ex07_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("07.2", answer_2, sent_back.time_ms // 1000)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_07_2
grading_07_2.verify("07.2", answer_2)
### END HIDDEN TESTS

# %%
show_trace(lab.trace, "delivered", "suspended", "send_back", fields=("reconsume_times", "retry_in_ms"))

# %% [markdown]
# The other end of the clamp: the pause each requested value really gets.

# %%
def pause_of(requested):
    """The retry_in_ms of bad's first suspension when the listener asks for `requested` ms."""
    def listener(msgs, ctx):
        ctx.suspend_current_queue_time_millis = requested
        return SUSPEND if msgs[0].body == "bad" else SUCCESS
    lab, c = orderly_lab(listener, max_reconsume_times=1)
    lab.run(until="10s")
    return lab.trace.of_kind("suspended")[0].get("retry_in_ms")

print(table([[ms, pause_of(ms)] for ms in (0, 5, 500, 60_000)], ["requested ms", "paused ms"]))

# %% [markdown]
# ## The three locks
# An orderly consumer takes three locks on a queue, at three scopes:
#
# 1. the **broker queue lock** — a lease in the broker's `RebalanceLockManager`, taken with `lockBatchMQ`
#    (CLUSTERING only): only its holder may consume the queue;
# 2. the **local queue lock** — `MessageQueueLock`'s object for the queue, held for the whole consume loop of one
#    `ConsumeRequest`: at most one thread of this consumer works on the queue;
# 3. the **ProcessQueue consume lock** — held around each listener call: rebalance cannot release the queue at the
#    broker while a listener is mid-batch.
#
# Below, each message takes 5 s, so we can stop the clock while `a` is inside the listener (2 s → 7 s).

# %%
def five_seconds(msgs, ctx):
    """Every message takes 5 s, then succeeds."""
    return after("5s", SUCCESS)

def lock_table(lab, c):
    """The three locks of c's TopicTest queues, as they stand right now."""
    rows = []
    for mq, pq in sorted(c.process_queue_table.items()):
        if mq.topic != "TopicTest":
            continue
        lease = lab.brokers[mq.broker_name].lock_manager.holder(c.consumer_group, mq)
        local = c.consume_service.mq_locks.get(mq)
        rows.append([
            str(mq),
            f"{lease[0]}, {format_duration(lease[1])} left" if lease else "none",
            "yes" if pq.locked and not pq.is_lock_expired(lab.now) else "no",
            "held" if local is not None and local.held else "free",
            "held" if pq.consume_lock.held else "free",
        ])
    return table(rows, ["queue", "broker lock", "c1 trusts it", "MessageQueueLock", "consume lock"])

lab, c = orderly_lab(five_seconds)
lab.run(until="4s")
print(format_duration(lab.now), "— a is inside the listener")
print(lock_table(lab, c))

# %%
lab.run(until="20s")
print(format_duration(lab.now), "— all three messages consumed")
print(lock_table(lab, c))

# %% [markdown]
# The two local locks are held only while c1 consumes; the broker lock is a lease that stays (renewed by `lockAll`
# at 1 s, 21 s, 41 s …) whether or not there is anything to consume.
#
# ### Exercise 3 — predict, then run
# The same consumer in **BROADCASTING** mode, stopped at 4 s while `a` is in the listener. How many of the three locks
# does c1 hold on `TopicTest@broker-a:0`?

# %% nbgrader={"grade": false, "grade_id": "ex07_3_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_3 = ...  # ← your prediction
### BEGIN SOLUTION
answer_3 = 2
### END SOLUTION

# %%
def locks_held(lab, c, queue_id=0):
    """How many of the three locks c holds on TopicTest queue `queue_id` right now."""
    mq, pq = topic_queue(c, queue_id)
    lease = lab.brokers[mq.broker_name].lock_manager.holder(c.consumer_group, mq)
    return sum([
        lease is not None and lease[0] == c.client_id,
        c.consume_service.mq_locks[mq].held,
        pq.consume_lock.held,
    ])

lab, c = orderly_lab(five_seconds, message_model="BROADCASTING")
lab.run(until="4s")
held = locks_held(lab, c)

# %% nbgrader={"grade": true, "grade_id": "ex07_3", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("07.3", answer_3, held)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_07_3
grading_07_3.verify("07.3", answer_3)
### END HIDDEN TESTS

# %%
print(lock_table(lab, c))
print("lock events in the trace:", len(lab.trace.of_kind("lock_acquired", "lock_renewed")))

# %% [markdown]
# No lease, and "c1 trusts it: no" does not matter: in BROADCASTING every instance consumes every queue, so
# `ConsumeRequest.run` does not look at `pq.locked` at all. The two local locks still keep one thread per queue.

# %% [markdown]
# ## The client trusts its broker lock for 30 s
# `lockAll` renews the lease every 20 s. If renewing fails, c1 keeps consuming on the strength of its last success,
# but only until `ProcessQueue.isLockExpired()` — 30 s (`REBALANCE_LOCK_MAX_LIVE_TIME`) after it. Here c1 has 60
# messages of 2 s each in its ProcessQueue when it is cut off from broker-a at 25 s; its last renewal was at 21 s.
#
# ### Exercise 4 — predict, then run
# At which second does c1 deliver its **last** message before the link heals at 70 s?

# %% nbgrader={"grade": false, "grade_id": "ex07_4_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_4 = ...  # ← your prediction
### BEGIN SOLUTION
answer_4 = 50
### END SOLUTION

# %%
def two_seconds(msgs, ctx):
    """Every message takes 2 s, then succeeds."""
    return after("2s", SUCCESS)

def cut_off_lab():
    """60 messages at 2 s; c1's link to broker-a is cut at 25 s and healed at 70 s."""
    lab, c = orderly_lab(two_seconds, bodies=())
    p = lab.producers["pg"]
    for i in range(60):
        lab.at("2s", p.send, Message("TopicTest", f"m{i}"))
    lab.at("25s", lab.partition, "c1", "broker-a")
    lab.at("70s", lab.partition, "c1", "broker-a", heal=True)
    return lab, c

lab, c = cut_off_lab()
lab.run(until="90s")
last_before_heal = max(e.time_ms for e in lab.trace.of_kind("delivered") if e.time_ms < 70_000)

# %% nbgrader={"grade": true, "grade_id": "ex07_4", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("07.4", answer_4, last_before_heal // 1000)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_07_4
grading_07_4.verify("07.4", answer_4)
### END HIDDEN TESTS

# %%
show_trace(lab.trace, "lock_acquired", "lock_renewed", "warning", "fault", fields=("queue", "fault", "message"))
resumed = min(e.time_ms for e in lab.trace.of_kind("delivered") if e.time_ms >= 70_000)
print("first delivery after the heal:", format_duration(resumed))

# %% [markdown]
# Every lock request is a call through the network like a send or a pull, so the partition hits it too: the trace
# shows each `lockBatchMQ exception`, first the 20 s renewals (41 s, 61 s), then the retries below. The offset
# commit that `persistAll` sends every 5 s is lost the same way, and is sent again once the link is back.
#
# After the lock expired, each `ConsumeRequest` calls `tryLockLaterAndReconsume`: it asks the broker for the lock
# (`lockOneMQ`) and, refused or unreachable, tries again about 3 s later. Once the link is back the next try
# re-locks and consumption resumes — before the broker's own lease (60 s after 21 s) ran out, so nobody else could
# have taken the queue meanwhile.
#
# ### Exercise 5 — predict, then run
# Now c1 **crashes** at 10 s (it never unlocks) and c2 of the same group starts at 11 s; c2 asks for locks at each of
# its rebalances (at its start, then 20 s after each). At which second does c2 first get the `TopicTest` queue lock?

# %% nbgrader={"grade": false, "grade_id": "ex07_5_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_5 = ...  # ← your prediction
### BEGIN SOLUTION
answer_5 = 71
### END SOLUTION

# %%
lab, c = orderly_lab()
lab.at("10s", c.crash)
c2 = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=bad_suspends, orderly=True, name="c2", start="11s")
lab.run(until="90s")
got = [e for e in lab.trace.of_kind("lock_acquired") if e.actor == "consumer:c2" and e.get("queue") == "TopicTest@broker-a:0"]

# %% nbgrader={"grade": true, "grade_id": "ex07_5", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("07.5", answer_5, got[0].time_ms // 1000)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_07_5
grading_07_5.verify("07.5", answer_5)
### END HIDDEN TESTS

# %%
show_trace(lab.trace, "lock_acquired", "lock_refused", "lock_expired", "lifecycle", fields=("queue", "holder", "previous_holder", "event"))

# %% [markdown]
# > **Common belief vs. the source.** "The broker lock expires after 30 s." — `RebalanceLockManager` keeps an entry
# > for **60 s** after its last renewal; 30 s is `ProcessQueue`'s limit on how long the *client* trusts its own copy.

# %% [markdown]
# ## When a queue moves to another consumer
# c2 joins at 10 s and the average allocation gives it queue 1 — while c1 is 8 s into a 25 s listener call on it.
# `RebalancePushImpl.removeUnnecessaryMessageQueue` then:
#
# 1. persists the queue's offset to the broker and forgets it;
# 2. marks the ProcessQueue dropped and waits up to 1 s for its consume lock (`tryLock(1000 ms)`) — the listener
#    holds it for 17 s more, so at 11 s the rebalance gives up ("[WRONG]mq is consuming, so can not unlock it"), the
#    queue stays in c1's table and the removal is tried again at c1's next rebalance, 20 s after this one ended;
# 3. once it gets the lock, unlocks the queue at the broker — 20 s later (`UNLOCK_DELAY_TIME_MILLS`) if messages are
#    still cached in the ProcessQueue, so their in-flight work can drain.
#
# The whole rebalance waits in step 2: it is one thread (`RebalanceService`), so c1's other queues wait with it.

# %%
def twenty_five_seconds(msgs, ctx):
    """Every message takes 25 s, then succeeds."""
    return after("25s", SUCCESS)

def moving_queue_lab(listener_seconds=25):
    """Two queues, four messages from 2 s; c1 consumes them orderly, c2 joins at 10 s."""
    slow = lambda msgs, ctx: after(listener_seconds * 1000, SUCCESS)  # noqa: E731
    lab, c1 = orderly_lab(slow, bodies=("m0", "m1", "m2", "m3"), queues=2)
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=slow, orderly=True, name="c2", start="10s")
    return lab

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
# ### Exercise 6 — predict, then run
# `M0001` is the message c1 is consuming on queue 1 when c2 joins. How many times is `M0001` delivered in all (c1
# and c2 together) by the end of the run?

# %% nbgrader={"grade": false, "grade_id": "ex07_6_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_6 = ...  # ← your prediction
### BEGIN SOLUTION
answer_6 = 2
### END SOLUTION

# %%
lab.run(until="2m")
m0001 = [e for e in lab.trace.of_kind("delivered") if e.msg_id == "M0001"]

# %% nbgrader={"grade": true, "grade_id": "ex07_6", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("07.6", answer_6, len(m0001))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_07_6
grading_07_6.verify("07.6", answer_6)
### END HIDDEN TESTS

# %%
QUEUE_1 = "TopicTest@broker-a:1"

def about_queue_1(e):
    """The events of queue 1, and the rebalances that moved it."""
    return e.get("queue") == QUEUE_1 or QUEUE_1 in (e.get("added") or []) + (e.get("removed") or [])

show_trace(
    [e for e in lab.trace if about_queue_1(e)],
    "delivered", "consumed", "offset_updated", "offset_persisted", "rebalanced", "lock_acquired", "lock_refused", "unlocked",
    fields=("queue_offset", "status", "offset", "added", "removed", "holder"),
)

# %% [markdown]
# c1 finished `M0001` at 27 s, but `processConsumeResult` commits only if the ProcessQueue is not dropped — it was.
# The broker still had offset 0 for queue 1, so c2 started there. Orderly consumption keeps the order of a queue;
# it does not make a queue move exactly-once.

# %% [markdown]
# ## A clean shutdown: locks first, each answer awaited
# `shutdown()` of an orderly consumer ends its consume service with `unlockAll`: one UNLOCK_BATCH_MQ per broker with
# all of that broker's queues, and it **waits for each answer** (up to 1 s) before it asks the next broker. Only
# then are the offsets persisted and the consumer unregistered. Below, broker-a answers every request 4 s late from
# 7.5 s on, and c1 shuts down at 8 s. Predict: when does the shutdown end — at 8 s, about 9 s, or 12 s?

# %%
lab, c1 = orderly_lab(bodies=("a", "b", "c", "d", "e", "f"))
lab.at("7.5s", lab.set_broker_fault, "broker-a", response_delay_ms="4s")
lab.at("8s", c1.shutdown)
lab.run(until="15s")
show_trace([e for e in lab.trace if e.time_ms >= 7_500], "unlocked", "warning", "offset_persisted", "lifecycle",
           fields=("queue", "offset", "message", "event"))
print("c1's ProcessQueues still marked locked:", sorted(str(mq) for mq, pq in c1.process_queue_table.items() if pq.locked))

# %% [markdown]
# The broker acted on the unlock at once (the `unlocked` events at 8 s are recorded when the broker releases the
# leases), but its answer never came within the 1,000 ms timeout: at 9.001 s the client gives up
# (`RemotingTimeoutException`), and only then persists and stops. RocketMQ merely logs the failure, so c1's ProcessQueues stay *marked* locked although the broker no
# longer holds the lease for it. A broker that answered in time would have had them marked unlocked, and the
# shutdown would have ended at 8 s.

# %% [markdown]
# ## One queue may not hog a thread: the 60 s yield
# A `ConsumeRequest` keeps consuming its queue while there are messages — but before each batch it checks how long
# it has run, and past `MAX_TIME_CONSUME_CONTINUOUSLY` (60 s) it gives the thread back and resubmits itself 10 ms
# later. Here c1 has **one** consume thread (`consume_thread_min=1`), two queues with 4 messages each, and every
# message takes 25 s.
#
# ### Exercise 7 — predict, then run
# How many messages of the first queue does c1 consume before the other queue's first message starts?

# %% nbgrader={"grade": false, "grade_id": "ex07_7_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_7 = ...  # ← your prediction
### BEGIN SOLUTION
answer_7 = 3
### END SOLUTION

# %%
lab = Lab(seed=SEED)
lab.add_broker("broker-a")
lab.create_topic("TopicTest", queues=2)
p = lab.add_producer("pg", send_which_queue_start=0)
for i in range(8):
    lab.at("1s", p.send, Message("TopicTest", f"m{i}"))
lab.add_consumer(
    "cg", subscribe={"TopicTest": "*"}, listener=twenty_five_seconds, orderly=True, name="c1",
    consume_thread_min=1, start="2s", consume_from_where="CONSUME_FROM_FIRST_OFFSET",
)
lab.run(until="5m")
order = [e.get("queue") for e in lab.trace.of_kind("delivered")]
before_switch = order.index(next(q for q in order if q != order[0]))

# %% nbgrader={"grade": true, "grade_id": "ex07_7", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("07.7", answer_7, before_switch)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_07_7
grading_07_7.verify("07.7", answer_7)
### END HIDDEN TESTS

# %%
show_trace(lab.trace, "delivered", fields=("queue", "queue_offset"))

# %% [markdown]
# ## Offsets: orderly overwrites, concurrent only moves forward
# Both services call the offset store's `updateOffset(mq, offset, increaseOnly)`: the concurrent one with
# `increaseOnly = true` (a late, lower commit is ignored), the orderly one with `false` (the value is replaced). The
# cell below calls it both ways on the store of the last run's c1 (the queue's offset is 4).

# %%
store = lab.consumers["c1"].offset_store
mq = next(m for m in store.offset_table if m.topic == "TopicTest" and m.queue_id == 0)
store.update_offset(mq, 1, True)
print("increaseOnly=true  →", store.offset_table[mq])
store.update_offset(mq, 1, False)
print("increaseOnly=false →", store.offset_table[mq])

# %% [markdown]
# On the normal path an orderly commit never goes backwards (it commits the last offset it took, in order); the
# overwrite matters when someone else moved the offset, such as an admin offset reset — which rmqlab does not model.

# %% [markdown]
# ## `autoCommit = false`: the listener decides when to commit
# With `ctx.auto_commit = False`, `SUCCESS` only moves messages out of the way; the offset moves on `COMMIT` (up to
# everything consumed so far) and `ROLLBACK` puts every uncommitted message back.
#
# ### Exercise 8 — predict, then run
# Five messages `a` … `e`; the listener turns auto-commit off and returns `COMMIT` for `c`, `SUCCESS` for the others.
# What offset does c1 hold for the queue at the end?

# %% nbgrader={"grade": false, "grade_id": "ex07_8_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_8 = ...  # ← your prediction
### BEGIN SOLUTION
answer_8 = 3
### END SOLUTION

# %%
def commit_on_c(msgs, ctx):
    """Manual commit: COMMIT after 'c', SUCCESS (no commit) otherwise."""
    ctx.auto_commit = False
    return ConsumeOrderlyStatus.COMMIT if msgs[0].body == "c" else SUCCESS

lab, c = orderly_lab(commit_on_c, bodies=("a", "b", "c", "d", "e"))
lab.run(until="20s")
mq, pq = topic_queue(c)
held_offset = c.offset_store.offset_table[mq]

# %% nbgrader={"grade": true, "grade_id": "ex07_8", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("07.8", answer_8, held_offset)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_07_8
grading_07_8.verify("07.8", answer_8)
### END HIDDEN TESTS

# %%
show_trace(lab.trace, "consumed", "offset_updated", fields=("queue_offset", "status", "offset"))
print("still uncommitted (consumingMsgOrderlyTreeMap):", list(pq.consuming_msg_orderly_tree_map))

# %% [markdown]
# `ROLLBACK` with auto-commit off: `a` returned `SUCCESS`, then `b` rolls back once — both come back.

# %%
def rollback_b_once(msgs, ctx):
    """Manual commit; 'b' rolls back on its first call, then commits."""
    ctx.auto_commit = False
    if msgs[0].body == "b":
        rollback_b_once.calls += 1
        return ConsumeOrderlyStatus.ROLLBACK if rollback_b_once.calls == 1 else ConsumeOrderlyStatus.COMMIT
    return SUCCESS

rollback_b_once.calls = 0
lab, c = orderly_lab(rollback_b_once, bodies=("a", "b", "c"))
lab.run(until="10s")
show_trace(lab.trace, "delivered", "consumed", "offset_updated", fields=("queue_offset", "status", "offset"))

# %% [markdown]
# With the default `auto_commit = True`, the two statuses are deprecated: `COMMIT` and `ROLLBACK` are logged as
# illegal and treated as `SUCCESS` — a `ROLLBACK` commits.

# %%
lab, c = orderly_lab(lambda msgs, ctx: ConsumeOrderlyStatus.ROLLBACK, bodies=("a",))
lab.run(until="10s")
show_trace(lab.trace, "delivered", "consumed", "warning", "offset_updated", fields=("status", "offset", "message"))

# %% [markdown]
# > **Common belief vs. the source.** "Return `ROLLBACK` to retry." — `ConsumeMessageOrderlyService.processConsumeResult`
# > rolls back only when the listener turned `autoCommit` off; otherwise it commits. Return
# > `SUSPEND_CURRENT_QUEUE_A_MOMENT` to retry.

# %% [markdown]
# ## A batch fails as a whole
# With `consume_message_batch_max_size=3` the listener gets up to three messages at once and returns one status for
# all of them. `makeMessageToConsumeAgain` puts the **whole** batch back, and `checkReconsumeTimes` counts a try for
# every message in it.
#
# ### Exercise 9 — predict, then run
# `a`, `bad`, `c`, `d` are waiting when c1 starts (batches of 3, `max_reconsume_times=2`); the listener fails any
# batch containing `bad`. How many messages end up in `%DLQ%cg`?

# %% nbgrader={"grade": false, "grade_id": "ex07_9_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_9 = ...  # ← your prediction
### BEGIN SOLUTION
answer_9 = 3
### END SOLUTION

# %%
def fails_with_bad(msgs, ctx):
    """One status for the batch: SUSPEND if any message is 'bad'."""
    return SUSPEND if any(m.body == "bad" for m in msgs) else SUCCESS

lab = Lab(seed=SEED)
lab.add_broker("broker-a")
lab.create_topic("TopicTest", queues=1)
p = lab.add_producer("pg")
for body in ("a", "bad", "c", "d"):
    lab.at("1s", p.send, Message("TopicTest", body))
lab.add_consumer(
    "cg", subscribe={"TopicTest": "*"}, listener=fails_with_bad, orderly=True, name="c1", start="2s",
    consume_from_where="CONSUME_FROM_FIRST_OFFSET", consume_message_batch_max_size=3, max_reconsume_times=2,
)
lab.run(until="3m")
dead = lab.trace.of_kind("dead_lettered")

# %% nbgrader={"grade": true, "grade_id": "ex07_9", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("07.9", answer_9, len(dead))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_07_9
grading_07_9.verify("07.9", answer_9)
### END HIDDEN TESTS

# %%
show_trace(lab.trace, "delivered", "send_back", "dead_lettered", fields=("queue_offset", "reconsume_times", "batch", "topic"))

# %% [markdown]
# `a` and `c` never failed on their own, yet they were retried with `bad` and dead-lettered with it. With batches,
# a poison message takes its neighbours down.

# %% [markdown]
# ## Watch it step by step
# The moving-queue run in a `Dashboard`: watch c1 keep queue 1 while its listener runs, the broker lease pass to c2
# after c1 lets go, and `M0001` travel twice. Change the `listener_seconds` knob (then Rebuild) and see when the
# hand-over happens.

# %% tags=["nbval-ignore-output"]
from widgets.dashboard import Dashboard

dash = Dashboard(moving_queue_lab, knobs={"listener_seconds": 25}, horizon="2m")
dash

# %% [markdown]
# ## Key points
# - Orderly failure = a local retry after the (clamped, 10 … 30000 ms) suspend time; unlimited by default; the DLQ
#   only with an explicit max, and a failed batch is retried — and dead-lettered — as a whole.
# - Three locks: the broker lease (CLUSTERING only; 60 s at the broker, trusted 30 s by the client, renewed every
#   20 s), `MessageQueueLock` for the consume loop, the consume lock around each listener call.
# - A queue leaves a consumer only between listener calls, and its in-flight message may be consumed again by the
#   next owner.
# - A clean shutdown unlocks first (`unlockAll`, one request per broker, each answer awaited up to 1 s), then
#   persists the offsets: a slow broker delays the final persist.
# - Every lock request is a `lock_batch` event (queues asked, granted, refused with their holder, or the error of an
#   unreachable broker), every ConsumeRequest a `consume_request` event with its delay (`submitConsumeRequestLater`):
#   `lab.trace.where("lock_batch")`. A queue whose first start offset cannot be computed is pulled again 1000 ms
#   later, and one not pulled for 120 s is dropped and re-created by the next rebalance.
# - `autoCommit = false` gives the listener `COMMIT` / `ROLLBACK`; with the default they mean `SUCCESS`.

# %% [markdown]
# ## Your score
# Run this cell last: one line per exercise of this lab, from the checks you ran.

# %%
score("07")
