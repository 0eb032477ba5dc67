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
# [目录](README.md) · [← 上一个](04b_stranded_retry_queues.ipynb) · [下一个 →](06_ordered_send.ipynb)

# %% [markdown]
# # 05 · 消费位点与 ProcessQueue 的 TreeMap
#
# **目标：** 看清并发消费的 Consumer 提交的是哪个消费位点（仍在处理中的**最小**位点）、Broker
# 什么时候得知它，以及此时崩溃的代价。源码：`client/.../impl/consumer/ProcessQueue.java`（`removeMessage`）、`client/.../consumer/store/RemoteBrokerOffsetStore.java`、`client/.../impl/factory/MQClientInstance.java`。

# %%
from rmqlab import ConsumeConcurrentlyStatus, Lab, Message, after, set_language
from rmqlab.course.exercises import assert_right, check, score, show_trace, table

set_language("zh")  # 仪表盘的按钮、图例和每一步的说明都用简体中文
CONSUME_SUCCESS = ConsumeConcurrentlyStatus.CONSUME_SUCCESS
SEED = 7


# %%
def listener(msgs, ctx):
    """消息“slow”要消费 60 s；其余的都立即完成。"""
    return after("60s", CONSUME_SUCCESS) if msgs[0].body == "slow" else CONSUME_SUCCESS

def five_messages(slow_at=1):
    """一个队列；五条消息在第 1..5 s 发送，位点 ``slow_at`` 上的那条是 ``slow``，其余是 ``ok<位点>``（默认：ok0、slow、
    ok2、ok3、ok4）。"""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    c = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=listener, name="c1")
    for i in range(5):
        lab.at(f"{1 + i}s", p.send, Message("TopicTest", "slow" if i == slow_at else f"ok{i}"))
    return lab, c

def crash_lab(crash_at_s=0, restart_at_s=0):
    """把 ``five_messages()`` 用作 Dashboard 的工厂函数；``crash_at_s`` > 0 时，c1 在那一刻崩溃，在 ``restart_at_s`` 重启。"""
    lab, c = five_messages()
    if crash_at_s > 0:
        lab.at(f"{crash_at_s}s", c.crash)
        lab.at(f"{restart_at_s}s", c.start)
    return lab


def topic_queue(c):
    """c 在 TopicTest 上的 MessageQueue 和 ProcessQueue。"""
    return next((mq, pq) for mq, pq in c.process_queue_table.items() if mq.topic == "TopicTest")


# %% [markdown]
# ## 一次小运行：看看 TreeMap 里面
# 图：一个队列上的五条消息，`slow`（位点 1）是第二条；它的监听器要 60 s，其余的立即返回。图中的令牌按发送顺序标着消息
# ID：M0001 = `ok0`（位点 0），M0002 = `slow`（位点 1），M0003–M0005 = `ok2` … `ok4`（位点 2–4）。图下的“处理队列
# ProcessQueue”标签页就是这个队列的 TreeMap（处理中的位点、已完成的）和消费位点（回答问题之前显示为 ?）。单步：M0003–M0005
# 都完成后，图停下来，问消费位点何时移动。

# %% tags=["nbval-ignore-output"]
from rmqlab.widgets.checkpoints import Checkpoint, sealed_explanation
from rmqlab.widgets.dashboard import Dashboard

dash = Dashboard(crash_lab, horizon="2m", checkpoints=[
    Checkpoint(before="offset_updated", queue="TopicTest@broker-a:0", nth=2, ask="when", optional=True,
               hides=("committed_offset",),  # 回答之前，处理队列标签页显示“消费位点 ?”
               name="消费位点何时越过 slow",
               question="M0003–M0005（位点 2–4）已完成；slow（M0002）还在监听器里。c1 的消费位点下一次何时变化？"
                        "选择时间。",
               explain=sealed_explanation("05.offset-past-slow")),
])
dash

# %%
lab, c = five_messages()
lab.run(until="10s")
mq, pq = topic_queue(c)
print("msg_tree_map 的键：", list(pq.msg_tree_map.keys()))

# %% [markdown]
# 位点 2、3、4 已经消费完，从 TreeMap 里移除了；位点 1（`slow`）还在里面，它的监听器仍在运行。
#
# ### 练习 1 — 先预测，再运行
# 同样五条消息换一个顺序：`slow` **第四个**发送（`ok0`、`ok1`、`ok2`、`slow`、`ok4`，`slow` 的位点是 3）。在 10 s 时，
# Consumer 为这个队列记下的已提交消费位点是多少？

# %% nbgrader={"grade": false, "grade_id": "ex05_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_1 = 3
### END SOLUTION

# %%
lab, c = five_messages(slow_at=3)
lab.run(until="10s")
mq, pq = topic_queue(c)
committed = c.offset_store.offset_table[mq]
print("msg_tree_map 的键：", list(pq.msg_tree_map.keys()))

# %% nbgrader={"grade": true, "grade_id": "ex05_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("05.1", answer_1, committed)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_05_1
grading_05_1.verify("05.1", answer_1)
### END HIDDEN TESTS

