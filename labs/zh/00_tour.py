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
# [目录](README.md) · [下一个 →](01a_send_retry.ipynb)

# %% [markdown]
# # 00 · rmqlab 导览
#
# **目标：** 搭一个两个 Broker 的集群，发送一条消息、消费它，再从 trace（事件记录）里读出发生了什么。

# %% [markdown]
# rmqlab 在**虚拟毫秒**里运行 RocketMQ 4.9.7 的客户端和 Broker 逻辑：5 小时的重试时间表只需几毫秒的真实时间，同样的随机种子（seed）总是得到同样的 trace。

# %%
from rmqlab import ConsumeConcurrentlyStatus, Lab, Message, format_duration, set_language
from rmqlab.course.exercises import assert_right, check, score, show_trace, table
from rmqlab.widgets.checkpoints import Checkpoint, sealed_explanation
from rmqlab.widgets.dashboard import Dashboard

set_language("zh")  # 仪表盘的按钮、图例和每一步的说明都用简体中文
CONSUME_SUCCESS = ConsumeConcurrentlyStatus.CONSUME_SUCCESS
RECONSUME_LATER = ConsumeConcurrentlyStatus.RECONSUME_LATER
SEED = 7

# %% [markdown]
# ## `Lab`：集群
# 先看图。一个 `Lab` 持有时钟、NameServer、各个 Broker 和客户端（`rmqlab/lab/lab.py`）。这一个有两个 Broker，TopicTest 在每个 Broker 上 4 个队列，pg 从 1 s 起每秒发一条消息，c1 到 4 s 才启动。c1 的监听器返回一个状态，和 `MessageListenerConcurrently.consumeMessage` 完全一样：这里总是成功。图打开时显示它的**拓扑**标签页：每个 Broker、它的 Topic 和队列。往前单步：它在 pg 发送 M0002 之前停下，问它会被发到哪个队列。然后看 c1 启动时订阅了哪些 Topic。

# %% tags=["nbval-ignore-output"]
def always_ok(msgs, ctx):
    """总是消费成功。"""
    return CONSUME_SUCCESS


def tiny_lab(messages=3, consumer_at="4s"):
    """这个集群，pg 从 1 s 起每秒发一条消息（共 ``messages`` 条），c1 在 ``consumer_at`` 启动。"""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("TopicTest", queues=4)
    producer = lab.add_producer("pg")
    for k in range(messages):
        lab.at(f"{1 + k}s", producer.send, Message("TopicTest", f"hello {k + 1}", tags="TagA"))
    lab.at(consumer_at, lambda: lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=always_ok, name="c1"))
    return lab


tiny_dash = Dashboard(tiny_lab, knobs={"messages": 3}, horizon="10s", tab="Topology", checkpoints=[
    Checkpoint(before="send_attempt", msg_id="M0002", ask="where", optional=True, name="M0002 发到哪个队列",
               question="pg 在 1 s 把 M0001 发到了一个队列。一秒之后它发送 M0002：M0002 存到哪里？"
                        "请在图上点击那个队列（或点按钮）。",
               explain=sealed_explanation("00.round-robin")),
])
tiny_dash

# %% [markdown]
# 图的下面，用一个个单元格搭起同样的集群。拓扑标签页的文本形式：每个 Broker、它的 Topic、读/写队列数和 `perm`（6 = 可读 + 可写）。

# %%
lab = Lab(seed=SEED)
lab.add_broker("broker-a")
lab.add_broker("broker-b")
queues = lab.create_topic("TopicTest", queues=4)


# %%
def topology(lab):
    """每个 (Broker, Topic) 一行：队列数和权限位。"""
    rows = []
    for name, broker in sorted(lab.brokers.items()):
        for topic, cfg in sorted(broker.topic_config.items()):
            rows.append([name, topic, cfg.read_queue_nums, cfg.write_queue_nums, cfg.perm])
    return table(rows, ["broker", "topic", "read", "write", "perm"])


# %%
print(topology(lab))

# %% [markdown]
# Producer 看到的路由是一个扁平的 `MessageQueue(topic, brokerName, queueId)` 列表——即 `client/.../impl/producer/TopicPublishInfo.java` 中的 `TopicPublishInfo.messageQueueList`。也就是图里的队列，按 pg 轮询经过它们的顺序排列。

# %%
print([str(mq) for mq in queues])

# %% [markdown]
# ### 一个个单元格地走一遍这次小运行
# 在这个 Lab 上放同样的客户端：pg，以及立即启动的 c1。pg 在 1 s 发一条消息。

# %%
producer = lab.add_producer("pg")
consumer = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=always_ok, name="c1")
lab.at("1s", producer.send, Message("TopicTest", "hello", tags="TagA", keys="k1"))
_ = lab.run(until="2s")

# %% [markdown]
# 每一个可观察的步骤都是一个 `TraceEvent(time_ms, kind, actor, msg_id, data)`。这是这条消息的一生：

