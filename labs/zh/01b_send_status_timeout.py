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
# [目录](README.md) · [← 上一个](01a_send_retry.ipynb) · [下一个 →](02a_consume_failure_send_back.ipynb)
#
# # 01b · Producer 发送：发送状态、共享的超时、重复消息与慢 Broker
#
# **目标：** 看 Broker 应答一个状态、应答太晚或者根本不应答时，调用方拿回的是什么，以及 Producer 怎样绕开一个慢
# Broker。重试发往哪里见实验 [01a](01a_send_retry.ipynb)。源码：
# `DefaultMQProducerImpl.sendDefaultImpl`、`client/.../latency/MQFaultStrategy.java`、`LatencyFaultToleranceImpl.java`、
# `DefaultMQProducer.java`。
#
# 默认值：`sendMsgTimeout` = 3000 ms，`retryTimesWhenSendFailed` = 2（同步发送：共 3 次尝试），
# `retryTimesWhenSendAsyncFailed` = 2，单向发送（oneway）：1 次尝试。

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

def sends_every_second(lab, producer, *, first=1, count=4, mode="send", topic="TopicTest"):
    """从第 ``first`` 秒起每秒安排一条消息 m1、m2……共 ``count`` 条，每条用 ``producer.<mode>`` 发送。"""
    for k in range(count):
        lab.at(f"{first + k}s", getattr(producer, mode), Message(topic, f"m{k + 1}"))


# %% [markdown]
# 每一节都从它的图开始：一个 `Dashboard`（仪表盘）重放一次小运行。用“单步”（或“播放”）走一遍，在它停下等你的时候回答这一节的问题，再往前走看答案。它的参数可以改变这次运行（改后点“重建”）。


# %% [markdown]
# ## 状态不是异常：FLUSH_DISK_TIMEOUT
# 在 `flushDiskType=SYNC_FLUSH`（同步刷盘）下，一个 Broker 存下了消息、却没能及时刷盘，就会应答 FLUSH_DISK_TIMEOUT
# （还有 FLUSH_SLAVE_TIMEOUT、SLAVE_NOT_AVAILABLE）。客户端把它们变成一个 `SendStatus`。
#
# 图：broker-a 存下每一条消息，却都应答 FLUSH_DISK_TIMEOUT（它的令牌上的 **!**）；broker-b 正常。单步走到 M0001
# 的应答：运行在那里停下，问你 pg 把下一条消息发到哪里。之后做练习 1 时，用参数打开
# `retry_another_broker_when_not_store_ok`，并让 broker-b 也这样应答（`broker_b_too`）。


# %%
def flush_timeouts(retry_another_broker_when_not_store_ok=False, broker_b_too=False, sends=1):
    """broker-a（``broker_b_too`` 时 broker-b 也一样）存下消息，却应答 FLUSH_DISK_TIMEOUT；从 1 s 起 ``sends`` 次同步发送。"""
    lab, p = cluster(retry_another_broker_when_not_store_ok=retry_another_broker_when_not_store_ok)
    lab.set_broker_fault("broker-a", put_status="FLUSH_DISK_TIMEOUT")
    if broker_b_too:
        lab.set_broker_fault("broker-b", put_status="FLUSH_DISK_TIMEOUT")
    sends_every_second(lab, p, count=sends)
    return lab


# %% tags=["nbval-ignore-output"]
from rmqlab.widgets.checkpoints import Checkpoint, sealed_explanation
from rmqlab.widgets.dashboard import Dashboard

flush_dash = Dashboard(
    flush_timeouts, knobs={"retry_another_broker_when_not_store_ok": False, "broker_b_too": False, "sends": 8},
    horizon="10s", checkpoints=[
        Checkpoint(before="stored", msg_id="M0002", ask="where", name="FLUSH_DISK_TIMEOUT 之后 M0002 去了哪里",
                   question="broker-a 存下了 M0001，却应答 FLUSH_DISK_TIMEOUT（它令牌上的 !）。下一步之后 M0002 在哪里？"
                            "请在图上点击那个位置（或点按钮）。",
                   explain=sealed_explanation("01b.after-flush-timeout")),
    ],
)
flush_dash