# %% [markdown]
# ## 消费位点的两份副本：客户端的和 Broker 的
# 上面的消费位点在 Consumer 的内存里（`RemoteBrokerOffsetStore.offsetTable`）。Broker 为消费组另存一份，重启的
# Consumer 从 Broker 那份继续。图：同一次没有崩溃的运行，打开在“处理队列 ProcessQueue”标签页，它的条带在队列下面标出两份副本：“已提交”（客户端的）和“Broker”（broker-a 的）。单步或播放：`slow`（M0002）返回、客户端那份移动时，图停下来，问 Broker
# 那份何时跟上。

# %% tags=["nbval-ignore-output"]
copies_dash = Dashboard(crash_lab, horizon="2m", tab="ProcessQueues", checkpoints=[
    Checkpoint(before="offset_persisted", queue="TopicTest@broker-a:0", nth=2, ask="when", optional=True,
               name="Broker 那份何时跟上",
               question="slow（M0002）已经返回，条带上的“已提交”标记（c1 那份）跳到了 {offset}；“Broker”标记"
                        "（broker-a 那份）没有动。broker-a 那份何时变化？选择时间。",
               hint="Broker 只有在 c1 告诉它时才知道 c1 的消费位点：通过拉取请求（c1 的上一次拉取被 Broker 挂起了：没有"
                    "新消息可拉），或通过 c1 的 persistAllConsumerOffset 定时任务：它在 c1 启动 10 s 后第一次运行，"
                    "之后每 5 s 一次（persistConsumerOffsetInterval）。",
               explain=sealed_explanation("05.broker-copy-follows"))])
copies_dash

# %% [markdown]
# 同一次运行的表，截至图中的问题（30 s 时 `slow` 还在监听器里）：TreeMap 的键和两份副本。

# %%
def offsets_over_time(times):
    """每个时刻：TreeMap 的键、客户端已提交的消费位点和 Broker 存储的消费位点。"""
    lab, c = five_messages()
    rows = []
    for t in times:
        lab.run(until=t)
        mq, pq = topic_queue(c)
        broker = lab.brokers["broker-a"].query_consumer_offset("cg", "TopicTest", 0)
        rows.append([t, list(pq.msg_tree_map.keys()), c.offset_store.offset_table.get(mq), broker])
    return table(rows, ["虚拟时间", "msg_tree_map 的键", "客户端（已提交）", "Broker（已持久化）"])

print(offsets_over_time(["1.5s", "5.5s", "30s"]))

# %% [markdown]
# 客户端那份在 `removeMessage` 决定时移动；Broker 那份只在客户端告诉它时移动：随每次拉取请求捎带上报，以及
# `persistAllConsumerOffset`——它在启动 10 s 后运行，之后每 5 s 一次（`persistConsumerOffsetInterval`）。两者之间崩溃，客户端那份就丢了。

# %% [markdown]
# ## 两份副本之间的一次崩溃
# 图：同一次运行，在 30 s 崩溃、40 s 重启（参数），停在崩溃处。继续单步：重启之后它会停下来，问 `slow` 下一次被投递到哪里。

# %% tags=["nbval-ignore-output"]
crash_dash = Dashboard(crash_lab, knobs={"crash_at_s": 30, "restart_at_s": 40}, horizon="2m", checkpoints=[
    Checkpoint(before="delivered", msg_id="M0002", nth=2, pause_before="pulled", ask="where", optional=True,
               name="slow 会怎样",
               question="c1 在 slow（{msg}）还在监听器里时崩溃了，现在已经重启。slow 下一次被投递到哪里？在图中点击那个"
                        "位置（或按钮）。",
               hint="重启的 Consumer 从 Broker 为它的消费者组保存的消费位点开始消费每个队列；slow 运行期间，客户端提交了"
                    "什么、又上报了什么？",
               explain=sealed_explanation("05.slow-after-restart"))])
crash_dash.controller.seek_time("30s")
crash_dash

# %% [markdown]
# ### 练习 2 — 先预测，再运行
# 与图中一样在 30 s 崩溃、40 s 重启，但这次 `slow` **第三个**发送（`ok0`、`ok1`、`slow`、`ok3`、`ok4`：`slow` 的位点是
# 2）。Consumer 从 Broker 的消费位点重启。重启后有多少条消息被**第二次**投递？

# %% nbgrader={"grade": false, "grade_id": "ex05_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_2 = 3
### END SOLUTION

# %%
lab, c = five_messages(slow_at=2)
lab.at("30s", c.crash)
lab.at("40s", c.start)
lab.run(until="2m")
again = [e for e in lab.trace.of_kind("delivered") if e.time_ms >= 40_000]

# %% nbgrader={"grade": true, "grade_id": "ex05_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("05.2", answer_2, len(again))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_05_2
grading_05_2.verify("05.2", answer_2)
### END HIDDEN TESTS

# %%
show_trace(lab.trace, "delivered", "lifecycle", fields=("queue_offset", "event"))

