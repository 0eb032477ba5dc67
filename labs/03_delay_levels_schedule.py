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
# [Index](README.md) · [← Back](02b_send_back_failures.ipynb) · [Next →](04_dead_letter_queue.ipynb)

# %% [markdown]
# # 03 · Delay levels and the ScheduleMessageService
#
# **Goal:** derive the whole 16-retry schedule and see what happens past 16 retries.
# Source: `store/.../config/MessageStoreConfig.java` (`messageDelayLevel`), `store/.../schedule/ScheduleMessageService.java`,
# `store/.../CommitLog.java` (the level cap).

# %%
from rmqlab import ConsumeConcurrentlyStatus, ConsumeOrderlyStatus, Lab, Message, after, format_duration
from rmqlab.course.exercises import assert_right, check, score, show_trace, table

CONSUME_SUCCESS = ConsumeConcurrentlyStatus.CONSUME_SUCCESS
RECONSUME_LATER = ConsumeConcurrentlyStatus.RECONSUME_LATER
SEED = 7

# %% [markdown]
# ## A tiny run: the first two retries

# %%
def always_fails(msgs, ctx):
    """Never succeed."""
    return RECONSUME_LATER

def failing_lab(**consumer_options):
    """One broker, one queue, one always-failing consumer; one message sent at t = 0."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=always_fails, name="c1", **consumer_options)
    lab.at(0, p.send, Message("TopicTest", "poison"))
    return lab


# %% [markdown]
# The picture: `failing_lab` in a `Dashboard` with a `max_reconsume_times` knob (set it, then Rebuild). Play it and
# watch the retry timeline (its tab): one lane, every delivery and every wait. It stops three times to ask: where the
# first retry waits, when the second one is due, and when the message reaches the DLQ. Exercise 1 then asks the same
# about a consumer that allows fewer retries.

# %% tags=["nbval-ignore-output"]
from rmqlab.widgets.checkpoints import Checkpoint, sealed_explanation
from rmqlab.widgets.dashboard import Dashboard

dash = Dashboard(failing_lab, knobs={"max_reconsume_times": -1}, horizon="5h", tab="Retry timeline", checkpoints=[
    Checkpoint(before="scheduled", ask="where", optional=True, name="the first retry's delay level", explain=sealed_explanation("03.level"),
               question="c1's listener fails every delivery. Where is {msg} after the next step? Click the place "
                        "in the picture (or a button)."),
    Checkpoint(before="delay_delivered", nth=2, ask="when", optional=True, name="when the second retry is due", explain=sealed_explanation("03.second-due"),
               question="c1 has failed {msg} a second time, and the broker parked the new copy at a delay level again. "
                        "When does {msg} leave that level? Pick the time."),
    Checkpoint(before="dead_lettered", ask="when", optional=True, name="when the message reaches the DLQ",
               explain=sealed_explanation("03.dlq-time"), question="c1 keeps failing {msg}. When does the broker write it to the DLQ?"),
])
dash

# %% [markdown]
# ### The delay levels behind the picture
# The picture's `SCHEDULE_TOPIC_XXXX` box parks each copy at one of the broker's delay levels (one queue per level):
# `messageDelayLevel = "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h"`; level = position + 1.

# %%
from rmqlab import DelayLevelTable

levels = DelayLevelTable()
print(table([[lv, format_duration(levels.delay_ms(lv))] for lv in range(1, levels.max_level + 1)], ["level", "delay"]))


# %% [markdown]
# A failed message with stored `reconsumeTimes` = k is re-stored with level **3 + k** (broker, `SendMessageProcessor`),
# parked in `SCHEDULE_TOPIC_XXXX` queue `level − 1`, and moved to `%RETRY%<group>` when due.

# %%
lab = failing_lab()
lab.run(until="45s")
show_trace(lab.trace, "delivered", "scheduled", "delay_delivered")

# %% [markdown]
# > **Common belief vs. the source.** "The retry interval is 1 s, 5 s, 10 s, 30 s …" — the first retry uses level 3 (10 s):
# > `3 + reconsumeTimes`. A retry uses levels 1–2 only if the listener sets `delayLevelWhenNextConsume` (a
# > producer's own delayed message may use any level).

# %% [markdown]
# ### Exercise 1 — predict, then run
# The same always-failing listener, but c1 allows `max_reconsume_times=5` (the picture's knob; the picture above
# ran the default, −1 → 16 for concurrent consumers). At which virtual second does the message reach the DLQ?

# %% nbgrader={"grade": false, "grade_id": "ex03_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← your prediction
### BEGIN SOLUTION
answer_1 = 400
### END SOLUTION

# %%
lab = failing_lab(max_reconsume_times=5)
lab.run(until="1h")
deliveries = lab.trace.of_kind("delivered")
print(table([[d.get("reconsume_times"), d.time_ms // 1000] for d in deliveries], ["reconsume_times", "delivered at (s)"]))
dlq = lab.trace.of_kind("dead_lettered")[0]

# %% nbgrader={"grade": true, "grade_id": "ex03_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("03.1", answer_1, dlq.time_ms // 1000)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_03_1
grading_03_1.verify("03.1", answer_1)
### END HIDDEN TESTS

# %%
print(len(deliveries), "deliveries; DLQ copy reconsume_times =", dlq.get("reconsume_times"))

# %% [markdown]
# ## Past 16: `max_reconsume_times=18`
# A consumer may allow more than 16 retries. The levels table above has no level beyond the last one.
# The picture with `max_reconsume_times=18`, stopped at the 16th retry's send-back. It runs to 7 h: far enough to
# see at which level the 17th and 18th retries wait, not to the end of the run, which is the exercise below.

# %% tags=["nbval-ignore-output"]
past_dash = Dashboard(failing_lab, knobs={"max_reconsume_times": 18}, horizon="7h", checkpoints=[
    Checkpoint(before="scheduled", msg_id="M0001", nth=17, ask="where", optional=True, name="where the 17th retry waits",
               question="c1 is about to fail M0001 for the 17th time, with reconsumeTimes 16: 3 + reconsumeTimes is "
                        "past the table's last level. Where is M0001 after the next step? Click the place in the "
                        "picture (or a button).",
               explain=sealed_explanation("03.past-16")),
])
past_dash.controller.seek_time(sum(levels.delay_ms(3 + k) for k in range(16)))  # the 16 delays of levels 3 … 18
past_dash

# %% [markdown]
# ### Exercise 2 — predict, then run
# The same always-failing consumer, with `max_reconsume_times=18`. At which virtual second does the message reach
# the DLQ?

# %% nbgrader={"grade": false, "grade_id": "ex03_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← your prediction
### BEGIN SOLUTION
answer_2 = 31540
### END SOLUTION

# %%
lab = failing_lab(max_reconsume_times=18)
lab.run(until="9h")
late = [e for e in lab.trace.of_kind("scheduled") if e.get("reconsume_times") >= 16]
print(table([[e.get("reconsume_times"), e.get("level"), format_duration(e.time_ms)] for e in late], ["rt", "level", "scheduled at"]))
dlq = lab.trace.of_kind("dead_lettered")[0]
print(len(lab.trace.of_kind("delivered")), "deliveries")

# %% nbgrader={"grade": true, "grade_id": "ex03_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("03.2", answer_2, dlq.time_ms // 1000)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_03_2
grading_03_2.verify("03.2", answer_2)
### END HIDDEN TESTS

# %% [markdown]
# ### The whole curve: time to the DLQ against `max_reconsume_times`
# One run per setting, each stopped at its `dead_lettered` event. Before you look: up to 16 each retry waits one
# level longer (10 s … 2 h); what shape does the curve take past 16?

# %%
from rmqlab.widgets.chart_data import time_to_dlq
from rmqlab.widgets.charts import time_to_dlq_chart

time_to_dlq_chart(time_to_dlq(failing_lab, [0, 2, 4, 8, 12, 16, 17, 18], until="1d"))

# %% [markdown]
# Up to 16 the curve bends upwards: every retry waits a longer level. Past 16 it is a straight line, 2 h per
# extra retry — the level stays capped at 18 (`maxDelayLevel`) while `reconsumeTimes` keeps counting.
#
# ## A broker crash: what becomes of the parked messages?
# The broker keeps parked messages in the CommitLog. What does a crash do to them, and to the one it has just
# delivered? The picture: "late" (level 2, 5 s) and "later" (level 3, 10 s) sent at 0; broker-a crashes at 9.999 s and
# restarts at 12 s (knobs `crash_at_ms`, `restart_at_ms`, then Rebuild). Step on: it stops after the restart and asks
# where "late" (M0001), consumed at 5 s, is next.

# %%
def crash_lab(crash_at_ms=9_999, restart_at_ms=12_000):
    """Level 2 ("late") and level 3 ("later") sent at 0; broker-a down from ``crash_at_ms`` to ``restart_at_ms``."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=lambda msgs, ctx: CONSUME_SUCCESS, name="c1")
    for body, level in (("late", 2), ("later", 3)):
        msg = Message("TopicTest", body)
        msg.delay_time_level = level
        lab.at(0, p.send, msg)
    lab.at(crash_at_ms, lab.broker_down, "broker-a")
    lab.at(restart_at_ms, lab.broker_up, "broker-a")
    return lab


