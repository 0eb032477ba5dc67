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
# [Index](README.md) · [← Back](06_ordered_send.ipynb) · [Next →](07b_orderly_failover.ipynb)
#
# # 07a · Orderly consumption: local retries and the three locks
#
# **Goal:** see how an orderly consumer retries (locally, on the same queue), how long it pauses, which lock it holds
# while a listener runs, how long it trusts its broker lock, and why one queue may not keep a thread.
# Source: `client/.../impl/consumer/ConsumeMessageOrderlyService.java`, `MessageQueueLock.java`, `ProcessQueue.java`,
# `broker/.../client/rebalance/RebalanceLockManager.java`. Next, [07b](07b_orderly_failover.ipynb): failures,
# take-over and shutdown.

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
def retry_picture(max_reconsume_times=3):
    """``orderly_lab()`` as a Dashboard factory: a, bad and c one a second (as orderly_lab sends them);
    bad always suspends."""
    return orderly_lab(max_reconsume_times=max_reconsume_times)[0]

def pause_two_minutes(msgs, ctx):
    """'bad' fails and asks the queue to pause for 120 000 ms."""
    if msgs[0].body == "bad":
        ctx.suspend_current_queue_time_millis = 120_000
        return SUSPEND
    return SUCCESS


def pause_picture(max_reconsume_times=3):
    """a, bad, c with ``pause_two_minutes`` as the listener."""
    return orderly_lab(pause_two_minutes, max_reconsume_times=max_reconsume_times)[0]

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

def locks_picture(message_model="CLUSTERING", messages=6):
    """``messages`` messages of 5 s each on one queue of an orderly consumer in ``message_model``."""
    return orderly_lab(five_seconds, bodies=tuple("abcdefgh"[:messages]), message_model=message_model)[0]

def two_seconds(msgs, ctx):
    """Every message takes 2 s, then succeeds."""
    return after("2s", SUCCESS)

def cut_off_lab(listener_seconds=2, messages=60):
    """``messages`` messages at 2 s, each taking ``listener_seconds``; c1's link to broker-a is cut at 25 s, healed at 70 s."""
    listener = two_seconds if listener_seconds == 2 else (lambda msgs, ctx: after(listener_seconds * 1000, SUCCESS))
    lab, c = orderly_lab(listener, bodies=())
    p = lab.producers["pg"]
    for i in range(messages):
        lab.at("2s", p.send, Message("TopicTest", f"m{i}"))
    lab.at("25s", lab.partition, "c1", "broker-a")
    lab.at("70s", lab.partition, "c1", "broker-a", heal=True)
    return lab, c

def twenty_five_seconds(msgs, ctx):
    """Every message takes 25 s, then succeeds."""
    return after("25s", SUCCESS)

def yield_lab(consume_thread_min=1, listener_seconds=25):
    """Two queues, 8 messages at 1 s; c1 orderly, ``consume_thread_min`` threads, every message ``listener_seconds``
    (25 s), from 2 s."""
    listener = twenty_five_seconds if listener_seconds == 25 else (lambda msgs, ctx: after(listener_seconds * 1000, SUCCESS))
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=2)
    p = lab.add_producer("pg", send_which_queue_start=0)
    for i in range(8):
        lab.at("1s", p.send, Message("TopicTest", f"m{i}"))
    lab.add_consumer(
        "cg", subscribe={"TopicTest": "*"}, listener=listener, orderly=True, name="c1",
        consume_thread_min=consume_thread_min, start="2s", consume_from_where="CONSUME_FROM_FIRST_OFFSET",
    )
    return lab


# %% [markdown]
# ## A tiny run: a failing message is retried where it is
#
# The picture: `a`, `bad`, `c` on one queue of an orderly consumer, `bad` always failing. Step through the first
# deliveries of `bad` and stop before `c`; the table under it is the same run, up to the picture's first question
# (when `bad` comes back is for you to predict there). Its second question is Exercise 1's: when the queue moves on.

