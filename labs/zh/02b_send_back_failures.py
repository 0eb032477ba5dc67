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
# [目录](README.md) · [← 上一个](02a_consume_failure_send_back.ipynb) · [下一个 →](03_delay_levels_schedule.ipynb)

# %% [markdown]
# # 02b · 回传失败、慢监听器与每个实例各自的上限
#
# **目标：** 跟踪一条消费失败的消息在 `CONSUMER_SEND_MSG_BACK` 本身失败时的去向，看运行太久的监听器会造成什么，并弄清由谁的 `maxReconsumeTimes` 说了算。源码：`client/.../impl/consumer/DefaultMQPushConsumerImpl.java`（`sendMessageBack`）、
# `client/.../impl/consumer/ConsumeMessageConcurrentlyService.java`（`processConsumeResult`、`cleanExpireMsg`）、
# `client/.../impl/consumer/ProcessQueue.java`（`cleanExpiredMsg`）。

# %%
from rmqlab import ConsumeConcurrentlyStatus, Lab, Message, after, set_language
from rmqlab.course.exercises import assert_right, check, score, show_trace

set_language("zh")  # 仪表盘的按钮、图例和每一步的说明都用简体中文
CONSUME_SUCCESS = ConsumeConcurrentlyStatus.CONSUME_SUCCESS
RECONSUME_LATER = ConsumeConcurrentlyStatus.RECONSUME_LATER
SEED = 7


# %%
def one_queue_lab(listener, **consumer_options):
    """一个 Broker，只有一个队列的 TopicTest，消费组 cg 的一个 Consumer c1。"""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    c = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=listener, name="c1", **consumer_options)
    return lab, p, c


def fails_once(msgs, ctx):
    """第一次投递失败，重试时成功。"""
    return RECONSUME_LATER if msgs[0].reconsume_times == 0 else CONSUME_SUCCESS


# %% [markdown]
# ## 一次小运行：Broker 拒绝回传
# c1 的监听器让每条消息失败一次，而 broker-a 对每个 `CONSUMER_SEND_MSG_BACK` 都应答一个错误（`reject_send_back=True`）。失败的消息会丢吗？图：三条消息。往前单步：它停在 c1 第一次失败之前，问 M0001 去哪里。

# %%
def refused_lab(messages=3):
    """broker-a 拒绝每一次回传；从 1 s 起每秒一条，共 ``messages`` 条消息，每条失败一次。"""
    lab, p, c = one_queue_lab(fails_once)
    lab.set_broker_fault("broker-a", reject_send_back=True)
    for k in range(messages):
        lab.at(f"{1 + k}s", p.send, Message("TopicTest", f"x{k + 1}"))
    return lab


# %% tags=["nbval-ignore-output"]
from rmqlab.widgets.checkpoints import Checkpoint, sealed_explanation
from rmqlab.widgets.dashboard import Dashboard

refused_dash = Dashboard(refused_lab, knobs={"messages": 3}, horizon="30s", checkpoints=[
    Checkpoint(before="scheduled", msg_id="M0001", ask="where", optional=True,
               name="Broker 拒绝回传时 M0001 去哪里",
               question="c1 的监听器即将让 M0001 失败，而 broker-a 拒绝每一次回传。下一步之后 M0001 在哪里？"
                        "请在图上点击那个位置（或点按钮）。",
               hint="被拒绝的回传在客户端是一个异常：CONSUMER_SEND_MSG_BACK 失败时，sendMessageBack 会怎么做？",
               explain=sealed_explanation("02b.refused")),
])
refused_dash

# %% [markdown]
# 同一次运行的表格（一条消息）：`sendMessageBack` 捕获这个错误应答，自己生产这条重试消息：一条发往 `%RETRY%cg` 的新消息，由 Consumer 内部的 Producer（`CLIENT_INNER_PRODUCER`）发送，`RECONSUME_TIME` = rt + 1，延迟级别 3 + rt。

# %%
lab, p, c = one_queue_lab(fails_once)
lab.set_broker_fault("broker-a", reject_send_back=True)
lab.at("1s", p.send, Message("TopicTest", "x"))
lab.run(until="20s")
show_trace(lab.trace, "delivered", "send_back", "send_back_fallback", "scheduled", msg_id="M0001")


# %% [markdown]
# Broker 为什么会拒绝？`SendMessageProcessor.asyncConsumerSendMsgBack` 在 Broker 不可写时（`the broker[<its IP>] sending message is forbidden`）或 `%RETRY%<group>` 不可写时（`the topic[%RETRY%cg] sending message is forbidden`）应答 NO_PERMISSION（16）；消息已经不在时应答 SYSTEM_ERROR
# `look message by offset failed, <offset>`；存储失败时应答 SYSTEM_ERROR，附上存储状态（put status）的名字。客户端对它们一视同仁。这里在 c1 消费期间用 `mqadmin updateBrokerConfig` 把 broker-a 设为只读；trace 记下了应答的
# code 和 remark（`examples/send_back_no_permission.yaml` 多了第二个 Broker 来接收重试消息）：