def show_crash(lab):
    """Deliveries, the faults, and what the ScheduleMessageService says at its restart."""
    show_trace([e for e in lab.trace
                if e.kind.value in ("delay_delivered", "delivered", "fault") or e.actor == "schedule:broker-a"])


# %% tags=["nbval-ignore-output"]
crash_dash = Dashboard(crash_lab, knobs={"crash_at_ms": 9_999, "restart_at_ms": 12_000}, horizon="20s", checkpoints=[
    Checkpoint(before="delay_delivered", msg_id="M0001", nth=2, ask="where", optional=True, pause_before="warning",
               name="where late goes after the restart",
               question='"late" (M0001) was consumed at 5 s, before the crash. broker-a restarts at 12 s: where is '
                        'M0001 a second later? Click the place in the picture (or a button).',
               hint="What does the ScheduleMessageService read back at its restart, and when was it last written?",
               explain=sealed_explanation("03.crash")),
])
crash_dash

# %% [markdown]
# ### Exercise 3 — predict, then run
# The same two messages, but the broker crashes at **10.5 s** instead (and restarts at 12 s, as before). How many
# times in all does the consumer receive **"late"** (level 2, first delivered at 5 s)?
# Predict, then set `crash_at_ms` to 10500 in the picture, Rebuild and step through.