# %% [markdown]
# 发送一次，只有 broker-a 应答 FLUSH_DISK_TIMEOUT，用表格表示：

# %%
lab, p = cluster()
lab.set_broker_fault("broker-a", put_status="FLUSH_DISK_TIMEOUT")
lab.at("1s", p.send, Message("TopicTest", "m1"))
lab.run(until="5s")
show_trace(lab.trace, *SEND, "stored")
print("调用方拿到：", lab.sends[0].result.send_status.value, "| 异常：", lab.sends[0].error)

# %% [markdown]
# 一次尝试，消息已存储，正常返回：调用方必须自己查看 `sendStatus`。只有 *Producer* 的设置
# `retryAnotherBrokerWhenNotStoreOK`（默认 false）会让 `sendDefaultImpl` 在状态不是 OK 时再试一次。
#
# ### 练习 1 — 先预测，再运行
# 两个 Broker 都应答 FLUSH_DISK_TIMEOUT，Producer 设置了 `retry_another_broker_when_not_store_ok=True`。集群里一共存下了几份 `M0001`？

# %% nbgrader={"grade": false, "grade_id": "ex01b_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_1 = 3
### END SOLUTION

# %%
lab, p = cluster(retry_another_broker_when_not_store_ok=True)
lab.set_broker_fault("broker-a", put_status="FLUSH_DISK_TIMEOUT")
lab.set_broker_fault("broker-b", put_status="FLUSH_DISK_TIMEOUT")
lab.at("1s", p.send, Message("TopicTest", "m1"))
lab.run(until="5s")
show_trace(lab.trace, *SEND, "stored")
copies = len(lab.trace.of_kind("stored"))
print("调用方拿到：", lab.sends[0].result.send_status.value, "| 异常：", lab.sends[0].error)

# %% nbgrader={"grade": true, "grade_id": "ex01b_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("01b.1", answer_1, copies)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_01b_1
grading_01b_1.verify("01b.1", answer_1)
### END HIDDEN TESTS

# %% [markdown]
# ## 慢 Broker 与发送超时
# 现在 broker-a 要 4 s 之后才应答；pg 的 `sendMsgTimeout` 是 3000 ms。
#
# 图：八次发送，每 5 s 一次；轮询依次轮到 broker-a 和 broker-b 的队列。往前单步：运行停在第一次发往 broker-a 的尝试之后，问 pg 什么时候放弃它。


# %%
def slow_broker_a(response_delay_ms=4000, sends=1):
    """broker-a 在 ``response_delay_ms`` 之后才应答；从 1 s 起每 5 s 一次同步发送，共 ``sends`` 次。"""
    lab, p = cluster()
    lab.set_broker_fault("broker-a", response_delay_ms=response_delay_ms)
    for k in range(sends):
        lab.at(f"{1 + 5 * k}s", p.send, Message("TopicTest", f"m{k + 1}"))
    return lab


# %% tags=["nbval-ignore-output"]
slow_dash = Dashboard(slow_broker_a, knobs={"response_delay_ms": 4000, "sends": 8}, horizon="45s", checkpoints=[
    Checkpoint(before="send_failed", msg_id="M0001", ask="when", optional=True, name="pg 何时放弃 M0001",
               question="broker-a 收到了 M0001，但应答很慢。send() 的调用方什么时候得到错误？请选时间。",
               hint="一次 SYNC 发送的所有尝试共用一个 sendMsgTimeout，从调用开始算。",
               explain=sealed_explanation("01b.budget")),
])
slow_dash

# %% [markdown]
# ### 练习 2 — 先预测，再运行
# 一次发往慢 broker-a 的同步发送，在调用方看到错误之前一共尝试了几次？

# %% nbgrader={"grade": false, "grade_id": "ex01b_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_2 = 1
### END SOLUTION