# %%
def fails_once_slowly(msgs, ctx):
    """耗时 1 s，第一次投递失败；之后的投递成功。"""
    return after("1s", RECONSUME_LATER) if msgs[0].reconsume_times == 0 else CONSUME_SUCCESS


lab, p, c = one_queue_lab(fails_once_slowly)
lab.at("1s", p.send, Message("TopicTest", "x"))
lab.at("1500ms", lab.update_broker_config, "broker-a", broker_permission=4)
lab.run(until="10s")
show_trace(lab.trace, "send_back", fields=("ok", "response_code", "remark"))
show_trace(lab.trace, "send_back_fallback", "delivered", fields=("ok", "error", "reconsume_times"))

# %% [markdown]
# 唯一的 Broker 是只读的，所以兜底发送找不到可写的 `%RETRY%cg` 队列（“No route info”），消息从本地再来一次——这就是下一节的路径。

# %% [markdown]
# ## 两者都失败：c1 怎么处理这条消息？
# 现在在监听器运行期间，c1 ↔ broker-a 之间的链路断开：回传**和**兜底发送（一次同步发送，3 次尝试）都失败。
# `processConsumeResult` 在*内存里*给消息的 `reconsumeTimes` 加 1，把它留在 ProcessQueue（处理队列）里（它的 offset
# 保持被钉住，消费位点无法前进）。
#
# 图：1.5 s 的网络分区、失败的回传和兜底发送、12 s 的恢复。往前单步：运行停在 c1 的监听器再次拿到这条消息之前，问是什么时候。

# %%
def partitioned_lab(heal_at="12s", messages=1):
    """c1 ↔ broker-a 的链路在 1.5 s 断开、在 ``heal_at`` 恢复；c1 的监听器耗时 1 s 并失败，直到 20 s。"""
    lab = None

    def fails_until_20s(msgs, ctx):
        """耗时 1 s 并失败，直到虚拟时间 20 s。"""
        return after("1s", RECONSUME_LATER) if lab.now < 20_000 else CONSUME_SUCCESS

    lab, p, c = one_queue_lab(fails_until_20s)
    for k in range(messages):
        lab.at(f"{1000 + 100 * k}ms", p.send, Message("TopicTest", "x" if k == 0 else f"x{k + 1}"))
    lab.at("1500ms", lab.partition, "c1", "broker-a")
    lab.at(heal_at, lab.partition, "c1", "broker-a", heal=True)
    return lab


# %% tags=["nbval-ignore-output"]
partition_dash = Dashboard(partitioned_lab, knobs={"heal_at": "12s", "messages": 1}, horizon="40s", checkpoints=[
    Checkpoint(before="delivered", nth=2, ask="when", optional=True, name="本地重试何时到来",
               question="c1 ↔ broker-a 的链路断了：c1 对 {msg} 的回传失败了，它的兜底发送也失败了。"
                        "c1 的监听器什么时候再次拿到 {msg}？请选时间。",
               explain=sealed_explanation("02b.local-retry")),
])
partition_dash

# %% [markdown]
# 图里发生的是：c1 自己在 **5000 ms** 之后重新提交这条消息（`submitConsumeRequestLater`），之后每次失败都再来一次，直到分区恢复后回传成功。

# %% [markdown]
# ### 练习 1 — 先预测，再运行
# 分区在 12 s 恢复。当回传终于成功时，Broker 在重试副本上存下的 `reconsume_times` 是多少？（监听器看到过 0、1、2。）

# %% nbgrader={"grade": false, "grade_id": "ex02b_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_1 = 1
### END SOLUTION

# %%
lab = partitioned_lab().run(until="40s")
show_trace(lab.trace, "delivered", "send_back", "send_back_fallback", "local_retry", "scheduled", "fault",
           fields=("reconsume_times", "ok", "level", "retry_in_ms", "fault"))
retry_copy = lab.trace.of_kind("scheduled")[0]

# %% nbgrader={"grade": true, "grade_id": "ex02b_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("02b.1", answer_1, retry_copy.get("reconsume_times"))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_02b_1
grading_02b_1.verify("02b.1", answer_1)
### END HIDDEN TESTS

# %% [markdown]
# > **常见说法 vs. 源码。** “回传失败，消息就丢了。”——客户端退而自己生产一条 `%RETRY%` 消息；如果这也失败，它每 5000 ms 在本地重新消费一次，同时让 offset 保持被钉住。
#
# 同样的 5000 ms 在 `ConsumeMessageConcurrentlyService` 里还出现一次：当消费线程池拒绝一个 `ConsumeRequest`
# （`submitConsumeRequest` 里的 `RejectedExecutionException`）时，这个消费请求会在 5 s 后重新提交。线程池的队列是无界的，所以在 4.9.7 里这只会在线程池关闭期间发生。本实验的引擎没有会拒绝任务的线程池，所以这里没有对应的运行。

