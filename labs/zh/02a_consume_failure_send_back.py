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
# [目录](README.md) · [← 上一个](01b_send_status_timeout.ipynb) · [下一个 →](02b_send_back_failures.ipynb)

# %% [markdown]
# # 02a · 并发消费：消费失败与回传
#
# **目标：** 弄清什么算消费失败、失败的消息去了哪里、它得到哪个延迟级别。源码：`client/.../impl/consumer/ConsumeMessageConcurrentlyService.java`（`ConsumeRequest.run`、`processConsumeResult`）、
# `DefaultMQPushConsumerImpl.sendMessageBack`、`broker/.../processor/SendMessageProcessor.java`（`asyncConsumerSendMsgBack`）。

# %%
from rmqlab import ConsumeConcurrentlyStatus, Lab, Message, set_language
from rmqlab.course.exercises import assert_right, check, score, show_trace, table

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


# %% [markdown]
# ## 一次小运行：三个监听器，一个结果

# %%
def reconsume_later(msgs, ctx):
    """要求稍后重试。"""
    return RECONSUME_LATER


def returns_null(msgs, ctx):
    """忘了返回状态。"""
    return None


def raises(msgs, ctx):
    """抛出异常，就像业务代码里的 NullPointerException。"""
    raise RuntimeError("db down")


# %%
LISTENERS = {"reconsume_later": reconsume_later, "returns_null": returns_null, "raises": raises}


def listener_lab(listener="raises"):
    """1 s 时给 c1 一条消息，c1 的监听器是 ``listener``（LISTENERS 里的一个名字）。"""
    lab, p, c = one_queue_lab(LISTENERS[listener])
    lab.at("1s", p.send, Message("TopicTest", "x"))
    return lab


# %% [markdown]
# 图：一条消息，和一个会抛异常的监听器（参数 `listener` 选三者之一，改后点“重建”）。单步前进：监听器回答之前，运行会停下来问这条消息在它回答之后在哪里——算确认了，还是去了别处？再往前走，然后在下面的表里比较这三种监听器。

# %% jupyter={"source_hidden": true}
# 图上显示的话。其中的答案（{answer}、{scheduled_level} …）都是字段，由图按它显示的运行填入：这个单元一个也不写明。
HINT_THROWS = (
    "异常不是回答：ConsumeRequest.run 捕获它，手里只剩一个 null 状态，并把它算作 RECONSUME_LATER，和返回 null 或请求"
    "重试的监听器一样。processConsumeResult 再按这个状态决定，延迟级别由 reconsumeTimes 决定。"
)

# %% tags=["nbval-ignore-output"]
from rmqlab.widgets.checkpoints import Checkpoint, sealed_explanation
from rmqlab.widgets.dashboard import Dashboard

listener_dash = Dashboard(listener_lab, knobs={"listener": "raises"}, knob_options={"listener": list(LISTENERS)},
                          horizon="45s", checkpoints=[
    Checkpoint(before="send_back", ask="where", optional=True, name="监听器失败的消息去了哪里",
               hint=HINT_THROWS, explain=sealed_explanation("02a.listener-throws"),
               question="下一步里 c1 的监听器对 {msg} 给出回答，返回类型为 {consumed_return_type}。这一步之后，{msg} "
                        "在哪里？请在图上点击那个位置（或点按钮）。"),
])
listener_dash

# %%
rows = []
for listener in (reconsume_later, returns_null, raises):
    lab, p, c = one_queue_lab(listener)
    lab.at("1s", p.send, Message("TopicTest", "x"))
    lab.run(until="5s")
    e = lab.trace.of_kind("consumed")[0]
    rows.append([listener.__name__, e.get("return_type"), e.get("status"), len(lab.trace.of_kind("send_back"))])
print(table(rows, ["listener", "ConsumeReturnType", "effective status", "send-backs"]))

# %% [markdown]
# `ConsumeReturnType` 只是给统计和钩子（hook）用的标签。接下来发生什么，取决于*实际生效的*状态：
# `ConsumeRequest.run` 把 null 状态（返回的 null，或者它捕获异常后留下的 null）变成 `RECONSUME_LATER`。

# %% [markdown]
# ## ackIndex：一批消息的部分成功

# %%
def first_two_ok(msgs, ctx):
    """确认这批消息中的 msgs[0..1]；其余的算消费失败。"""
    ctx.ack_index = 1
    return CONSUME_SUCCESS


# %%
def ack_index_lab(ack_index=1, batch=4):
    """1 s 时发四条消息，c1 在 10 s 启动，把它们作为一批收到；它的监听器设置 ``ctx.ack_index``。"""

    def acks_some(msgs, ctx):
        ctx.ack_index = ack_index
        return CONSUME_SUCCESS

    lab, p, c = one_queue_lab(acks_some, consume_message_batch_max_size=batch, start="10s")
    for i in range(4):
        lab.at("1s", p.send, Message("TopicTest", f"m{i}"))
    return lab