# %% tags=["nbval-ignore-output"]
dash = Dashboard(retry_picture, knobs={"max_reconsume_times": 3}, horizon="20s", checkpoints=[
    Checkpoint(before="delivered", nth=3, ask="when", optional=True, name="when bad comes back",
               question="When is bad (M0002) delivered again? Pick the time.",
               hint="An orderly consumer does not send a failed message back to the broker: processConsumeResult "
                    "keeps it in the ProcessQueue and submitConsumeRequestLater resubmits the same queue after "
                    "suspendCurrentQueueTimeMillis. Which value does this consumer use?",
               explain=sealed_explanation("07a.bad-comes-back")),
    Checkpoint(before="send_back", ask="when", optional=True, name="when c1 gives up on bad",
               question="max_reconsume_times is {max_reconsume_times}. When does c1 stop retrying bad ({msg}) and "
                        "send it back to the broker? Pick the time.",
               hint="Each suspension counts one more reconsume; checkReconsumeTimes sends the message back once its "
                    "reconsumeTimes has reached the max.",
               explain=sealed_explanation("07a.gives-up")),
])
dash

# %%
lab, c = orderly_lab()
lab.run(until="3s")
show_trace(lab.trace, "delivered", "suspended", fields=("queue_offset", "reconsume_times"))

# %% [markdown]
# The retry is **local**: same queue, same consumer, after the pause `suspendCurrentQueueTimeMillis` (the picture's
# question), and `c` waits behind `bad` — that is what "orderly" costs.
#
# > **Common belief vs. the source.** "Orderly consumers retry 16 times, then dead-letter." —
# > `ConsumeMessageOrderlyService.getMaxReconsumeTimes` turns the default −1 into `Integer.MAX_VALUE`: the queue
# > retries forever, each time after that pause. No `%RETRY%` round trip, no 10 s / 30 s schedule.
#
# ### Exercise 1 — predict, then run
# The picture ran with `max_reconsume_times=3`. With `max_reconsume_times=1` (the same a, bad, c), how many times is
# `bad` delivered before the queue moves on? Predict, then set the picture's knob to 1, Rebuild and step.

# %% nbgrader={"grade": false, "grade_id": "ex07a_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← your prediction
### BEGIN SOLUTION
answer_1 = 2
### END SOLUTION

# %%
lab, c = orderly_lab(max_reconsume_times=1)
lab.run(until="3m")
bad = [e for e in lab.trace.of_kind("delivered") if e.msg_id == "M0002"]
show_trace(lab.trace, "delivered", "send_back", "scheduled", "dead_lettered", fields=("queue_offset", "reconsume_times", "level", "topic"))

# %% nbgrader={"grade": true, "grade_id": "ex07a_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("07a.1", answer_1, len(bad))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_07a_1
grading_07a_1.verify("07a.1", answer_1)
### END HIDDEN TESTS

# %% [markdown]
# ## The suspend time is clamped
# A listener may ask for its own pause: `ctx.suspend_current_queue_time_millis` (−1 = the consumer's setting).
# `submitConsumeRequestLater` clamps whatever it gets to **10 … 30000 ms**. In the picture (`pause_picture`) the
# listener `pause_two_minutes` asks for a 2-minute pause each time `bad` fails.

# %% tags=["nbval-ignore-output"]
pause_dash = Dashboard(pause_picture, knobs={"max_reconsume_times": 3}, horizon="2m", checkpoints=[
    Checkpoint(before="send_back", pause_before="delivered", ask="when", optional=True, name="when the two-minute pauses end",
               question="bad asks for a two-minute pause at each failure, and max_reconsume_times is "
                        "{max_reconsume_times}. When does c1 send bad ({msg}) back to %RETRY%cg? Pick the time.",
               hint="submitConsumeRequestLater clamps the pause a listener asks for before it schedules the retry.",
               explain=sealed_explanation("07a.pauses-end"))])
pause_dash

