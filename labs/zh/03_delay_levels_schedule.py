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
# [目录](README.md) · [← 上一个](02b_send_back_failures.ipynb) · [下一个 →](04_dead_letter_queue.ipynb)

# %% [markdown]
# # 03 · 延迟级别与 ScheduleMessageService
#
# **目标：** 推导出完整的 16 次重试时间表，并看看超过 16 次重试时会发生什么。源码：`store/.../config/MessageStoreConfig.java`（`messageDelayLevel`）、`store/.../schedule/ScheduleMessageService.java`、
# `store/.../CommitLog.java`（级别上限）。

# %%
from rmqlab import ConsumeConcurrentlyStatus, ConsumeOrderlyStatus, Lab, Message, after, format_duration, set_language
from rmqlab.course.exercises import assert_right, check, score, show_trace, table

set_language("zh")  # 仪表盘的按钮、图例和每一步的说明都用简体中文
CONSUME_SUCCESS = ConsumeConcurrentlyStatus.CONSUME_SUCCESS
RECONSUME_LATER = ConsumeConcurrentlyStatus.RECONSUME_LATER
SEED = 7

# %% [markdown]
# ## 一次小运行：前两次重试

# %%
def always_fails(msgs, ctx):
    """永远不成功。"""
    return RECONSUME_LATER

def failing_lab(**consumer_options):
    """一个 Broker、一个队列、一个总是消费失败的 Consumer；t = 0 时发送一条消息。"""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=always_fails, name="c1", **consumer_options)
    lab.at(0, p.send, Message("TopicTest", "poison"))
    return lab


# %% [markdown]
# 图：把 `failing_lab` 放进一个带 `max_reconsume_times` 参数的 `Dashboard`（改参数后点“重建”）。播放它，看“重试时间线”标签页：一条泳道，每次投递、每次等待。它会停下来问三次：第一次重试在哪里等待，第二次重试何时到期，消息何时进入死信队列。练习 1 再问同一件事，换成一个允许更少重试的 Consumer。

# %% tags=["nbval-ignore-output"]
from rmqlab.widgets.checkpoints import Checkpoint, sealed_explanation
from rmqlab.widgets.dashboard import Dashboard

dash = Dashboard(failing_lab, knobs={"max_reconsume_times": -1}, horizon="5h", tab="Retry timeline", checkpoints=[
    Checkpoint(before="scheduled", ask="where", optional=True, name="第一次重试的延迟级别", explain=sealed_explanation("03.level"),
               question="c1 的监听器每次投递都消费失败。下一步之后 {msg} 在哪里？请在图上点击那个位置（或点按钮）。"),
    Checkpoint(before="delay_delivered", nth=2, ask="when", optional=True, name="第二次重试何时到期", explain=sealed_explanation("03.second-due"),
               question="c1 第二次消费 {msg} 失败，Broker 又把新副本放进了一个延迟级别。{msg} 什么时候离开这个级别？请选时间。"),
    Checkpoint(before="dead_lettered", ask="when", optional=True, name="消息何时进入死信队列", explain=sealed_explanation("03.dlq-time"),
               question="c1 一直消费 {msg} 失败。Broker 什么时候把它写进死信队列？"),
])
dash

# %% [markdown]
# ### 图背后的延迟级别
# 图中的 `SCHEDULE_TOPIC_XXXX` 方框把每个副本暂存在 Broker 的某个延迟级别上（每个级别一个队列）：
# `messageDelayLevel = "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h"`；级别 = 位置 + 1。

# %%
from rmqlab import DelayLevelTable

levels = DelayLevelTable()
print(table([[lv, format_duration(levels.delay_ms(lv))] for lv in range(1, levels.max_level + 1)], ["级别", "延迟"]))


# %% [markdown]
# 一条消费失败的消息，若已存储的 `reconsumeTimes` = k，就会以级别 **3 + k** 重新存储（Broker 的
# `SendMessageProcessor`），暂存在 `SCHEDULE_TOPIC_XXXX` 的队列 `level − 1` 中，到期后移入 `%RETRY%<group>`（重试队列）。

# %%
lab = failing_lab()
lab.run(until="45s")
show_trace(lab.trace, "delivered", "scheduled", "delay_delivered")

# %% [markdown]
# > **常见说法 vs. 源码。** “重试间隔是 1 s、5 s、10 s、30 s……”——第一次重试用的是级别 3（10 s）：
# > `3 + reconsumeTimes`。重试只有在监听器设置了 `delayLevelWhenNextConsume` 时才会用到级别 1–2（生产者自己发送的延迟消息可以用任何级别）。

# %% [markdown]
# ### 练习 1 — 先预测，再运行
# 同样一直失败的监听器，但 c1 设置 `max_reconsume_times=5`（图上的参数；上面的图跑的是默认值 −1 → 并发消费时为 16）。消息在第几秒（虚拟时间）进入死信队列？

