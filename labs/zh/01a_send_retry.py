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
# [目录](README.md) · [← 上一个](00_tour.ipynb) · [下一个 →](01b_send_status_timeout.ipynb)

# %% [markdown]
# # 01a · Producer 发送：哪些失败会重试，重试发往哪里
#
# **目标：** 看清每种发送方式下，哪些失败会触发发送重试、每次重试发往哪里。源码：`client/.../impl/producer/DefaultMQProducerImpl.java`（`sendDefaultImpl`）、
# `client/.../impl/producer/TopicPublishInfo.java`（`selectOneMessageQueue`）、`client/.../impl/MQClientAPIImpl.java`
# （`onExceptionImpl`）、`client/.../producer/DefaultMQProducer.java`（默认值、`retryResponseCodes`）。下一个，[01b](01b_send_status_timeout.ipynb)：调用方拿回的是什么。

# %% [markdown]
# 默认值：`sendMsgTimeout` = 3000 ms，`retryTimesWhenSendFailed` = 2（同步发送：共 3 次尝试），
# `retryTimesWhenSendAsyncFailed` = 2。

# %%
from rmqlab import Lab, Message, set_language
from rmqlab.course.exercises import assert_right, check, score, show_trace

set_language("zh")  # 仪表盘的按钮、图例和每一步的说明都用简体中文
SEED = 7


# %%
def cluster(**producer_options):
    """两个 Broker，每个上面 TopicTest 各 4 个队列；一个轮询从 0 开始的 Producer。"""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("TopicTest")
    return lab, lab.add_producer("pg", send_which_queue_start=0, **producer_options)


# %%
SEND = ("send_attempt", "send_result", "send_failed")
SEND_MODES = ["send", "send_async", "send_oneway"]


# %%
def sends_every_second(lab, producer, *, first=1, count=4, mode="send", topic="TopicTest"):
    """从第 ``first`` 秒起每秒安排一条消息 m1、m2……共 ``count`` 条，每条用 ``producer.<mode>`` 发送。"""
    for k in range(count):
        lab.at(f"{first + k}s", getattr(producer, mode), Message(topic, f"m{k + 1}"))


# %% [markdown]
# 每一节都从它的图开始：一个 `Dashboard`（仪表盘）重放一次小运行。用“单步”（或“播放”）走一遍，在它停下等你的时候回答这一节的问题，再往前走看答案。它的参数可以改变这次运行（改后点“重建”）。


# %% [markdown]
# ## 一次小运行：路由已缓存之后，broker-a 宕机

# %%
def broker_a_dies(mode="send", sends=1):
    """1 s 时一次预热发送把路由缓存下来，broker-a 在 2 s 宕机，然后从 3 s 起发送 ``sends`` 条消息。"""
    lab, p = cluster()
    lab.at("1s", p.send, Message("TopicTest", "warm-up"))
    lab.at("2s", lab.broker_down, "broker-a")
    sends_every_second(lab, p, first=3, count=sends, mode=mode)
    return lab


# %% [markdown]
# 图：broker-a 在 2 s 宕机（Producer 缓存的路由里仍然有它），然后是八次同步发送。预热消息是 `M0001`，所以 m1 是
# `M0002`。它的几次尝试都在同一毫秒里发生（同步发送立即重试，在一个调度步里），图停在两次尝试之间：第 1 次尝试刚刚失败（它发往的队列上有一个打叉的淡色影子，“事件”标签页写明为什么失败），接下来是第 2 次。预测第 2 次尝试发往哪里，再往前走。

# %% jupyter={"source_hidden": true}
# 图上显示的话。其中的答案（{answer}、{queue_id}、{broker} …）都是字段，由图按它显示的运行填入：这个单元一个也不写明。
ASK_B0 = (
    "pg 对 M0002 的第 1 次尝试刚刚失败（打叉的影子标出它发往哪里，“事件”标签页写明为什么失败）。第 2 次尝试发往哪里？"
    "请在图上点击那个队列（或点按钮）。"
)
HINT_B0 = (
    "同步发送立即重试，共用一个 sendMsgTimeout 预算，并用 selectOneMessageQueue(lastBrokerName) 选下一个队列："
    "轮询继续前进，跳过上一次尝试的 Broker。"
)

# %% tags=["nbval-ignore-output"]
from rmqlab.widgets.checkpoints import Checkpoint, sealed_explanation
from rmqlab.widgets.dashboard import Dashboard

dash = Dashboard(broker_a_dies, knobs={"mode": "send", "sends": 8}, knob_options={"mode": SEND_MODES}, horizon="12s",
                 checkpoints=[Checkpoint(before="send_attempt", msg_id="M0002", nth=2, inside_step=True, ask="where",
                                         optional=True, name="M0002 的第 2 次尝试发往哪里", question=ASK_B0,
                                         hint=HINT_B0, explain=sealed_explanation("01a.second-try"))])
dash


# %% [markdown]
# ### 练习 1 — 先预测，再运行
# 同样的故障，但这条消息用 `send_oneway` 发送。它有几次尝试？先预测，再把图的参数 `mode` 设为 `send_oneway`，点“重建”并单步走一遍。