# %% [markdown]
# ## 运行超过 `consumeTimeout` 的监听器
# 慢不等于失败：迟到的 `CONSUME_SUCCESS` 仍然是成功（`ConsumeReturnType.TIME_OUT` 只是统计标签）。但每隔
# `consumeTimeout` 分钟（15 分钟，从 Consumer 启动时算起），`cleanExpireMsg` 查看每个 ProcessQueue 里
# **offset 最小**的那条消息；如果它开始消费已超过 15 分钟，客户端就把它回传（延迟级别 3），并从 ProcessQueue 中移除。监听器线程不会被中断。
#
# 图：三条消息，它们的第一次监听器调用都耗时 40 分钟。往前单步：它停在这三次调用运行期间，问 M0001 接下来在哪里。趁它停着先回答下面的练习 2，再往前单步核对。

# %%
def slow_first(msgs, ctx):
    """第一次投递耗时 40 分钟并成功；之后的投递立即完成。"""
    return after("40m", CONSUME_SUCCESS) if msgs[0].reconsume_times == 0 else CONSUME_SUCCESS


def slow_lab(messages=1):
    """从 1 s 起每秒一条，共 ``messages`` 条消息，由 ``slow_first`` 消费。"""
    lab, p, c = one_queue_lab(slow_first)
    for k in range(messages):
        lab.at(f"{1 + k}s", p.send, Message("TopicTest", "x" if k == 0 else f"x{k + 1}"))
    return lab


# %% tags=["nbval-ignore-output"]
slow_dash = Dashboard(slow_lab, knobs={"messages": 3}, horizon="45m", checkpoints=[
    Checkpoint(before="send_back", msg_id="M0001", ask="where", optional=True,
               name="监听器运行太久的消息去哪里",
               question="c1 的监听器从 M0001 投递起就在处理它，要花 40 m。下一步之后 M0001 在哪里？请在图上点击那个位置（或点按钮）。",
               hint="慢不是失败，但客户端每隔 consumeTimeout 检查一次：每个 ProcessQueue 中最老的消息已经消费了多久。",
               explain=sealed_explanation("02b.expired")),
])
slow_dash


# %% [markdown]
# ### 练习 2 — 先预测，再运行
# 消息在 1 s 投递，它的监听器调用运行了 40 分钟。它的**第二次**投递在第几秒开始？

# %% nbgrader={"grade": false, "grade_id": "ex02b_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_2 = 1810
### END SOLUTION

# %%
lab = slow_lab()
lab.run(until="1h")
show_trace(lab.trace, "delivered", "consumed", "clean_expired", "send_back", msg_id="M0001")
second = lab.trace.of_kind("delivered")[1]

# %% nbgrader={"grade": true, "grade_id": "ex02b_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("02b.2", answer_2, second.time_ms // 1000)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_02b_2
grading_02b_2.verify("02b.2", answer_2)
### END HIDDEN TESTS

# %% [markdown]
# 一条消息有两行 `consumed`：第一次调用还在运行时，重试就已经运行了。如果那次慢调用返回的是 `RECONSUME_LATER`，
# 4.9.7 也会把*那个*结果回传——多出第二份重试副本（`processConsumeResult` 不检查 `cleanExpiredMsg` 是否已经移除了这条消息）：

# %%
lab, p, c = one_queue_lab(lambda m, ctx: after("40m", RECONSUME_LATER) if m[0].reconsume_times == 0 else CONSUME_SUCCESS)
lab.at("1s", p.send, Message("TopicTest", "x"))
lab.run(until="1h")
show_trace(lab.trace, "delivered", "clean_expired", "send_back", msg_id="M0001")

# %% [markdown]
# > **常见说法 vs. 源码。** “消费超时算作消费失败，会被重试。”——监听器的状态会被保留。`ProcessQueue.cleanExpiredMsg`
# > 回传的是一条*仍在运行*的消息，所以这条消息被消费了两次（或更多）：让监听器保持幂等，并让它远远短于
# > `consumeTimeout`。

# %% [markdown]
# ## 谁的 `maxReconsumeTimes`？
# 同一个消费组的两个实例可以设置不同的上限。一条消息从一个实例转到另一个实例时，算谁的？
#
# 图：c1（上限 5）单独消费，每次投递都失败；20 s 时它正常关闭，c2（上限 1）启动。往前单步：它停在这条消息的等待结束之前，问它接下来去哪里。

# %%
def always_fails(msgs, ctx):
    """永远不成功。"""
    return RECONSUME_LATER