# %% [markdown]
# ### Exercise 2 — predict, then run
# The picture asks when c1 sends `bad` back with `max_reconsume_times=3`. The same listener (a two-minute pause asked
# at each failure, `bad` first delivered at 3 s), but `max_reconsume_times=5`: at which second does c1 send `bad`
# back to `%RETRY%cg` (on its way to the DLQ)?

# %% nbgrader={"grade": false, "grade_id": "ex07a_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← your prediction
### BEGIN SOLUTION
answer_2 = 153
### END SOLUTION

# %%
lab, c = orderly_lab(pause_two_minutes, max_reconsume_times=5)
lab.run(until="5m")
sent_back = lab.trace.of_kind("send_back")[0]
show_trace(lab.trace, "delivered", "suspended", "send_back", fields=("reconsume_times", "retry_in_ms"))

# %% nbgrader={"grade": true, "grade_id": "ex07a_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("07a.2", answer_2, sent_back.time_ms // 1000)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_07a_2
grading_07a_2.verify("07a.2", answer_2)
### END HIDDEN TESTS

# %%
# the other end of the clamp: the pause each requested value really gets
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
# An orderly consumer takes three locks on a queue. The picture (`locks_picture`): six messages of 5 s each, so we
# can stop the clock while `a` is inside the listener (2 s → 7 s); step on from 4 s: it stops to ask when c1 renews
# its broker lock next.

# %% tags=["nbval-ignore-output"]
locks_dash = Dashboard(locks_picture, knobs={"message_model": "CLUSTERING", "messages": 6},
                       knob_options={"message_model": ["CLUSTERING", "BROADCASTING"]}, horizon="45s", checkpoints=[
    Checkpoint(before="lock_renewed", actor="consumer:c1", queue="TopicTest@broker-a:0", nth=2, ask="when",
               optional=True, name="when c1 renews its broker lock",
               question="c1 locked TopicTest@broker-a:0 at the broker when it started and renewed the lease at 1 s. "
                        "When does it renew it next? Pick the time.",
               hint="The lease is not renewed per message: RebalanceService's lockAll runs on its own timer, whether "
                    "or not c1 is consuming.",
               explain=sealed_explanation("07a.lock-renewed"))])
locks_dash.controller.seek_time("4s")
locks_dash

# %% [markdown]
# The three locks, at three scopes (the picture's Locks tab draws them):
#
# 1. the **broker queue lock** — a lease in the broker's `RebalanceLockManager`, taken with `lockBatchMQ`:
#    only its holder may consume the queue;
# 2. the **local queue lock** — `MessageQueueLock`'s object for the queue, held for the whole consume loop of one
#    `ConsumeRequest`: at most one thread of this consumer works on the queue;
# 3. the **ProcessQueue consume lock** — held around each listener call: rebalance cannot release the queue at the
#    broker while a listener is mid-batch.
#
# The picture's `message_model` knob switches CLUSTERING / BROADCASTING. The table is the picture's own run, while `a`
# is in the listener and where the picture asks (17 s).

# %%
lab = locks_picture()
c = lab.consumers["c1"]
for until in ("4s", "17s"):
    lab.run(until=until)
    inside = [e.msg_id for e in lab.trace.of_kind("delivered", "consumed")][-1:]
    print(format_duration(lab.now), "— in the listener:", inside, "· consumed so far:", len(lab.trace.of_kind("consumed")))
    print(lock_table(lab, c))

# %% [markdown]
# The two local locks are held only while c1 consumes: step the picture past its last message (32 s) to see them
# free. The broker lock is a lease that stays (renewed by `lockAll` on its own timer) whether or not there is
# anything to consume.
#
# ### Exercise 3 — predict, then run
# The same consumer in **BROADCASTING** mode, stopped at 4 s while `a` is in the listener. How many of the three locks
# does c1 hold on `TopicTest@broker-a:0`? Predict, then switch the picture's `message_model` knob, Rebuild, and look
# at its Locks tab at 4 s.