# %% [markdown]
# ### 练习 3 — 先预测，再运行
# 重新运行一次；这次 Consumer 在 **63 s** 崩溃，此时 `slow`
# 已经返回：五条消息都消费完了，客户端持有的消费位点是 5。重启后的 Consumer 从哪个位点开始拉取？先预测，再把图的参数设为 63 s 崩溃、70 s 重启，点“重建”，单步走过 70 s。

# %% nbgrader={"grade": false, "grade_id": "ex05_3_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_3 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_3 = 1
### END SOLUTION

# %%
lab, c = five_messages()
lab.at("63s", c.crash)
lab.at("70s", c.start)
lab.run(until="3m")
restart_offset = min(e.get("queue_offset") for e in lab.trace.of_kind("delivered") if e.time_ms >= 70_000)

# %% nbgrader={"grade": true, "grade_id": "ex05_3", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("05.3", answer_3, restart_offset)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_05_3
grading_05_3.verify("05.3", answer_3)
### END HIDDEN TESTS

# %%
show_trace(lab.trace, "offset_updated", "offset_persisted", "lifecycle", fields=("queue", "offset", "event"))
print(offsets_over_time(["62s", "66s"]))  # 没有崩溃的那次运行在 slow 返回之后：两份副本都到 5

# %% [markdown]
# 崩溃前最后一次持久化在 60 s，那时已提交的消费位点还是
# 1；5 只存在于客户端内存里。在没有崩溃的那次运行中（上面的表），`slow` 一返回，客户端那份就到达 5，Broker 那份在下一次持久化时到达。至少一次，绝不是至多一次：监听器要做成幂等的。
#
# > **常见说法 vs. 源码。** “消费者逐条确认消息，所以它的消费位点就是它最后完成的那条。”——并发消费者提交的是仍在处理中的*最小*位点：`ProcessQueue.removeMessage`（4.9.7）返回 `msgTreeMap.firstKey()`，TreeMap 空了才返回
# > `queueOffsetMax + 1`。一条慢消息会拖住整个队列的消费位点，崩溃后它之后的消息全部重新投递。

# %% [markdown]
# ### 整次运行的图表：消费延迟
# `mqadmin consumerProgress` 报告一个消费组每个队列的延迟：队列的最大位点减去 **Broker**
# 持有的消费位点（`ConsumeStats`：brokerOffset −
# consumerOffset）。看之前先想：在没有崩溃的运行里，这个延迟什么时候降到
# 0？按客户端自己那份消费位点算的延迟又是什么时候？

# %%
from rmqlab.widgets.charts import lag_chart

lab, c = five_messages()
lag_chart(lab.run(until="2m"))

# %% [markdown]
# 读这两条曲线：`slow` 运行时是什么让两条都降不下来？各自何时降到 0？Broker 那条在客户端那条之后的下一次持久化时刻才降：这两个时刻之间，Broker 把已经消费完的消息算作未消费，此时崩溃就会再次投递它们。
#
# ## 要点
# - 已提交的消费位点来自 `ProcessQueue.removeMessage`，从 `msgTreeMap`
#   中读出；`consumeConcurrentlyMaxSpan`（2000）通过暂停拉取，限制这个 TreeMap 能拉开多大的跨度。
# - 拉取只会暂停，从不丢弃：当一个 ProcessQueue 缓存的消息超过 `pullThresholdForQueue`（1000）条、消息体超过
#   `pullThresholdSizeForQueue`（100 MiB），或跨度超过 `consumeConcurrentlyMaxSpan` 时，`pullMessage`
#   把该队列的下一次拉取推迟 50 ms。每次推迟都是一个带原因的 `pull_deferred`
#   事件（`lab.trace.where("pull_deferred")`；`examples/pull_flow_control.yaml` 把几种原因都演示了一遍）。
# - Broker 的那份消费位点来自拉取请求和 5 s 一次的持久化定时任务，客户端的那份来自
#   `removeMessage`：两份副本，在不同的时刻更新。监听器必须幂等。干净的 `shutdown()`
#   会丢弃监听器仍在做的事（`awaitTerminationMillisWhenShutdown` 为 0）；设置了
#   `await_termination_millis_when_shutdown` 时，它会等这么久，并持久化它们已完成的部分。
# - 一个使用 `CONSUME_FROM_LAST_OFFSET` 的新消费组不会跳过新队列里已有的消息：只要位点 0 还在队列里，Broker 就回答
#   0（`queryConsumerOffset`），所以在启动前一毫秒发送的消息也会被消费。只有查询消费位点失败时，它才从看到的最大位点开始（`examples/start_order_same_ms.yaml`，其中场景的 `start_order` 把启动排在发送之后）。
# - `CONSUME_FROM_TIMESTAMP` 同理；在它生效时，从存储时间**最接近** `consume_timestamp`
#   的消息开始（二分查找，而不是“之后的第一条”）：`examples/consume_from_timestamp.yaml`。

# %% [markdown]
# ## 你的得分
# 最后运行这个单元：本实验的每个练习一行，来自你运行过的检查。

# %%
score("05")