# %%
lab = slow_broker_a().run(until="10s")
show_trace(lab.trace, *SEND, "stored")

# %% nbgrader={"grade": true, "grade_id": "ex01b_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("01b.2", answer_2, lab.sends[0].attempts)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_01b_2
grading_01b_2.verify("01b.2", answer_2)
### END HIDDEN TESTS

# %% [markdown]
# `sendMsgTimeout` 是**所有尝试共用的一份预算**，从调用时开始计算，在每次尝试之前检查：发往 broker-a 的那一次尝试就把它用完了，所以没有重试发往 broker-b。注意 `stored` 这一行：Broker **确实**存下了消息，只是响应来晚了。

# %% [markdown]
# ## 存储之后响应丢失：会存下几份？
# 图：broker-a 存下消息，但它的应答永远到不了。往前单步：运行停在 m1 的发送当中，就在 broker-a 的应答丢失之后，问下一个收到 M0001 的是哪个 Broker。


# %%
def lost_responses(sends=1):
    """broker-a 存下每条消息，然后连接在响应之前断开；从 1 s 起 ``sends`` 次同步发送。"""
    lab, p = cluster()
    lab.set_broker_fault("broker-a", lose_responses=True)
    sends_every_second(lab, p, count=sends)
    return lab


# %% tags=["nbval-ignore-output"]
lost_dash = Dashboard(lost_responses, knobs={"sends": 8}, horizon="10s", checkpoints=[
    Checkpoint(before="send_attempt", msg_id="M0001", nth=2, inside_step=True, ask="who", optional=True,
               name="应答丢失后 M0001 发往哪个 Broker",
               question="broker-a 存下了 M0001，然后它的应答在回程中丢失。下一个收到 M0001 的是哪个 Broker？"
                        "请在图上点击它（或点按钮）。",
               hint="Producer 只看到没有应答：sendDefaultImpl 如何处理一次没有响应的失败？",
               explain=sealed_explanation("01b.lost")),
])
lost_dash

# %% [markdown]
# ### 练习 3 — 先预测，再运行
# broker-a 存下了消息，但连接在响应之前断开（`lose_responses=True`）。集群里最终存下了几份 `M0001`？

# %% nbgrader={"grade": false, "grade_id": "ex01b_3_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_3 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_3 = 2
### END SOLUTION

# %%
lab = lost_responses().run(until="5s")
show_trace(lab.trace, *SEND, "stored")
stored = lab.trace.of_kind("stored")

# %% nbgrader={"grade": true, "grade_id": "ex01b_3", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("01b.3", answer_3, len(stored))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_01b_3
grading_01b_3.verify("01b.3", answer_3)
### END HIDDEN TESTS

# %% [markdown]
# ## 把慢 Broker 暂时移出：延迟故障容错（latency fault tolerance）
# 默认关闭（`sendLatencyFaultEnable` = false）。图：`send_latency_fault_enable=True`，broker-a 对 1 s 的那次发送在 600 ms 后应答（发送成功），之后又变快。往前单步：它停在 5 s 的那次发送之前，问它发往哪里。


# %%
def slow_then_fast(delay_ms=600, **producer_options):
    """broker-a 在 2 s 之前要 ``delay_ms`` 才应答；1 s 发送一次，然后从 5 s 到 35 s 每 5 s 一次（尚未运行）。"""
    lab, p = cluster(**producer_options)
    lab.set_broker_fault("broker-a", response_delay_ms=delay_ms)
    lab.at("2s", lab.set_broker_fault, "broker-a", response_delay_ms=0)
    for t in ("1s", "5s", "10s", "15s", "20s", "25s", "30s", "35s"):
        lab.at(t, p.send, Message("TopicTest", f"sent at {t}"))
    return lab