def hand_over_lab(first_max=5, second_max=1, hand_over_at="20s"):
    """一个队列；c1（上限 ``first_max``）单独消费并一直失败；在 ``hand_over_at`` c1 关闭，c2（上限 ``second_max``）启动。"""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    c1 = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=always_fails, name="c1",
                          max_reconsume_times=first_max)
    lab.at("5s", p.send, Message("TopicTest", "always fails"))
    lab.at(hand_over_at, c1.shutdown)
    lab.at(hand_over_at, lambda: lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=always_fails,
                                                  name="c2", max_reconsume_times=second_max))
    return lab


# %% tags=["nbval-ignore-output"]
hand_over_dash = Dashboard(hand_over_lab, knobs={"first_max": 5, "second_max": 1}, horizon="2m", checkpoints=[
    Checkpoint(before="delay_delivered", msg_id="M0001", nth=2, ask="where", optional=True,
               name="交接之后这条消息去哪里",
               question="c1 已经两次消费 M0001 失败并关闭；c2 已经启动。下一步 M0001 的等待结束：broker-a 把它放到 "
                        "%RETRY%cg:0，它随即被拉走。那时它在谁的监听器里？请在图上点击那个位置（或点按钮）。",
               hint="回传的副本在 Broker 里等待，然后回到 %RETRY%cg：现在谁读这个队列？",
               explain=sealed_explanation("02b.hand-over")),
])
hand_over_dash

# %% [markdown]
# ### 练习 3 — 先预测，再运行
# 在进入 `%DLQ%cg`（死信队列）之前，这条消息先后由 c1 和 c2 一共投递了几次？先预测，再在图上单步走到写入死信的那一步。

# %% nbgrader={"grade": false, "grade_id": "ex02b_3_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_3 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_3 = 3
### END SOLUTION

# %%
lab = hand_over_lab().run(until="5m")
show_trace(lab.trace, "delivered", "send_back", "dead_lettered", fields=("queue", "reconsume_times", "max_reconsume_times"))
deliveries = len(lab.trace.of_kind("delivered"))

# %% nbgrader={"grade": true, "grade_id": "ex02b_3", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("02b.3", answer_3, deliveries)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_02b_3
grading_02b_3.verify("02b.3", answer_3)
### END HIDDEN TESTS

# %% [markdown]
# **原因。** `maxReconsumeTimes` 是 Consumer 实例的设置，不是消费组的设置：每个实例在每个 `CONSUMER_SEND_MSG_BACK` 请求头里发送自己的值，Broker 拿已存储的 `reconsumeTimes` 和*这个*值比较。另一次运行把两者放在一起：消费组 cg 的两个实例，c1 的
# `max_reconsume_times=1`、c2 的为 3，分布在两个 Broker 上：每个实例拥有一个 Broker 的 TopicTest 队列和那个 Broker 的
# `%RETRY%cg` 队列（AVG 平均分配），所以每条消息都只由一个实例处理。
#
# > **常见说法 vs. 源码。** “`maxReconsumeTimes` 是消费组的属性。”——它是每个 `DefaultMQPushConsumer` 的一个字段（−1 → 16），在每次回传的请求头（`ConsumerSendMsgBackRequestHeader`）里发送，Broker 用的是*当前*发送者说的值（`asyncConsumerSendMsgBack`）。给同一消费组的每个实例设置相同的值，否则重试次数取决于恰好由哪个实例持有重试队列。

# %%
lab = Lab(seed=SEED)
lab.add_broker("broker-a")
lab.add_broker("broker-b")
lab.create_topic("TopicTest", queues=1)
p = lab.add_producer("pg", send_which_queue_start=0)
lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=always_fails, name="c1", max_reconsume_times=1)
lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=always_fails, name="c2", max_reconsume_times=3)
lab.at("5s", p.send, Message("TopicTest", "lands on broker-b"))
lab.at("5s", p.send, Message("TopicTest", "lands on broker-a"))
lab.run(until="10m")
show_trace(lab.trace, "delivered", "dead_lettered", fields=("queue", "reconsume_times"))


# %% [markdown]
# ## 要点
# - 回传可能失败（任何 code：只读的 Broker 或重试 Topic 返回 NO_PERMISSION、SYSTEM_ERROR……）；这时客户端自己还有两条兜底路径：它自己生产的 `%RETRY%` 消息，以及 5 s 后的本地重试。
# - `consumeTimeout`（15 分钟）由 `cleanExpiredMsg` 每 15 分钟检查一次，不管监听器正在做什么。
# - `maxReconsumeTimes` 是每个 Consumer 实例的设置，而不只是消费组的设置。
#
# ## 你的得分
# 最后运行这个单元：本实验的每个练习一行，来自你运行过的检查。

# %%
score("02b")