# %% nbgrader={"grade": false, "grade_id": "ex07a_3_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
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
print(lock_table(lab, c))
print("lock events in the trace:", len(lab.trace.of_kind("lock_acquired", "lock_renewed")))

# %% nbgrader={"grade": true, "grade_id": "ex07a_3", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("07a.3", answer_3, held)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_07a_3
grading_07a_3.verify("07a.3", answer_3)
### END HIDDEN TESTS

# %% [markdown]
# ## The client trusts its broker lock for 30 s
# The picture (`cut_off_lab`, 15 messages of 7 s each) opens at 25 s, when c1 is cut off from broker-a; its last
# lock renewal was at 21 s. Open the Locks tab and step on: it stops to ask when c1 finds its lock expired.

# %% tags=["nbval-ignore-output"]
cut_dash = Dashboard(lambda listener_seconds, messages: cut_off_lab(listener_seconds, messages)[0],
                     knobs={"listener_seconds": 7, "messages": 15}, horizon="75s", checkpoints=[
    Checkpoint(before="warning", actor="consumer:c1", nth=4, ask="when", optional=True,
               name="when c1 stops consuming after the cut",
               question="c1 was cut off from broker-a at 25 s; its last successful lock was at 21 s. When does c1 find "
                        "its lock expired and stop taking messages? Pick the time.",
               hint="ProcessQueue.isLockExpired() is checked before each message is taken, not on a timer: count 30 s "
                    "from the last successful lock, then find the next check.",
               explain=sealed_explanation("07a.stops-consuming"))])
cut_dash.controller.seek_time("25s")
cut_dash

# %% [markdown]
# `lockAll` renews the lease every 20 s. If renewing fails, c1 keeps consuming on the strength of its last success,
# but only until `ProcessQueue.isLockExpired()` — 30 s (`REBALANCE_LOCK_MAX_LIVE_TIME`) after it. The exercise's run
# has 60 messages of 2 s each in c1's ProcessQueue at the cut (the picture's knobs change them).
#
# ### Exercise 4 — predict, then run
# The run described above, not the picture's: **60 messages of 2 s each** (the picture's knobs `listener_seconds`
# and `messages` stand at 7 and 15; set them to 2 and 60 and Rebuild to watch this run once you have predicted).
# At which second does c1 deliver its **last** message before the link heals at 70 s?

# %% nbgrader={"grade": false, "grade_id": "ex07a_4_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_4 = ...  # ← your prediction
### BEGIN SOLUTION
answer_4 = 50
### END SOLUTION

# %%
lab, c = cut_off_lab()
lab.run(until="90s")
last_before_heal = max(e.time_ms for e in lab.trace.of_kind("delivered") if e.time_ms < 70_000)
show_trace(lab.trace, "lock_acquired", "lock_renewed", "warning", "fault", fields=("queue", "fault", "message"))
resumed = min(e.time_ms for e in lab.trace.of_kind("delivered") if e.time_ms >= 70_000)
print("first delivery after the heal:", format_duration(resumed))

# %% nbgrader={"grade": true, "grade_id": "ex07a_4", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("07a.4", answer_4, last_before_heal // 1000)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_07a_4
grading_07a_4.verify("07a.4", answer_4)
### END HIDDEN TESTS

# %% [markdown]
# Every lock request is a call through the network like a send or a pull, so the partition hits it too: the trace
# shows each `lockBatchMQ exception`, first the 20 s renewals (41 s, 61 s), then the retries below. The offset
# commit that `persistAll` sends every 5 s is lost the same way, and is sent again once the link is back.
#
# After the lock expired, each `ConsumeRequest` calls `tryLockLaterAndReconsume`: it asks the broker for the lock
# (`lockOneMQ`) and, refused or unreachable, tries again about 3 s later. Once the link is back the next try
# re-locks and consumption resumes — before the broker's own lease (60 s after 21 s) ran out, so nobody else could
# have taken the queue meanwhile.

