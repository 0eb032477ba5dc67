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
# [Index](README.md) · [← Back](08_broadcasting_vs_clustering.ipynb)

# %% [markdown]
# # 09 · Capstone: diagnose a misbehaving system
#
# **Goal:** read a trace, name the mechanism at fault, try the configuration fix — and see why configuration alone
# does not fix an ordered stream.

# %%
from rmqlab import ConsumeOrderlyStatus, Lab, Message
from rmqlab.course.exercises import assert_right, check, score, show_trace

SEED = 7


# %% [markdown]
# The story: an orderly payment consumer "hangs" — new payments on queue 0 stop being processed, and nothing shows
# up in any DLQ. Here is the system as deployed.

# %%
def payments(msgs, ctx):
    """A payment whose body is 'bad-card' can never succeed."""
    if msgs[0].body == "bad-card":
        return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT
    return ConsumeOrderlyStatus.SUCCESS

def deployed_lab(bodies=("p1", "p2", "bad-card", "p4", "p5"), **consumer_options):
    """One queue, an orderly consumer, five payments ``bodies`` at 1..5 s (as deployed: the third one poisoned)."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("Payments", queues=1)
    p = lab.add_producer("pay-producer")
    lab.add_consumer("pay-cg", subscribe={"Payments": "*"}, listener=payments, orderly=True, name="pay-1", **consumer_options)
    for i, body in enumerate(bodies):
        lab.at(f"{1 + i}s", p.send, Message("Payments", body))
    return lab

def deployed(**consumer_options):
    """deployed_lab run for its first 10 minutes."""
    return deployed_lab(**consumer_options).run(until="10m")

def body_of(lab):
    """Message id → body, read from broker-a's CommitLog."""
    return {m.msg_id: m.body for m in lab.brokers["broker-a"].commit_log.live()}

def succeeded(lab):
    """The bodies of the payments the listener completed, in completion order."""
    bodies = body_of(lab)
    return [bodies[e.msg_id] for e in lab.trace.of_kind("consumed") if e.get("status") == "SUCCESS"]

def judged_right(exercise_id):
    """Whether this kernel's last check of ``exercise_id`` said it is right (``assert_right`` raises if not)."""
    try:
        assert_right(exercise_id)
    except AssertionError:
        return False
    return True


# %% [markdown]
# ## A tiny look first: the first 30 seconds
# The picture: the system as deployed, its first 30 seconds. Play it and watch queue 0 of `Payments`. Its tokens carry
# message ids, in the order the payments are sent: M0001 = p1, M0002 = p2, M0003 = bad-card, M0004 = p4, M0005 = p5.

# %% tags=["nbval-ignore-output"]
from rmqlab.widgets.checkpoints import Checkpoint, sealed_explanation
from rmqlab.widgets.dashboard import Dashboard

dash = Dashboard(deployed_lab, knobs={"max_reconsume_times": -1}, horizon="30s", checkpoints=[
    Checkpoint(before="delivered", nth=4, pause_before="delivered", ask="where", optional=True, name="where bad-card waits",
               question="pay-1 has just pulled bad-card ({msg}), and its listener will return "
                        "SUSPEND_CURRENT_QUEUE_A_MOMENT for it. Where is bad-card when it is delivered again: back on "
                        "the broker's queue, still with pay-1, or counted as consumed? Click the place in the picture "
                        "(or a button).",
               hint="SUSPEND_CURRENT_QUEUE_A_MOMENT is not a send-back: look at what the orderly service's "
                    "processConsumeResult does with the message (checkReconsumeTimes, then "
                    "makeMessageToConsumeAgain) and whether the committed offset moves.",
               explain=sealed_explanation("09.bad-card-waits")),
])
dash

# %% [markdown]
# The run as a table, up to the picture's question (where bad-card waits is for you to predict there):

# %%
lab = deployed_lab().run(until="2.5s")
show_trace(lab.trace, "delivered", "suspended", fields=("queue_offset", "reconsume_times"))

# %% [markdown]
# Answer the picture's question, then play on past it and watch queue 0 of `Payments` until 30 s.
#
# ### Exercise 1 — diagnose
# After 10 minutes as deployed, which offset has the broker stored for `pay-cg` on `Payments` queue 0?

# %% nbgrader={"grade": false, "grade_id": "ex09_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← your prediction
### BEGIN SOLUTION
answer_1 = 2
### END SOLUTION

# %%
lab = deployed()
stored_offset = lab.brokers["broker-a"].consumer_offsets.get(("pay-cg", "Payments", 0))

# %% nbgrader={"grade": true, "grade_id": "ex09_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("09.1", answer_1, stored_offset)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_09_1
grading_09_1.verify("09.1", answer_1)
### END HIDDEN TESTS

# %%
show_trace(lab.trace, "offset_updated", "offset_persisted", "dead_lettered", fields=("queue", "offset", "topic"))
print("succeeded:", succeeded(lab))

# %% [markdown]
# What the picture showed past its question: the same message id comes back on one queue, again and again: an orderly
# consumer's local retry (lab 07a). Nothing else on the queue moves. The orderly commit is the last offset of a
# successful batch + 1 (`ProcessQueue.commit`): the table shows where it
# stopped, and the payments behind `bad-card` wait there forever. With the default max reconsume times (−1 →
# `Integer.MAX_VALUE` for orderly consumers) nothing ever reaches `%DLQ%pay-cg`.
#
# ### Exercise 2 — try the configuration fix
# Choose a `max_reconsume_times` so that `bad-card` gets **6 deliveries** and then goes to the DLQ.

# %% nbgrader={"grade": false, "grade_id": "ex09_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← your prediction
### BEGIN SOLUTION
answer_2 = 5
### END SOLUTION