# %% nbgrader={"grade": false, "grade_id": "ex03_3_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_3 = ...  # ← your prediction
### BEGIN SOLUTION
answer_3 = 1
### END SOLUTION

# %%
later_crash = crash_lab(crash_at_ms=10_500).run(until="20s")
late_id = later_crash.trace.first("delay_delivered", level=2).msg_id  # "late" waits on level 2
late_deliveries = later_crash.trace.where("delivered", msg_id=late_id)

# %% nbgrader={"grade": true, "grade_id": "ex03_3", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("03.3", answer_3, len(late_deliveries))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_03_3
grading_03_3.verify("03.3", answer_3)
### END HIDDEN TESTS

# %% [markdown]
# **The evidence.** The ScheduleMessageService keeps, per level, the offset of the next parked message to look at,
# and writes that table to `delayOffset.json` only 10 s after the store starts, then every 10 s
# (`flushDelayOffsetInterval`). A crash loses what changed since the last write: at the restart `load()` reads the
# file back, `correctDelayOffset` clamps it to the `SCHEDULE_TOPIC_XXXX` queue, and the level timers start 1 s later.
# In the picture's run, "late" (level 2, 5 s) is delivered at 5 s, the broker crashes at 9.999 s — before the first
# write — and restarts at 12 s:

# %%
crashed = crash_lab().run(until="20s")
show_crash(crashed)

# %% [markdown]
# "late" is delivered twice (the same message id, a new offset on TopicTest): level 2's move past it was never
# written. "later" (10 s) fell due while the broker was down and comes 1 s after the restart. Nothing parked is
# lost; what was delivered since the last write comes again — at-least-once, so listeners must be idempotent.
# `examples/delay_offset_lost_in_crash.yaml` is the same run as a scenario file.
#
# > **Common belief vs. the source.** "A delayed message is either delivered once or lost in a crash." — the
# > ScheduleMessageService never loses a parked message (it lives in the CommitLog), but its progress is only as
# > recent as the last `persist()` of `delayOffset.json` (`ScheduleMessageService.start`, `flushDelayOffsetInterval`
# > 10 000 ms): the crash turns "delivered" back into "still parked".

# %%
show_crash(later_crash)

# %% [markdown]
# This time the restart's warning names level 3: "later" fell due at 10 s, the very millisecond of the write, and
# rmqlab runs the write first (in 4.9.7 the persist and the level's timer are two tasks of the same scheduled
# executor and either may run first), so "later" comes twice.


# %% [markdown]
# ## Key points
# - Level = 3 + reconsumeTimes, up to the last level of `messageDelayLevel`; the schedule runs in virtual time.
# - How long a message retries in all follows from `maxReconsumeTimes` and that table: add the delays up, level by
#   level, and count the deliveries, not only the retries.
# - A listener may choose the level per call (`delayLevelWhenNextConsume`): a scenario file says
#   `{return: RECONSUME_LATER, delay_level_when_next_consume: 5}` for one delivery (`examples/listener_per_call.yaml`).
# - The delay offsets reach `delayOffset.json` every 10 s: after a broker crash, compare the crash time with the last
#   write.

# %% [markdown]
# ## Your score
# Run this cell last: one line per exercise of this lab, from the checks you ran.

# %%
score("03")