# %% [markdown]
# ## One queue may not hog a thread: the 60 s yield
# The picture (`yield_lab`): c1 has **one** consume thread (`consume_thread_min=1`), two queues with 4 messages each,
# and every message takes 25 s. Play it: it stops before the other queue's first delivery and asks when that is.

# %% tags=["nbval-ignore-output"]
yield_dash = Dashboard(yield_lab, knobs={"consume_thread_min": 1, "listener_seconds": 25}, horizon="4m", checkpoints=[
    Checkpoint(before="delivered", queue="TopicTest@broker-a:1", ask="when", optional=True,
               name="when the other queue gets the thread",
               question="c1 has one consume thread, busy with the first queue. When does the other queue's first "
                        "message ({msg}) start? Pick the time.",
               hint="A ConsumeRequest keeps its queue while it has messages, and checks before each batch how long "
                    "it has run: it yields only past MAX_TIME_CONSUME_CONTINUOUSLY.",
               explain=sealed_explanation("07a.other-queue"))])
yield_dash

# %% [markdown]
# A `ConsumeRequest` keeps consuming its queue while there are messages — but before each batch it checks how long
# it has run, and past `MAX_TIME_CONSUME_CONTINUOUSLY` (60 s) it gives the thread back and resubmits itself 10 ms
# later.
#
# ### Exercise 5 — predict, then run
# The picture's messages take 25 s each. Now every message takes **40 s** (the picture's `listener_seconds` knob):
# how many messages of the first queue does c1 consume before the other queue's first message starts?

# %% nbgrader={"grade": false, "grade_id": "ex07a_5_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_5 = ...  # ← your prediction
### BEGIN SOLUTION
answer_5 = 2
### END SOLUTION

# %%
lab = yield_lab(listener_seconds=40).run(until="5m")
order = [e.get("queue") for e in lab.trace.of_kind("delivered")]
before_switch = order.index(next(q for q in order if q != order[0]))
show_trace(lab.trace, "delivered", fields=("queue", "queue_offset"))

# %% nbgrader={"grade": true, "grade_id": "ex07a_5", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("07a.5", answer_5, before_switch)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_07a_5
grading_07a_5.verify("07a.5", answer_5)
### END HIDDEN TESTS

# %% [markdown]
# **c1's offsets, last: orderly overwrites, concurrent only moves forward.** The picture's ProcessQueues tab shows
# the offset c1 commits for each queue as it consumes. Both services call the offset store's `updateOffset(mq, offset, increaseOnly)`: the concurrent one with
# `increaseOnly = true` (a late, lower commit is ignored), the orderly one with `false` (the value is replaced). The
# cell below calls it both ways on the store of the last run's c1 (the queue's offset is 4). On the normal path an
# orderly commit never goes backwards (it commits the last offset it took, in order); the overwrite matters when
# someone else moved the offset, such as an admin offset reset — which rmqlab does not model.

# %%
store = lab.consumers["c1"].offset_store
mq = next(m for m in store.offset_table if m.topic == "TopicTest" and m.queue_id == 0)
store.update_offset(mq, 1, True)
print("increaseOnly=true  →", store.offset_table[mq])
store.update_offset(mq, 1, False)
print("increaseOnly=false →", store.offset_table[mq])

# %% [markdown]
# ## Key points
# - Orderly failure = a local retry after the (clamped, 10 … 30000 ms) suspend time; unlimited by default; the DLQ
#   only with an explicit max.
# - Three locks: the broker lease (60 s at the broker, trusted 30 s by the client, renewed every 20 s),
#   `MessageQueueLock` for the consume loop, the consume lock around each listener call; the message model decides
#   which of them `ConsumeRequest.run` needs.
# - One ConsumeRequest gives its thread back after 60 s of continuous consumption (`MAX_TIME_CONSUME_CONTINUOUSLY`).
# - Next: [07b](07b_orderly_failover.ipynb) — a crashed holder, a queue that moves, shutdown, `autoCommit`, batches.
#
# ## Your score
# Run this cell last: one line per exercise of this lab, from the checks you ran.

# %%
score("07a")