# %%
def deliveries_of_bad_card(max_reconsume_times):
    """Deliveries of bad-card in 10 minutes with the given max."""
    run = deployed(max_reconsume_times=max_reconsume_times)
    bad_id = next(msg_id for msg_id, body in body_of(run).items() if body == "bad-card")
    return len([e for e in run.trace.of_kind("delivered") if e.msg_id == bad_id])


# %%
if answer_2 is not ...:
    print("your setting gives", deliveries_of_bad_card(answer_2), "deliveries")
needed = next(n for n in range(20) if deliveries_of_bad_card(n) == 6)

# %% nbgrader={"grade": true, "grade_id": "ex09_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("09.2", answer_2, needed)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_09_2
grading_09_2.verify("09.2", answer_2)
### END HIDDEN TESTS

# %% [markdown]
# ## What the fix does to the order
# With that setting the queue moves on. But these payments were sent to one queue *because their order matters*.
# The picture runs with your setting from Exercise 2 (`answer_2`, once its check says it is right), stopped when
# `bad-card` is first delivered. Play on: it stops to ask when pay-1 gives up on `bad-card` — before the queue moves
# on, which is Exercise 3's question.

# %% tags=["nbval-ignore-output", "needs-answer"]
fixed_dash = None  # the picture needs Exercise 2's setting: built from your answer once it is right, never before
if judged_right("09.2"):
    fixed_dash = Dashboard(deployed_lab, knobs={"max_reconsume_times": answer_2}, horizon="1m", checkpoints=[
        Checkpoint(before="send_back", ask="when", optional=True, name="when pay-1 gives up on bad-card",
                   question="With the setting you found above, when does pay-1 stop retrying bad-card ({msg}) and "
                            "hand it to the broker? Pick the time.",
                   explain=sealed_explanation("09.gives-up"),
                   hint="An orderly consumer retries a suspended message itself, once per "
                        "suspendCurrentQueueTimeMillis, until its reconsumeTimes reaches the max: count bad-card's "
                        "deliveries."),
    ])
    fixed_dash.controller.seek_time("3s")
else:
    print("Answer Exercise 2 first: this picture runs with your setting once its check says Right.\n"
          "Then run this cell again.")
fixed_dash

# %% [markdown]
# ### Exercise 3 — predict, then run
# The picture plays the deployed stream. Another day's stream, with the setting you found in exercise 2: `p1`,
# `bad-card`, `p3`, `bad-card`, `p5` (two payments with a bad card), sent at 1..5 s to the same queue. List the
# payments the listener completes in the first minute, in the order it completes them. Answer like `["p1", "p2"]`.

# %% nbgrader={"grade": false, "grade_id": "ex09_3_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_3 = ...  # ← your prediction
### BEGIN SOLUTION
answer_3 = ["p1", "p3", "p5"]
### END SOLUTION

# %%
another_day = deployed_lab(("p1", "bad-card", "p3", "bad-card", "p5"), max_reconsume_times=needed).run(until="1m")
done = succeeded(another_day)
fixed = deployed_lab(max_reconsume_times=needed).run(until="1m")

# %% nbgrader={"grade": true, "grade_id": "ex09_3", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("09.3", answer_3, done)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_09_3
grading_09_3.verify("09.3", answer_3)
### END HIDDEN TESTS

# %%
show_trace(fixed.trace, "consumed", "send_back", "dead_lettered", fields=("queue_offset", "status", "topic"))

# %% [markdown]
# Compare the order in which the listener completed the payments with the order they were sent in, and where the
# third one went. If they belong to the same account and one overtook another, the stream was processed out of
# order: a refund before the charge it refunds, a balance computed without a payment. Re-sending
# the dead letter later (lab 04) makes it *last*, not third.
#
# So the fix is not only configuration. The configuration (`max_reconsume_times`) bounds how long one message can
# block a queue; the code must decide what a payment that can never succeed *means* — record it as declined and
# return `SUCCESS`, or hold back the later payments of the same key until someone resolves it — and someone must
# watch `%DLQ%pay-cg`, re-sending before the CommitLog file holding the message is deleted (`fileReservedTime`,
# 72 h by default, counted per file).
#
# > **Common belief vs. the source.** "A DLQ keeps an ordered stream safe." — `ConsumeMessageOrderlyService.checkReconsumeTimes`
# > sends the message to `%RETRY%` (and the broker on to `%DLQ%`) and the queue commits past it: the rest of the
# > stream continues without it.

# %% [markdown]
# ### The whole run in two charts
# Before you look: as deployed, what do the cumulative *deliveries* and *consumed* counts do after 3 s? And with
# the setting you found, how many deliveries does each payment get in 10 minutes, and how does each end?

# %%
from rmqlab.widgets.charts import deliveries_chart, summary_chart

summary_chart(deployed(), log_y=True, title="As deployed: deliveries climb, nothing more is consumed")

# %%
fixed_run = deployed(max_reconsume_times=needed)
deliveries_chart(fixed_run, labels=body_of(fixed_run), title="With the setting of Exercise 2: deliveries per payment")

# %% [markdown]
# As deployed, deliveries climb by one a second (598 in 10 minutes; the count axis is logarithmic) while
# *consumed* stays at 2: the signature of a blocked orderly queue. With the fix, bad-card gets its 6 deliveries and
# reaches the DLQ; the chart shows when each payment behind it is consumed.
#
# ## Key points
# - Read the trace: the same message id at a fixed 1 s interval on one queue = an orderly local retry loop; the
#   committed offset confirms it.
# - `max_reconsume_times` unblocks the queue; ask what that costs the order of the stream.
# - The real fix is in the listener (what a poison message means for its key) plus monitoring of the DLQ.

# %% [markdown]
# ## Your score
# Run this cell last: one line per exercise of this lab, from the checks you ran.

# %%
score("09")