# %% nbgrader={"grade": false, "grade_id": "ex01a_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_1 = 1
### END SOLUTION

# %%
lab, p = cluster()
lab.at("1s", p.send, Message("TopicTest", "warm-up"))
lab.at("2s", lab.broker_down, "broker-a")
lab.at("3s", p.send_oneway, Message("TopicTest", "fire-and-forget"))
lab.run(until="5s")
show_trace(lab.trace, *SEND, msg_id="M0002")

# %% nbgrader={"grade": true, "grade_id": "ex01a_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("01a.1", answer_1, lab.sends[1].attempts)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_01a_1
grading_01a_1.verify("01a.1", answer_1)
### END HIDDEN TESTS

# %% [markdown]
# **第一张图，列成表**（它的问题的答案）：每个队列是怎么选出来的。路由先列出 `broker-a` 的队列 0–3，再列出 `broker-b` 的队列 0–3（共 8 个队列），
# `sendWhichQueue` 是一个计数器，每次选择前先自增（`list[++index % 8]`）。预热发送用了下标 1（broker-a 队列 1），
# m1 的第一次尝试用了下标 2（broker-a 队列 2）。重试时，`selectOneMessageQueue(lastBrokerName)` 不断自增，直到队列所在的 Broker 不是刚刚失败的那个：下标 3 是 broker-a 队列 3（跳过），下标 4 是 broker-b 队列 0。两次尝试之间不休眠（“立即重发”）。而单向发送（oneway）只有 1 次尝试：`sendDefaultImpl` 只重试同步发送（否则 `timesTotal` = 1）。

# %%
lab = broker_a_dies()
lab.run(until="5s")
show_trace(lab.trace, *SEND)

# %% [markdown]
# ## 异步发送：重试发往哪里？
# `send(msg, callback)` 只重试*没有响应*的失败，重试在 `MQClientAPIImpl` 内部进行，并用
# `selectOneMessageQueue(failedBroker)` 决定下一次试哪个 Broker。图：用 `send_async` 发送的同一次小运行。往前单步：它停在
# m1（M0002）的第一次尝试失败之后，问第二次尝试发往哪里。

# %% tags=["nbval-ignore-output"]
async_dash = Dashboard(
    broker_a_dies, knobs={"mode": "send_async", "sends": 8}, knob_options={"mode": SEND_MODES}, horizon="12s",
    checkpoints=[Checkpoint(before="send_attempt", msg_id="M0002", nth=2, inside_step=True, ask="where",
                            optional=True, name="M0002 的异步重试发往哪里",
                            question="pg 对 M0002 的 ASYNC 第 1 次尝试刚刚失败。第 2 次尝试发往哪里？请在图上点击那个队列"
                                     "（或点按钮）。",
                            hint="ASYNC 的重试是在 MQClientAPIImpl.onExceptionImpl 中发起的，不在 sendDefaultImpl 的循环里："
                                 "它从 selectOneMessageQueue 的返回值里取了什么，又重新发送了什么？",
                            explain=sealed_explanation("01a.async-retry"))],
)
async_dash

# %% [markdown]
# ### 练习 2 — 先预测，再运行
# 同一机制的另一次运行：Producer 的轮询从后一个队列开始（`send_which_queue_start=1`），所以 m1 的第一次 ASYNC
# 尝试发往 broker-a 的队列 3，而 broker-a 已宕机。它的重试发往 broker-b。发往 broker-b 的哪个**队列 ID**？

# %% nbgrader={"grade": false, "grade_id": "ex01a_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_2 = 3
### END SOLUTION

# %%
lab = Lab(seed=SEED)
lab.add_broker("broker-a")
lab.add_broker("broker-b")
lab.create_topic("TopicTest")
p = lab.add_producer("pg", send_which_queue_start=1)
lab.at("1s", p.send, Message("TopicTest", "warm-up"))
lab.at("2s", lab.broker_down, "broker-a")
lab.at("3s", p.send_async, Message("TopicTest", "async"))
lab.run(until="5s")
show_trace(lab.trace, *SEND, msg_id="M0002")
attempts = {e.get("attempt"): e for e in lab.trace.of_kind("send_attempt") if e.msg_id == "M0002"}

# %% nbgrader={"grade": true, "grade_id": "ex01a_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("01a.2", answer_2, attempts[2].get("queue_id"))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_01a_2
grading_01a_2.verify("01a.2", answer_2)
### END HIDDEN TESTS

# %% [markdown]
# > **常见说法 vs. 源码。** “异步发送会在同一个 Broker 上重试。”——对 `send(msg, callback)` 来说，
# > `MQClientAPIImpl.onExceptionImpl` 会避开失败的 Broker 重新选择，但只取这次选择的 *Broker 名*：它把同一个请求（连同队列 ID）重新发往新 Broker 的地址。只有 `send(msg, mq, cb)` 和带选择器（selector）的发送才留在同一个
# > Broker 上。而且只有*没有*响应的失败才会重试：错误响应直接交给 `onException`。

# %% [markdown]
# ## Broker 的哪些应答会重试
# 这里 broker-a 什么也不存：它对每次发送都应答一个错误码。pg 会再试吗？


