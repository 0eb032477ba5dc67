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
# [目录](README.md) · [← 上一个](08_broadcasting_vs_clustering.ipynb)

# %% [markdown]
# # 09 · 综合练习：诊断一个出了毛病的系统
#
# **目标：** 读 trace，说出出问题的机制，试一试靠配置来修——再看看为什么单靠配置修不好一条顺序消息流。

# %%
from rmqlab import ConsumeOrderlyStatus, Lab, Message, set_language
from rmqlab.course.exercises import assert_right, check, score, show_trace

set_language("zh")  # 仪表盘的按钮、图例和每一步的说明都用简体中文
SEED = 7


# %% [markdown]
# 故事是这样的：一个顺序消费的支付 Consumer“卡住了”——队列
# 0 上的新支付不再被处理，任何死信队列里也什么都没有。下面是部署时的系统。

# %%
def payments(msgs, ctx):
    """消息体为“bad-card”的支付永远不会成功。"""
    if msgs[0].body == "bad-card":
        return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT
    return ConsumeOrderlyStatus.SUCCESS

def deployed_lab(bodies=("p1", "p2", "bad-card", "p4", "p5"), **consumer_options):
    """一个队列，一个顺序消费的 Consumer，在第 1..5 s 发送五笔支付 ``bodies``（部署时：第三笔是“毒消息”）。"""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("Payments", queues=1)
    p = lab.add_producer("pay-producer")
    lab.add_consumer("pay-cg", subscribe={"Payments": "*"}, listener=payments, orderly=True, name="pay-1", **consumer_options)
    for i, body in enumerate(bodies):
        lab.at(f"{1 + i}s", p.send, Message("Payments", body))
    return lab

def deployed(**consumer_options):
    """把 deployed_lab 运行前 10 分钟。"""
    return deployed_lab(**consumer_options).run(until="10m")

def body_of(lab):
    """消息 ID → 消息体，从 broker-a 的 CommitLog 读出。"""
    return {m.msg_id: m.body for m in lab.brokers["broker-a"].commit_log.live()}

def succeeded(lab):
    """监听器处理成功的支付的消息体，按完成顺序排列。"""
    bodies = body_of(lab)
    return [bodies[e.msg_id] for e in lab.trace.of_kind("consumed") if e.get("status") == "SUCCESS"]

def judged_right(exercise_id):
    """本内核中 ``exercise_id`` 的最近一次检查是否答对（没答对时 ``assert_right`` 抛出异常）。"""
    try:
        assert_right(exercise_id)
    except AssertionError:
        return False
    return True


# %% [markdown]
# ## 先小小地看一眼：前 30 秒
# 图：部署时的系统，它的前 30 秒。播放它，盯住 `Payments` 的队列 0。图中的令牌标的是消息 ID，按支付发送的顺序：
# M0001 = p1，M0002 = p2，M0003 = bad-card，M0004 = p4，M0005 = p5。

# %% tags=["nbval-ignore-output"]
from rmqlab.widgets.checkpoints import Checkpoint, sealed_explanation
from rmqlab.widgets.dashboard import Dashboard

dash = Dashboard(deployed_lab, knobs={"max_reconsume_times": -1}, horizon="30s", checkpoints=[
    Checkpoint(before="delivered", nth=4, pause_before="delivered", ask="where", optional=True, name="bad-card 在哪里等待",
               question="pay-1 刚拉取了 bad-card（{msg}），它的监听器将对它返回 SUSPEND_CURRENT_QUEUE_A_MOMENT。bad-card "
                        "再次被投递时在哪里：回到 Broker 的队列上，仍在 pay-1 手里，还是算作已消费？在图中点击那个位置"
                        "（或按钮）。",
               hint="SUSPEND_CURRENT_QUEUE_A_MOMENT 不是回传：看看顺序消费服务的 processConsumeResult 怎么处理这条"
                    "消息（checkReconsumeTimes，然后 makeMessageToConsumeAgain），以及消费位点有没有前进。",
               explain=sealed_explanation("09.bad-card-waits")),
])
dash

# %% [markdown]
# 用表格看这次运行，到图中提问的那一刻为止（bad-card 在哪里等待，由你在图上预测）：

# %%
lab = deployed_lab().run(until="2.5s")
show_trace(lab.trace, "delivered", "suspended", fields=("queue_offset", "reconsume_times"))

# %% [markdown]
# 先回答图中的问题，再越过它继续播放，看 `Payments` 的队列 0，直到 30 s。
#
# ### 练习 1 — 诊断
# 按部署时的配置运行 10 分钟后，Broker 为 `pay-cg` 在 `Payments` 队列 0 上存储的消费位点是哪个 offset？

# %% nbgrader={"grade": false, "grade_id": "ex09_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← 你的预测
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
print("消费成功的：", succeeded(lab))

# %% [markdown]
# 图中越过问题之后显示的是：同一个消息 ID 在同一个队列上一次又一次地回来：这是顺序消费 Consumer 的本地重试（实验 07a）。队列上的其他消息都动不了。顺序消费提交的是一批成功消息的最后一个 offset + 1（`ProcessQueue.commit`）：表格显示了它停在哪里，排在 `bad-card`
# 后面的支付永远在那里等着。在默认的最大重试次数下（−1 → 顺序消费时为 `Integer.MAX_VALUE`），没有任何消息会进入
# `%DLQ%pay-cg`。
#
# ### 练习 2 — 试试靠配置来修
# 选一个 `max_reconsume_times`，让 `bad-card` 被投递 **6 次**，然后进入死信队列。

# %% nbgrader={"grade": false, "grade_id": "ex09_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_2 = 5
### END SOLUTION