# %% nbgrader={"grade": false, "grade_id": "ex03_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_1 = 400
### END SOLUTION

# %%
lab = failing_lab(max_reconsume_times=5)
lab.run(until="1h")
deliveries = lab.trace.of_kind("delivered")
print(table([[d.get("reconsume_times"), d.time_ms // 1000] for d in deliveries], ["reconsume_times", "投递时间 (s)"]))
dlq = lab.trace.of_kind("dead_lettered")[0]

# %% nbgrader={"grade": true, "grade_id": "ex03_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("03.1", answer_1, dlq.time_ms // 1000)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_03_1
grading_03_1.verify("03.1", answer_1)
### END HIDDEN TESTS

# %%
print(len(deliveries), "次投递；死信副本的 reconsume_times =", dlq.get("reconsume_times"))

# %% [markdown]
# ## 超过 16 次：`max_reconsume_times=18`
# Consumer 可以允许超过 16 次重试。上面的级别表在最后一级之后就没有级别了。下面是 `max_reconsume_times=18` 的图，停在第 16 次重试的回传处。它只跑到 7 h：足以看到第 17、18 次重试在哪一级等待，但看不到这次运行的结尾——结尾是下面的练习。

# %% tags=["nbval-ignore-output"]
past_dash = Dashboard(failing_lab, knobs={"max_reconsume_times": 18}, horizon="7h", checkpoints=[
    Checkpoint(before="scheduled", msg_id="M0001", nth=17, ask="where", optional=True, name="第 17 次重试等在哪里",
               question="c1 即将第 17 次消费 M0001 失败，reconsumeTimes 为 16：3 + reconsumeTimes 已超出表的最后一级。"
                        "下一步之后 M0001 在哪里？请在图上点击那个位置（或点按钮）。",
               explain=sealed_explanation("03.past-16")),
])
past_dash.controller.seek_time(sum(levels.delay_ms(3 + k) for k in range(16)))  # 级别 3 … 18 的 16 个延迟
past_dash

# %% [markdown]
# ### 练习 2 — 先预测，再运行
# 同一个总是消费失败的 Consumer，`max_reconsume_times=18`。消息在第几秒（虚拟时间）进入死信队列？

# %% nbgrader={"grade": false, "grade_id": "ex03_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_2 = 31540
### END SOLUTION

# %%
lab = failing_lab(max_reconsume_times=18)
lab.run(until="9h")
late = [e for e in lab.trace.of_kind("scheduled") if e.get("reconsume_times") >= 16]
print(table([[e.get("reconsume_times"), e.get("level"), format_duration(e.time_ms)] for e in late], ["reconsume_times", "级别", "调度时间"]))
dlq = lab.trace.of_kind("dead_lettered")[0]
print(len(lab.trace.of_kind("delivered")), "次投递")

# %% nbgrader={"grade": true, "grade_id": "ex03_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("03.2", answer_2, dlq.time_ms // 1000)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_03_2
grading_03_2.verify("03.2", answer_2)
### END HIDDEN TESTS

# %% [markdown]
# ### 完整曲线：进入死信队列的时间 vs. `max_reconsume_times`
# 每个设置运行一次，各自停在它的 `dead_lettered` 事件处。看之前先想：16 次以内，每次重试都比上一次多等一个级别（10 s … 2 h）；超过 16 次后，曲线是什么形状？

# %%
from rmqlab.widgets.chart_data import time_to_dlq
from rmqlab.widgets.charts import time_to_dlq_chart

time_to_dlq_chart(time_to_dlq(failing_lab, [0, 2, 4, 8, 12, 16, 17, 18], until="1d"))

# %% [markdown]
# 16 次以内曲线向上弯：每次重试等待的级别都更长。超过 16 次后是一条直线，每多一次重试多 2 h——级别封顶在 18
# （`maxDelayLevel`），而 `reconsumeTimes` 继续计数。
#
# ## Broker 崩溃：暂存的消息会怎样？
# Broker 把暂存的消息保存在 CommitLog 里。崩溃对它们、对刚刚投递出去的那条消息有什么影响？图：“late”（级别 2，5 s）和“later”（级别 3，10 s）在 0 时发送；broker-a 在 9.999 s 崩溃，在 12 s 重启（参数 `crash_at_ms`、`restart_at_ms`，改后点“重建”）。往前单步：它停在重启之后，问 5 s 时已被消费的“late”（M0001）接下来在哪里。

# %%
def crash_lab(crash_at_ms=9_999, restart_at_ms=12_000):
    """级别 2（“late”）和级别 3（“later”）在 0 时发送；broker-a 从 ``crash_at_ms`` 到 ``restart_at_ms`` 宕机。"""
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
    """投递、故障，以及 ScheduleMessageService 在重启时说了什么。"""
    show_trace([e for e in lab.trace
                if e.kind.value in ("delay_delivered", "delivered", "fault") or e.actor == "schedule:broker-a"])


# %% tags=["nbval-ignore-output"]
crash_dash = Dashboard(crash_lab, knobs={"crash_at_ms": 9_999, "restart_at_ms": 12_000}, horizon="20s", checkpoints=[
    Checkpoint(before="delay_delivered", msg_id="M0001", nth=2, ask="where", optional=True, pause_before="warning",
               name="重启后 late 去哪里",
               question="“late”（M0001）在 5 s 已被消费，那时还没崩溃。broker-a 在 12 s 重启：一秒之后 M0001 在哪里？"
                        "请在图上点击那个位置（或点按钮）。",
               hint="ScheduleMessageService 重启时读回了什么？它上一次是什么时候写入的？",
               explain=sealed_explanation("03.crash")),
])
crash_dash

# %% [markdown]
# ### 练习 3 — 先预测，再运行
# 还是这两条消息，但 Broker 改在 **10.5 s** 崩溃（和之前一样在 12 s 重启）。Consumer 一共收到 **“late”**
# （级别 2，第一次在 5 s 投递）几次？先预测，再在图中把 `crash_at_ms` 设为 10500，点“重建”并单步走一遍。

# %% nbgrader={"grade": false, "grade_id": "ex03_3_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_3 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_3 = 1
### END SOLUTION

# %%
later_crash = crash_lab(crash_at_ms=10_500).run(until="20s")
late_id = later_crash.trace.first("delay_delivered", level=2).msg_id  # “late”在级别 2 上等待
late_deliveries = later_crash.trace.where("delivered", msg_id=late_id)

# %% nbgrader={"grade": true, "grade_id": "ex03_3", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("03.3", answer_3, len(late_deliveries))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_03_3
grading_03_3.verify("03.3", answer_3)
### END HIDDEN TESTS

# %% [markdown]
# **证据。** ScheduleMessageService 为每个级别记住下一条要查看的暂存消息的位点，并且只在存储启动 10 s 后、之后每
# 10 s 把这张表写入 `delayOffset.json`（`flushDelayOffsetInterval`）。崩溃会丢掉上次写入后的变化：重启时 `load()`
# 把文件读回来，`correctDelayOffset` 把它限制在 `SCHEDULE_TOPIC_XXXX` 队列的范围内，各级别的定时器在 1 s 后启动。在图上的这次运行里，“late”（级别 2，5 s）在 5 s 投递，Broker 在 9.999 s 崩溃——在第一次写入之前——并在 12 s 重启：

# %%
crashed = crash_lab().run(until="20s")
show_crash(crashed)

# %% [markdown]
# “late”被投递了两次（同一个消息 ID，在 TopicTest 上是新的位点）：级别 2 越过它的那次推进从未被写入。“later”（10 s）在 Broker 宕机期间到期，在重启 1 s 后到来。暂存的消息一条都没丢；上次写入之后投递过的会再来一次——至少一次（at-least-once），所以监听器必须幂等。`examples/delay_offset_lost_in_crash.yaml` 是同一次运行的场景文件。
#
# > **常见说法 vs. 源码。** “延迟消息要么只投递一次，要么在崩溃中丢失。”——ScheduleMessageService 从不丢失暂存的消息（它在 CommitLog 里），但它的进度只和最后一次 `persist()` 写入 `delayOffset.json` 一样新（`ScheduleMessageService.start`，`flushDelayOffsetInterval` 10 000 ms）：崩溃把“已投递”变回了“仍在暂存”。

# %%
show_crash(later_crash)

# %% [markdown]
# 这一次，重启时的警告提到的是级别 3：“later”在 10 s 到期，恰好是写入的那一毫秒，而 rmqlab 先执行写入（在 4.9.7
# 里，persist 和该级别的定时器是同一个定时线程池里的两个任务，谁先运行都有可能），所以“later”来了两次。


# %% [markdown]
# ## 要点
# - 级别 = 3 + reconsumeTimes，最高到 `messageDelayLevel` 的最后一级；时间表在虚拟时间里运行。
# - 一条消息总共重试多久，取决于 `maxReconsumeTimes` 和这张表：逐级把延迟加起来，并且数投递次数，而不只是重试次数。
# - 监听器可以每次调用选择级别（`delayLevelWhenNextConsume`）：场景文件里一次投递写作
#   `{return: RECONSUME_LATER, delay_level_when_next_consume: 5}`（`examples/listener_per_call.yaml`）。
# - 延迟位点每 10 s 写入一次 `delayOffset.json`：Broker 崩溃之后，把崩溃时间和上次写入的时间比一比。

# %% [markdown]
# ## 你的得分
# 最后运行这个单元：本实验的每个练习一行，来自你运行过的检查。

# %%
score("03")