# %% [markdown]
# 图：四条消息的一批，然后是监听器没有确认的那些。单步走到第一个 `consumed`，停下：这是监听器对整批消息的回答。

# %% tags=["nbval-ignore-output"]
from rmqlab.widgets.checkpoints import Checkpoint, sealed_explanation
from rmqlab.widgets.dashboard import Dashboard

ack_dash = Dashboard(ack_index_lab, knobs={"ack_index": 1, "batch": 4}, horizon="40s", checkpoints=[
    Checkpoint(before="send_back", ask="where", optional=True, name="第一条未确认的消息去了哪里", explain=sealed_explanation("02a.unacknowledged"),
               question="监听器对整批消息返回了 CONSUME_SUCCESS，并设置了 ctx.ack_index。下一步之后，它没有确认的第一条消息在哪里？"
                        "请在图上点击那个位置（或点按钮）。"),
])
ack_dash

# %% [markdown]
# ### 练习 1 — 先预测，再运行
# 一批 4 条消息（`consume_message_batch_max_size=4`），监听器返回 `CONSUME_SUCCESS`，并设置 `ack_index = 1`。有几条消息被回传去重试？

# %% nbgrader={"grade": false, "grade_id": "ex02a_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_1 = 2
### END SOLUTION

# %%
lab, p, c = one_queue_lab(first_two_ok, consume_message_batch_max_size=4, start="10s")
for i in range(4):
    lab.at("1s", p.send, Message("TopicTest", f"m{i}"))
lab.run(until="11s")
show_trace(lab.trace, "send_back")

# %% nbgrader={"grade": true, "grade_id": "ex02a_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("02a.1", answer_1, len(lab.trace.of_kind("send_back")))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_02a_1
grading_02a_1.verify("02a.1", answer_1)
### END HIDDEN TESTS

# %% [markdown]
# ## 消费失败的消息去了哪里：`%RETRY%<group>`
# `sendMessageBack` 请求 Broker（`CONSUMER_SEND_MSG_BACK`，带上消息的 CommitLog offset）把它以延迟的方式重新存储到
# `%RETRY%cg` 下。这里第一次投递失败，重试成功：

# %%
def failing_lab(failures=1, messages=1):
    """从 1 s 起每秒一条，共 ``messages`` 条消息；每条的前 ``failures`` 次投递失败，之后成功。"""
    lab, p, c = one_queue_lab(lambda m, ctx: RECONSUME_LATER if m[0].reconsume_times < failures else CONSUME_SUCCESS)
    for k in range(messages):
        lab.at(f"{1 + k}s", p.send, Message("TopicTest", f"x{k + 1}"))
    return lab


def fails_once_lab():
    """1 s 时一条消息；第一次投递失败，重试成功。"""
    return failing_lab(failures=1, messages=1)


# %% [markdown]
# 图：三条消息，每条失败一次。单步走，跟着 M0001（它的颜色）：等待结束时它在哪里？

# %% tags=["nbval-ignore-output"]
retry_dash = Dashboard(failing_lab, knobs={"failures": 1, "messages": 3}, horizon="30s", checkpoints=[
    Checkpoint(before="delay_delivered", msg_id="M0001", ask="where", optional=True, name="等待结束后 M0001 去哪里",
               question="c1 的监听器第一次消费 M0001 失败，Broker 把它放在一个延迟级别上。下一步它的等待结束："
                        "broker-a 把它放到 %RETRY%cg:0，它随即被拉走。那时哪个消费者的 ProcessQueue 持有它？"
                        "请在图上点击那个位置（或点按钮）。",
               hint="%RETRY%cg 是一个独立的 Topic：哪个消费者订阅了它，又是什么时候订阅的？拉到的消息就在它的 "
                    "%RETRY%cg:0 的 ProcessQueue 里等待。",
               explain=sealed_explanation("02a.back-on-retry")),
])
retry_dash


# %%
lab = fails_once_lab()
lab.run(until="20s")
show_trace(lab.trace, "delivered", "send_back", "scheduled", "delay_delivered", msg_id="M0001")

# %% [markdown]
# M0001 的路径：从 `TopicTest` 经过 `SCHEDULE_TOPIC_XXXX` 到 `%RETRY%cg`，再回到 c1。Broker 带着一个延迟级别把重试消息存进 `SCHEDULE_TOPIC_XXXX`，到期时由 ScheduleMessageService 把它移到 `%RETRY%cg`。
# c1 在启动时自己订阅了 `%RETRY%cg`（集群模式）；监听器看到的仍是 `topic=TopicTest`（`resetRetryAndNamespace`）。
#
# 监听器没有改 `ctx.delay_level_when_next_consume`（仍为 0），所以由 Broker 选择级别：
# **3 + 已存储的 `reconsumeTimes`**（各级别：1 s、5 s、10 s、30 s、1 min、2 min……——实验 03 列出了全部级别）。