# %%
def deliveries_of_bad_card(max_reconsume_times):
    """在给定的最大重试次数下，bad-card 在 10 分钟内被投递的次数。"""
    run = deployed(max_reconsume_times=max_reconsume_times)
    bad_id = next(msg_id for msg_id, body in body_of(run).items() if body == "bad-card")
    return len([e for e in run.trace.of_kind("delivered") if e.msg_id == bad_id])


# %%
if answer_2 is not ...:
    print("你的设置下投递次数为", deliveries_of_bad_card(answer_2), "次")
needed = next(n for n in range(20) if deliveries_of_bad_card(n) == 6)

# %% nbgrader={"grade": true, "grade_id": "ex09_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("09.2", answer_2, needed)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_09_2
grading_09_2.verify("09.2", answer_2)
### END HIDDEN TESTS

# %% [markdown]
# ## 这个修法对顺序做了什么
# 有了这个设置，队列继续往前走了。可是这些支付之所以发到同一个队列，**正是因为它们的顺序很重要**。下面的图用你在练习 2 中的设置（`answer_2`，在它的检查说答对之后）运行，停在 `bad-card` 第一次被投递时。继续播放：它会停下来问 pay-1 何时放弃
# `bad-card`——在队列继续往前走之前，那正是练习 3 的问题。

# %% tags=["nbval-ignore-output", "needs-answer"]
fixed_dash = None  # 这张图需要练习 2 的设置：你的答案答对之后才用它来画，之前绝不画
if judged_right("09.2"):
    fixed_dash = Dashboard(deployed_lab, knobs={"max_reconsume_times": answer_2}, horizon="1m", checkpoints=[
        Checkpoint(before="send_back", ask="when", optional=True, name="pay-1 何时放弃 bad-card",
                   question="用你在上面找到的设置，pay-1 何时不再重试 bad-card（{msg}），把它交给 Broker？选择时间。",
                   explain=sealed_explanation("09.gives-up"),
                   hint="顺序消费的 Consumer 自己重试被挂起的消息，每隔 suspendCurrentQueueTimeMillis 一次，直到 "
                        "reconsumeTimes 达到最大重试次数：数一数 bad-card 被投递了几次。"),
    ])
    fixed_dash.controller.seek_time("3s")
else:
    print("先完成练习 2：它的检查显示“正确”之后，这张图才用你的设置运行。\n然后再运行这个单元格。")
fixed_dash

# %% [markdown]
# ### 练习 3 — 先预测，再运行
# 图中放的是部署时的消息流。换一天的消息流，用你在练习 2 中找到的设置：`p1`、`bad-card`、`p3`、`bad-card`、`p5`（两笔支付的卡有问题），在第 1..5 s 发到同一个队列。列出监听器在第一分钟内处理成功的支付，按完成的顺序排列。按
# `["p1", "p2"]` 的格式回答。

# %% nbgrader={"grade": false, "grade_id": "ex09_3_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_3 = ...  # ← 你的预测
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
# 把监听器完成这些支付的顺序和它们被发送的顺序比一比，再看看第三笔去了哪里。如果它们属于同一个账户，而其中一笔越过了另一笔，这条消息流就被乱序处理了：退款先于它所退的那笔扣款，余额的计算漏掉了一笔支付。事后再把死信重新发送（实验
# 04）会让它排在**最后**，而不是第三。
#
# 所以修法不只是配置。配置（`max_reconsume_times`）限定了一条消息能把队列堵多久；代码必须决定一笔永远不会成功的支付**意味着什么**——把它记为已拒绝并返回
# `SUCCESS`，或者把同一个 Key 的后续支付扣住，直到有人处理——而且必须有人盯着 `%DLQ%pay-cg`，在存放这条消息的 CommitLog
# 文件被删除之前（`fileReservedTime`，默认 72 h，按文件计算）重新发送它。
#
# > **常见说法 vs. 源码。** “死信队列能保证顺序消息流的安全。”——`ConsumeMessageOrderlyService.checkReconsumeTimes`
# > 把消息发往 `%RETRY%`（再由 Broker 转入 `%DLQ%`），队列则越过它提交：消息流的其余部分没有它照样继续。

# %% [markdown]
# ### 用两张图表看整次运行
# 看之前先想：按部署时的配置，累计的**投递**数和**消费**数在 3 s 之后会怎样？在你找到的设置下，每笔支付在
# 10 分钟内被投递几次，各自又是怎么结束的？

# %%
from rmqlab.widgets.charts import deliveries_chart, summary_chart

summary_chart(deployed(), log_y=True, title="按部署时的配置：投递数一路上涨，再没有消息被消费")

# %%
fixed_run = deployed(max_reconsume_times=needed)
deliveries_chart(fixed_run, labels=body_of(fixed_run), title="用练习 2 的设置：每笔支付的投递次数")

# %% [markdown]
# 按部署时的配置，投递数每秒加一（10 分钟 598 次；计数轴是对数刻度），而**已消费**停在
# 2：这就是顺序队列被堵住的特征。修了之后，bad-card 被投递 6 次后进入死信队列；图表显示了排在它后面的每笔支付何时被消费。
#
# ## 要点
# - 读 trace：同一个消息 ID 在同一个队列上以固定的 1 s
#   间隔出现 = 顺序消费的本地重试循环；已提交的消费位点证实了这一点。
# - `max_reconsume_times` 能让队列恢复流动；问问自己，这会让消息流的顺序付出什么代价。
# - 真正的修法在监听器里（一条毒消息对它的 Key 意味着什么），再加上对死信队列的监控。

# %% [markdown]
# ## 你的得分
# 最后运行这个单元：本实验的每个练习一行，来自你运行过的检查。

# %%
score("09")
