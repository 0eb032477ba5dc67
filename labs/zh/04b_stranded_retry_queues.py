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
# [目录](README.md) · [← 上一个](04_dead_letter_queue.ipynb) · [下一个 →](05_offsets_process_queue.ipynb)

# %% [markdown]
# # 04b · 搁浅的重试消息：在运行中的消费组上调大 `retryQueueNums`
#
# **目标：** 看清为什么事后才调大的重试队列数，会让重试消息对所有 Consumer 都不可见，以及运维人员怎样把它们放出来。源码：`broker/.../processor/SendMessageProcessor.java`（`asyncConsumerSendMsgBack`）、
# `broker/.../processor/ClientManageProcessor.java`（`heartBeat`）、`broker/.../topic/TopicConfigManager.java`
# （`createTopicInSendMessageBackMethod`）、`client/.../impl/consumer/RebalanceService.java`。

# %%
from rmqlab import ConsumeConcurrentlyStatus, Lab, Message, check_invariants, set_language
from rmqlab.course.exercises import assert_right, check, score, show_trace, table

set_language("zh")  # 仪表盘的按钮、图例和每一步的说明都用简体中文
CONSUME_SUCCESS = ConsumeConcurrentlyStatus.CONSUME_SUCCESS
RECONSUME_LATER = ConsumeConcurrentlyStatus.RECONSUME_LATER
SEED = 7


# %%
def fails_once(msgs, ctx):
    """第一次投递失败，重试时成功。"""
    return RECONSUME_LATER if msgs[0].reconsume_times == 0 else CONSUME_SUCCESS