# %% [markdown]
# ### 练习 2 — 先预测，再运行
# 本实验最上面的图里，一条消息每次投递都失败：它的第三次投递在 41 s。现在消息在 1 s 发送，前**三次**投递都失败。它的**第四次**投递在第几秒开始？先预测，再运行下面的单元格（下一节的图也演示这次运行）。

# %% nbgrader={"grade": false, "grade_id": "ex02a_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_2 = 101
### END SOLUTION

# %%
lab, p, c = one_queue_lab(lambda m, ctx: RECONSUME_LATER if m[0].reconsume_times < 3 else CONSUME_SUCCESS)
lab.at("1s", p.send, Message("TopicTest", "x"))
lab.run(until="3m")
show_trace(lab.trace, "delivered", "send_back", "scheduled", msg_id="M0001")
fourth = lab.trace.of_kind("delivered")[3]

# %% nbgrader={"grade": true, "grade_id": "ex02a_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("02a.2", answer_2, fourth.time_ms // 1000)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_02a_2
grading_02a_2.verify("02a.2", answer_2)
### END HIDDEN TESTS

# %% [markdown]
# ## 重试次数跟着消息走
# 上面每次投递的 `reconsume_times` 都在增长。Broker 把它存在哪里？图：一条失败三次的消息（每个消息标记都标上了这个数）。往前单步：它停在 c1 第二次消费 M0001 失败时，问这条消息去哪里。

# %% tags=["nbval-ignore-output"]
count_dash = Dashboard(failing_lab, knobs={"failures": 3, "messages": 1}, horizon="3m", checkpoints=[
    Checkpoint(before="send_back", msg_id="M0001", nth=2, ask="where", optional=True,
               name="M0001 的重试失败后去哪里",
               question="c1 在第一次重试时又消费 M0001 失败。下一步之后 M0001 在哪里？请在图上点击那个位置（或点按钮）。",
               hint="Broker 根据它重新存储的消息里带着的次数来选延迟级别。",
               explain=sealed_explanation("02a.count")),
])
count_dash

# %% [markdown]
# ### 练习 3 — 先预测，再运行
# 在第二次投递时，监听器读取 `msgs[0].reconsume_times` 和 `msgs[0].properties.get("RECONSUME_TIME")`。它读到什么？用一个二元组 `(reconsume_times, property)` 回答。

# %% nbgrader={"grade": false, "grade_id": "ex02a_3_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_3 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_3 = (1, None)
### END SOLUTION

# %%
seen = []


def peek(msgs, ctx):
    """记下监听器能读到的重试次数信息，然后失败一次。"""
    m = msgs[0]
    seen.append((m.reconsume_times, m.properties.get("RECONSUME_TIME")))
    return RECONSUME_LATER if m.reconsume_times == 0 else CONSUME_SUCCESS


lab, p, c = one_queue_lab(peek)
lab.at("1s", p.send, Message("TopicTest", "x"))
lab.run(until="20s")
print(table([[m.topic, m.queue_id, m.reconsume_times] for m in lab.brokers["broker-a"].commit_log.live()],
            ["CommitLog entry", "queue", "reconsume_times"]))

# %% nbgrader={"grade": true, "grade_id": "ex02a_3", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("02a.3", answer_3, seen[1])
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_02a_3
grading_02a_3.verify("02a.3", answer_3)
### END HIDDEN TESTS

# %% [markdown]
# > **常见说法 vs. 源码。** “重试次数就是 `RECONSUME_TIME` 属性。”——`reconsumeTimes` 是每条 CommitLog 记录里的一个字段（第 13 个字段，由 `CommitLog` 的追加回调写入，读回时放进 `MessageExt.reconsumeTimes`）。
# > `asyncConsumerSendMsgBack` 用 `reconsumeTimes + 1` 存储新副本，并复制原消息的属性，而属性里没有这个计数；定时服务把副本移到 `%RETRY%` 时保留这个字段。这个属性只在客户端自己向 `%RETRY%` Topic 发送消息时才存在：
# > `sendKernelImpl` 把它移进请求头（实验 02b）。

# %% [markdown]
# ## 要点
# - 消费失败 = `RECONSUME_LATER`、null、一个异常，或者 `ackIndex` < size−1；之后的处理完全一样。
# - 消费失败的消息被回传给 Broker，由 Broker 存一份发往 `%RETRY%<group>`（重试队列）的延迟副本：级别为
#   3 + `reconsumeTimes`，除非监听器设置了 `delayLevelWhenNextConsume`——而且它可以每次调用单独设置，所以同一条消息的每次投递都可以选择自己的级别（`examples/listener_per_call.yaml`）。
# - 下一个：[02b](02b_send_back_failures.ipynb)——回传本身失败时、慢监听器，以及每个实例各自的上限。

# %% [markdown]
# ## 你的得分
# 最后运行这个单元：本实验的每个练习一行，来自你运行过的检查。

# %%
score("02a")