# %% tags=["nbval-ignore-output"]
latency_dash = Dashboard(slow_then_fast, knobs={"send_latency_fault_enable": True}, horizon="40s", checkpoints=[
    Checkpoint(before="stored", msg_id="M0002", ask="where", optional=True, name="5 s 的那次发送去了哪里",
               question="pg 打开了 sendLatencyFaultEnable。broker-a 对 1 s 的那次发送（M0001）过了 600 ms 才应答，"
                        "从 2 s 起又恢复了快速。5 s 的那次发送（M0002）去了哪里？请在图上点击那个队列（或点按钮）。",
               hides=("kept_out_until",),
               explain=sealed_explanation("01b.five-second-send")),
])
latency_dash

# %% [markdown]
# ### 练习 4 — 先预测，再运行
# 图中的 broker-a 在 600 ms 后应答。现在它对 1 s 的那次发送在 **1 200 ms** 后应答——发送成功——并且从 2 s 起又变快了。
# Producer 把 broker-a 排除在队列选择之外，一直到哪个虚拟时间（单位 ms）？
#
# **规则。** 设置 `send_latency_fault_enable=True` 后，Producer 的 `MQFaultStrategy`
# 在**每一次**尝试之后给 Broker 打分：用这次尝试的耗时去查 `latencyMax` = 50、100、550、1000、2000、3000、15000 ms
# （取不超过它的最大一项），`notAvailableDuration` = 0、0、30 s、60 s、120 s、180 s、600 s 的同一行给出这个 Broker
# 被排除在队列选择之外多久，从这次尝试结束时算起；一次失败的尝试按 30 000 ms 计。之后 `selectOneMessageQueue`
# 沿着轮询跳过被排除的 Broker 的队列（所有 Broker 都被排除时，`pickOneAtLeast` 取最不坏的那个）。源码：
# `client/.../latency/MQFaultStrategy.java`、`LatencyFaultToleranceImpl.java`。

# %% nbgrader={"grade": false, "grade_id": "ex01b_4_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_4 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_4 = 62_200
### END SOLUTION

# %%
lab = slow_then_fast(delay_ms=1200, send_latency_fault_enable=True).run(until="40s")
show_trace(lab.trace, "send_result", fields=("broker", "queue_id", "not_available_until"))
out_until = lab.trace.first("send_result", msg_id="M0001").get("not_available_until")

# %% nbgrader={"grade": true, "grade_id": "ex01b_4", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("01b.4", answer_4, out_until)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_01b_4
grading_01b_4.verify("01b.4", answer_4)
### END HIDDEN TESTS

# %% [markdown]
# 同样的发送，不打开开关（默认）：轮询马上就让 broker-a 照常轮到。

# %%
default = slow_then_fast().run(until="40s")
print("打开开关：      ", [e.get("broker") for e in lab.trace.of_kind("send_result")])
print("不打开（默认）：", [e.get("broker") for e in default.trace.of_kind("send_result")])

# %% [markdown]
# > **常见说法 vs. 源码。** “Producer 只有在一个 Broker 失败之后才会避开它。”——打开 `sendLatencyFaultEnable` 后，一次耗时 550 ms 或更久的*成功*发送同样会把它的 Broker 移出（这里是 30 s）；而且这个开关默认是关闭的，所以默认的
# > Producer 在轮询轮到慢 Broker 时照样发给它。场景文件 `examples/slow_broker_avoided.yaml` 就是这次运行（`producers[].send_latency_fault_enable`）。

# %% [markdown]
# ## 要点
# - FLUSH_DISK_TIMEOUT 等作为 `SendResult` 的 `sendStatus` 返回：调用方必须查看它，而 Producer 的设置
#   `retryAnotherBrokerWhenNotStoreOK` 决定 `sendDefaultImpl` 是否再发一次。
# - 一次同步发送的所有尝试共用一份 3000 ms 的预算（`sendDefaultImpl` 在每次尝试之前检查它）。
# - `sendLatencyFaultEnable`（默认关闭）按一个 Broker 上一次尝试的耗时查表，把它排除在队列选择之外一段时间（`MQFaultStrategy`：`latencyMax` → `notAvailableDuration`）。
#
# ## 你的得分
# 最后运行这个单元：本实验的每个练习一行，来自你运行过的检查。

# %%
score("01b")