# %%
show_trace(lab.trace, msg_id="M0001")

# %% [markdown]
# 消息 ID 按发送顺序是 `M0001`、`M0002`……；这个 ID（RocketMQ 的 `UNIQ_KEY`）在重试时保持不变。

# %% [markdown]
# ### 启动 Consumer 时，它还订阅了第二个 Topic
# 把上面的图单步走到 4 s：c1 启动时，它的方框里除了 TopicTest 的队列，还列出了 `%RETRY%cg:0`。在集群模式（CLUSTERING）下，Consumer 还会订阅 `%RETRY%<group>`（重试队列）：`DefaultMQPushConsumerImpl.start()` 调用
# `copySubscription()`，把订阅关系复制进 `RebalanceImpl`，并加上重试 Topic。轨迹里也是这样：

# %%
show_trace(lab.trace, "rebalanced", fields=("topic", "added"))

# %% [markdown]
# ## 两个 Consumer 分摊队列
# 同样的种子和同样的调用总是得到同样的 trace——一个虚拟时钟、一个带种子的随机数生成器、不看真实时间。`Dashboard`
# （仪表盘）正是建立在这一点上：它调用一个工厂函数得到全新的 Lab，再重放到任意一步，所以“单步”“后退一步”和“跳转”显示的都是引擎在那一刻的状态。
#
# 下面的工厂函数就是本实验从头开始的运行：起初只有 c1，每 10 s 一条消息，同一消费组的第二个 Consumer `c2`
# 在运行开始后不久加入、在 45 s 正常关闭。图只显示前 30 s（c2 离开有下面它自己的图）。单步走到图停下提问：先回答它和它下面的练习 1，再往前走，看看哪个 Consumer 拥有哪个队列（重平衡）。

# %% tags=["nbval-ignore-output"]
def tour_lab():
    """本实验的运行（工厂函数）：每个 Broker 上 TopicTest × 4 个队列，c1，c2 从 2 s 到 45 s，每 10 s 一条消息。"""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("TopicTest", queues=4)
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=always_ok, name="c1")
    for k, second in enumerate(range(1, 60, 10)):
        lab.at(f"{second}s", producer.send, Message("TopicTest", f"m{k}", tags="TagA"))
    lab.at("2s", lambda: lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=always_ok, name="c2"))
    lab.at("45s", lambda: lab.consumers["c2"].shutdown())
    return lab

dash = Dashboard(tour_lab, horizon="30s", checkpoints=[
    Checkpoint(before="rebalanced", actor="consumer:c2", ask="when", optional=True, name="c2 分到队列",
               question="第二个 Consumer c2 即将加入消费组 cg。c2 什么时候分到它的第一个队列？请选时间。",
               explain=sealed_explanation("00.c2-gets-queues")),
])
dash

# %% [markdown]
# 每个按钮都有一个对应的方法，所以代码单元也能驱动仪表盘。下面这个单元把画面停在 c2 分到队列之前、画面提出问题的那一刻（向上滚动：仪表盘显示的就是那一刻）。

# %%
dash.controller.goto_checkpoint("c2 分到队列")
print(dash.controller.clock_text)

# %% [markdown]
# ### 练习 1 — 先预测，再运行
# 消费组 `cg` 的两个 Consumer 用默认的 `AllocateMessageQueueAveragely` 分摊 `TopicTest` 的 8 个队列（每个 Broker
# 上 4 个）。新的 Consumer `c2` 会分到几个 `TopicTest` 队列？先预测，再在图上单步往前看。

# %% nbgrader={"grade": false, "grade_id": "ex00_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_1 = 4
### END SOLUTION

# %% [markdown]
# 在本笔记本逐个单元构建的 lab 里做同样的事：加入 c2，运行到 30 s。

# %%
c2 = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=always_ok, name="c2")
lab.run(until="30s")
mine = [mq for mq in c2.process_queue_table if mq.topic == "TopicTest"]

# %% nbgrader={"grade": true, "grade_id": "ex00_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("00.1", answer_1, len(mine))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_00_1
grading_00_1.verify("00.1", answer_1)
### END HIDDEN TESTS

# %%
print(sorted(str(mq) for mq in mine))

# %% [markdown]
# > **常见说法 vs. 源码。** “新 Consumer 要等到下一次 20 s 的重平衡才分到队列。”——c2 一启动就分到了：
# > `DefaultMQPushConsumerImpl.start()` 调用 `rebalanceImmediately()`，Broker 的 `NOTIFY_CONSUMER_IDS_CHANGED`
# > 唤醒已在组里的成员（`ClientRemotingProcessor`）。`RebalanceService` 的 20 s 周期只是补上通知漏掉的情况。