# %%
def broker_a_answers(send_error="SYSTEM_ERROR", sends=1):
    """broker-a 对每次发送都应答错误码 ``send_error``；从 1 s 起 ``sends`` 次同步发送。"""
    lab, p = cluster()
    lab.set_broker_fault("broker-a", send_error=send_error)
    sends_every_second(lab, p, count=sends)
    return lab


# %% [markdown]
# 图：broker-a 对每次发送都应答 SYSTEM_ERROR（code 1）。单步走完第一次发送；回答完练习 3 之后，把参数 `send_error`
# 改成 SYSTEM_BUSY，点“重建”，再单步走一遍。

# %% tags=["nbval-ignore-output"]
answers_dash = Dashboard(
    broker_a_answers,
    knobs={"send_error": "SYSTEM_ERROR", "sends": 8},
    knob_options={"send_error": ["SYSTEM_ERROR", "SYSTEM_BUSY"]},
    horizon="10s",
    checkpoints=[
        Checkpoint(before="send_attempt", msg_id="M0001", nth=2, inside_step=True, ask="where", optional=True,
                   name="错误应答之后 M0001 去哪里",
                   question="broker-a 用一个错误码应答了 pg 对 M0001 的第 1 次尝试。下一步之后 M0001 在哪里：存到了某处，"
                            "还是失败了？请在图上点击那个位置（或点按钮）。",
                   hint="错误应答在客户端抛出 MQBrokerException。SYSTEM_ERROR 在 DefaultMQProducer.retryResponseCodes 里吗？"
                        "重试会避开哪个 Broker？",
                   explain=sealed_explanation("01a.error-retried")),
    ],
)
answers_dash

# %% [markdown]
# 同一次运行（一次发送），用表格表示：

# %%
lab = broker_a_answers("SYSTEM_ERROR").run(until="5s")
show_trace(lab.trace, *SEND)

# %% [markdown]
# ### 练习 3 — 先预测，再运行
# 现在 broker-a 应答 SYSTEM_BUSY（code 2）：它的发送线程池满了，这是流控的应答（`[REJECTREQUEST]system busy`、`[TIMEOUT_CLEAN_QUEUE]…`）。这次同步发送尝试了几次？

# %% nbgrader={"grade": false, "grade_id": "ex01a_3_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_3 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_3 = 1
### END SOLUTION

# %%
lab, p = cluster()
lab.set_broker_fault("broker-a", send_error="SYSTEM_BUSY")
lab.at("1s", p.send, Message("TopicTest", "m1"))
lab.run(until="5s")
show_trace(lab.trace, *SEND)

# %% nbgrader={"grade": true, "grade_id": "ex01a_3", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("01a.3", answer_3, lab.sends[0].attempts)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_01a_3
grading_01a_3.verify("01a.3", answer_3)
### END HIDDEN TESTS

# %% [markdown]
# 两次运行背后的规则：错误码会在客户端抛出 `MQBrokerException`，只有当这个错误码在 `DefaultMQProducer.retryResponseCodes`
# 里时，`sendDefaultImpl` 才会重试：TOPIC_NOT_EXIST、SERVICE_NOT_AVAILABLE、SYSTEM_ERROR、NO_PERMISSION、
# NO_BUYER_ID、NOT_IN_CURRENT_UNIT。
#
# “换一个 Broker”得先有另一个 Broker。`Solo` 只在 broker-a 上；broker-a 应答 SYSTEM_ERROR：

# %%
lab = Lab(seed=SEED)
lab.add_broker("broker-a")
lab.add_broker("broker-b")
lab.create_topic("Solo", brokers=["broker-a"])
p = lab.add_producer("pg", send_which_queue_start=0)
lab.set_broker_fault("broker-a", send_error="SYSTEM_ERROR")
lab.at("1s", p.send, Message("Solo", "m1"))
lab.run(until="5s")
show_trace(lab.trace, *SEND)

# %% [markdown]
# 三次尝试都打到了 broker-a：当路由里的每个队列都属于上一次失败的 Broker 时，`selectOneMessageQueue` 退回到普通的轮询选择，所以重试只是换到 broker-a 的下一个队列。

# %% [markdown]
# ## 要点
# - 一次发送有几次尝试，取决于它的发送方式（同步、异步、单向）和 `retryTimesWhenSendFailed`；
#   `sendDefaultImpl` 立即依次尝试，没有退避等待。
# - 重试会选另一个 Broker 上的队列——*前提是这个 Topic 有另一个 Broker*（`selectOneMessageQueue(lastBrokerName)`）；只在一个 Broker 上的 Topic 只在这个 Broker 的队列间轮换。
# - Broker 的哪些应答值得重试，是一个固定的集合 `DefaultMQProducer.retryResponseCodes`（4.9.x）：指望重试之前，先读一读它。
# - 下一个：[01b](01b_send_status_timeout.ipynb)——发送状态、共享的超时、重复消息、慢 Broker。

# %% [markdown]
# ## 你的得分
# 最后运行这个单元：本实验的每个练习一行，来自你运行过的检查。

# %%
score("01a")