def raised_late(update_topic_at_s=0, retry_queue_nums_at_start=1):
    """消费组 cg 的 c1 启动；运维人员在 0.5 s 把 cg 的 retryQueueNums 从 1（或 c1 启动前设置的
    ``retry_queue_nums_at_start``）调到 4；四条消息在 1 s 各失败一次。

    ``update_topic_at_s`` > 0：运维人员还在那一秒运行 ``updateTopic -t %RETRY%cg -r 4 -w 4``。
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
# ## 一次小运行：四条消息各失败一次
# 图：c1 启动，运维人员把 `retryQueueNums` 调到 4，四条消息在 1 s 各失败一次。单步往前，直到这些重试的 10 s 延迟结束：它停在那里，问一个关于 M0001 的问题。

# %% tags=["nbval-ignore-output"]
from rmqlab.widgets.checkpoints import Checkpoint, sealed_explanation
from rmqlab.widgets.dashboard import Dashboard

def pulls_where_m0001_is(trace, snap):
    """c1 是否持有 M0001 最后存入的那个队列的 ProcessQueue。"""
    stored = [e for e in trace if e.kind.value == "stored" and e.msg_id == "M0001"][-1]
    where = f"{stored.data['topic']}@{stored.actor}:{stored.data['queue_id']}"
    return any(pq.queue == where for c in snap.consumers if c.client_id == "c1" for pq in c.process_queues)


dash = Dashboard(raised_late, horizon="61s", checkpoints=[
    Checkpoint(before="delivered", msg_id="M0003", nth=2, ask="whether", optional=True, holds=pulls_where_m0001_is,
               name="c1 是否拉取 M0001 所在的队列",
               question="10 s 到了：每条重试现在都在它回传时随机抽到的 %RETRY%cg 队列里（random % retryQueueNums，"
                        "现在是 4），c1 马上要再次消费 M0003。在图里找到 M0001。c1 会拉取 M0001 所在的队列吗？",
               hint="c1 只拉取重平衡分给它的队列，就是它通道里画出的那些；重平衡分配的是路由列出的队列。路由列出了 "
                    "%RETRY%cg 的哪些队列？",
               explain=sealed_explanation("04b.retry-lands")),
])
dash


# %% [markdown]
# 来自 Broker 的两个事实：消费组的第一个 Consumer 发送心跳时（`ClientManageProcessor`），Broker 创建
# `%RETRY%<group>`，队列数为 `retryQueueNums`；每次回传都把重试消息放进这个 Topic 的第 `random % retryQueueNums` 个队列（`asyncConsumerSendMsgBack`）。这里运维人员在 c1 启动*之后*把 cg 的 `retryQueueNums` 从 1 调到 4
# （`mqadmin updateSubGroup -g cg -q 4`），想把重试消息分散到四个队列上。
#
# ### 练习 1 — 先预测，再运行
# 换一段消费组的历史：运维人员在 c1 第一次启动**之前**就把 cg 的 `retryQueueNums` 设成了 **2**（`mqadmin updateSubGroup -g
# cg -q 2`），然后和上面一样在 0.5 s 调到 4。这次更新之后，`%RETRY%cg` 的路由列出了几个读队列？

# %% nbgrader={"grade": false, "grade_id": "ex04b_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_1 = 2
### END SOLUTION

# %%
other = raised_late(retry_queue_nums_at_start=2)
other.run(until="61s")
route = other.namesrv.route("%RETRY%cg")
show_trace(other.trace, "admin", "stored", fields=("command", "retry_queue_nums", "topic", "queue_id"))
lab = raised_late()  # 再跑一遍图中的运行：c1 启动时 retryQueueNums 是 1
lab.run(until="61s")
print("%RETRY%cg 的路由：", [(q.broker_name, q.read_queue_nums, q.write_queue_nums) for q in route.queue_datas])

# %% nbgrader={"grade": true, "grade_id": "ex04b_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("04b.1", answer_1, route.queue_datas[0].read_queue_nums)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_04b_1
grading_04b_1.verify("04b.1", answer_1)
### END HIDDEN TESTS

# %% [markdown]
# 各次回传抽到了队列 0–3（每次都是随机抽取），Broker 把每条重试消息都存进了指定的队列：回传路径从不拿队列 ID 和
# Topic 的队列数比较。只有队列 0 里的重试消息能被投递；其余的待在没有任何路由列出的队列里，所以没有 Consumer 会去拉取它们。不变量检查器把它们叫作*搁浅*（stranded）：

# %%
report = check_invariants(lab)
print(table([[msg, fate] for (_, msg), fate in sorted(report.fates.items())], ["message", "fate at 61 s"]))
print(report.violations[0].detail)

# %% [markdown]
# ## 运维人员的修复：updateTopic
# `mqadmin updateTopic -t %RETRY%cg -r 4 -w 4` 让路由列出这四个队列。图：同一次运行，运维人员在 62 s 执行 `updateTopic`（参数 `update_topic_at_s`）。播放它：在搁浅的 M0001 被投递之前，图会停下来问那是什么时候（练习 2 的问题）。

# %% tags=["nbval-ignore-output"]
freed_dash = Dashboard(raised_late, knobs={"update_topic_at_s": 62}, horizon="2m", checkpoints=[
    Checkpoint(before="delivered", msg_id="M0001", nth=2, ask="when", optional=True, name="M0001 何时被解救",
               question="运维人员的 updateTopic 已经列出了 %RETRY%cg 的全部队列。搁浅的 M0001 最终何时被投递？选择时间。",
               hint="NameServer 立刻就有了新路由，但 c1 只在轮询路由时（pollNameServerInterval）读取它，并且只在下一次"
                    "重平衡时（RebalanceService）接手新队列。",
               explain=sealed_explanation("04b.freed"))])
freed_dash

# %% [markdown]
# Broker 立即向 NameServer 注册新的路由；Consumer 每 30 s 重新读取一次路由（`pollNameServerInterval`，第一次在启动后 10 ms），并且只在重平衡时分配队列，也就是上一次重平衡的 20 s 之后（`RebalanceService`；这里从它在 0 s 启动起每 20 s 一次，因为没有消费组变化会提前唤醒它）。
#
# ### 练习 2 — 先预测，再运行
# 图中的运维人员在 62 s 运行了 `updateTopic`。这次运维人员晚一些：在 **125 s** 运行 `updateTopic`（同样搁浅的重试消息，同样的定时器）。第一条搁浅的重试消息在第几秒被投递？

# %% nbgrader={"grade": false, "grade_id": "ex04b_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← 你的预测
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
# > **常见说法 vs. 源码。** “调大 `retryQueueNums` 就能把重试消息分散到更多队列上。”——`%RETRY%<group>` 保持它在第一次心跳时得到的队列数（`createTopicInSendMessageBackMethod` 对已存在的 Topic 原样返回），也没有任何地方拿随机的队列 ID
# > 和它比较：重试消息被存进一个没有 Consumer 读取的队列。要在消费组第一次启动之前设置好，或者也对重试 Topic 运行
# > `updateTopic`——并且要等到一次路由轮询加一次重平衡之后，被放出来的重试消息才会到来。

# %% [markdown]
# ## 要点
# - Broker 在消费组第一次心跳时创建 `%RETRY%<group>`（`ClientManageProcessor`）；回传时选择它的第
#   `random % retryQueueNums` 个队列（`asyncConsumerSendMsgBack`）。
# - Consumer 拉取的是这个 Topic 的路由所列出的队列，靠它自己的路由轮询和重平衡定时器得知。
# - 对重试 Topic 运行 `updateTopic` 是运维人员的修复办法（`mqadmin updateTopic`）。

# %% [markdown]
# ## 你的得分
# 最后运行这个单元：本实验的每个练习一行，来自你运行过的检查。

# %%
score("04b")