# %% [markdown]
# ## 驱动一次运行
# 先看图：本实验的单元格写成一个工厂函数（c1 从 0 s 起，pg 在 1 s 发 "hello"，c2 从 2 s 起），再加上下一个单元格用 `lab.at("31s", ...)` 安排的发送：M0002，"second"。图上的按钮就是单元格调用的方法。**单步**就是 `lab.step()`，一直重复到发生了值得看的事为止（勾选“每个事件”，一次单步就是一次 `lab.step()`）。**播放**就是边运行边画出来的 `lab.run(until="32s")`。`lab.scheduler.peek()` 是下一次单步要执行的事件的时间。往前单步：它在 M0002 到达某个 Consumer 之前停下，问是哪一个。

# %% tags=["nbval-ignore-output"]
def driving_lab():
    """本实验的单元格写成的工厂函数：c1 从 0 s 起，1 s 发 "hello"，c2 从 2 s 起，31 s 发 "second"（M0002）。"""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("TopicTest", queues=4)
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=always_ok, name="c1")
    lab.at("1s", producer.send, Message("TopicTest", "hello", tags="TagA", keys="k1"))
    lab.at("2s", lambda: lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=always_ok, name="c2"))
    lab.at("31s", producer.send, Message("TopicTest", "second"))
    return lab


drive_dash = Dashboard(driving_lab, horizon="32s", checkpoints=[
    Checkpoint(before="delivered", msg_id="M0002", ask="who", pause_before="pulled", optional=True,
               name="谁收到 M0002",
               question="pg 在 1 s 发送了 M0001。31 s 时它发送 M0002（\"second\"）。cg 的哪个 Consumer 收到 M0002？"
                        "请选出是谁。",
               hint="pg 的轮询在 M0001 所在队列之后选哪个队列？现在哪个 Consumer 的通道里有那个队列？",
               explain=sealed_explanation("00.who-gets-second")),
])
drive_dash

# %%
lab.at("31s", producer.send, Message("TopicTest", "second"))
print("下一个事件在", format_duration(lab.scheduler.peek()))
lab.run(until="32s")
print(format_duration(lab.now), "—", len(lab.trace), "个事件")

# %%
show_trace(lab.trace, msg_id="M0002")

# %% [markdown]
# ## c2 离开时
# 再看一次这张图，一直到 60 s。单步往前：它停在 c2 关闭之前，问 c1 什么时候收回 c2 持有的队列。

# %% tags=["nbval-ignore-output"]
leave_dash = Dashboard(tour_lab, horizon="60s", checkpoints=[
    Checkpoint(before="rebalanced", actor="consumer:c1", nth=5, ask="when", optional=True,
               name="c1 收回 c2 的队列",
               question="c2 即将正常关闭。c1 什么时候重平衡、接手这些队列？请选时间。",
               hint="谁告诉 c1 c2 已经离开？c1 收到之后还会等它的 20 s 周期吗？",
               explain=sealed_explanation("00.c1-back")),
])
leave_dash.controller.goto_checkpoint("c1 收回 c2 的队列")
leave_dash

# %% [markdown]
# ### 练习 2 — 先预测，再运行
# c2 在 45 s 正常关闭。一个 Consumer 在上一次重平衡结束 20 s 后再次重平衡（`RebalanceService`：
# `waitForRunning(20000)`）：c1 上一次重平衡在 42 s，所以下一次应在 62 s。c1 在 46 s 拥有几个 `TopicTest` 队列？先预测，再在图上单步越过 45 s。

# %% nbgrader={"grade": false, "grade_id": "ex00_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_2 = 8
### END SOLUTION

# %%
lab.at("45s", c2.shutdown)
lab.run(until="46s")
c1_queues = [mq for mq in consumer.process_queue_table if mq.topic == "TopicTest"]

# %% nbgrader={"grade": true, "grade_id": "ex00_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("00.2", answer_2, len(c1_queues))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_00_2
grading_00_2.verify("00.2", answer_2)
### END HIDDEN TESTS

# %%
show_trace(lab.trace, "lifecycle", "rebalanced", fields=("event", "topic", "added"))

# %% [markdown]
# ## 要点
# - `Lab` = 时钟 + Broker + 客户端；一切都发生在 `lab.at(...)` 指定的时刻。
# - trace 是唯一的事实来源；这些实验里的每张表都是从它打印出来的。
# - 名字（`%RETRY%cg`、`MessageQueue`、`CONSUME_SUCCESS`）都是 RocketMQ 自己的。

# %% [markdown]
# ## 保存你看到的内容
# 要提交或分享一次运行，在你自己的单元里保存它（`from rmqlab.widgets.export import save_html, save_jsonl,
# save_png, save_svg`）：`save_html(dash, "tour.html")` 写出一个不需要 Jupyter、任何浏览器都能打开的页面（浅色或深色）；`save_svg` / `save_png` 保存一张图；`save_jsonl(dash, "tour.jsonl")` 保存到仪表盘当前位置为止的 trace，每行一个事件，和 `rmqlab run FILE --jsonl OUT` 写出的文件一样。

# %% [markdown]
# ## 你的得分
# 最后运行这个单元：本实验的每个练习一行，来自你运行过的检查。

# %%
score("00")
