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
# [目录](README.md) · [← 上一个](05_offsets_process_queue.ipynb) · [下一个 →](07a_orderly_locks.ipynb)
#
# # 06 · 用 MessageQueueSelector 发送顺序消息
#
# **目标：** 把每个订单固定到一个队列上；看看选择器出错、Broker 变慢和 Broker 宕机对顺序发送有什么影响；并分清
# RocketMQ
# 的两种顺序保证。源码：`DefaultMQProducerImpl.sendSelectImpl`、`client/.../producer/selector/SelectMessageQueueByHash.java`、`docs/en/Concept.md`（Normal
# / Strictly Ordered Message，普通顺序消息 / 严格顺序消息）。

# %%
from rmqlab import ConsumeOrderlyStatus, Lab, Message, set_language
from rmqlab.course.exercises import assert_right, check, score, show_trace

set_language("zh")  # 仪表盘的按钮、图例和每一步的说明都用简体中文
SEED = 7


# %%
# 本实验的各个场景，每个一个函数；下面每一节运行其中一个。等它的图提问时再读它。
def by_order_id(mqs, msg, order_id):
    """经典的选择器：order_id % len(mqs)，在路由当前有的队列上取模。"""
    return mqs[order_id % len(mqs)]

def ordered_lab(**producer_options):
    """两个 Broker × TopicTest 的 4 个队列，一个 Producer。"""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("TopicTest")
    return lab, lab.add_producer("pg", **producer_options)


def outage_lab(selector=by_order_id, orders=(3, 5), down_at="5s", **producer_options):
    """``orders``（3 和 5）用 `selector` 在 1 s、10 s 和 45 s 发送，每个事件以它的订单为键；broker-a 在 ``down_at``
    （5 s）宕机。返回 lab 和 {订单号: [它各次发送的 future，按时间顺序]}。"""
    lab, p = ordered_lab(**producer_options)
    sends = {order_id: [] for order_id in orders}

    def send(order_id, t):
        event = Message("TopicTest", f"订单 {order_id} @ {t}", keys=f"订单 {order_id}")
        sends[order_id].append(p.send_with_selector(event, selector, order_id))

    for t in ("1s", "10s", "45s"):
        for order_id in orders:
            lab.at(t, send, order_id, t)
    lab.at(down_at, lab.broker_down, "broker-a")
    return lab, sends

def with_orderly_consumer(lab, start):
    """顺序消费的 Consumer c1 订阅 TopicTest，在 ``start`` 启动，晚于图中的发送：有了它，图按每条消息的键（它的订单）着色，
    和小运行一样。"""
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=lambda msgs, ctx: ConsumeOrderlyStatus.SUCCESS,
                     orderly=True, name="c1", start=start)
    return lab

def outage_picture(selector="by_order_id", orders=4):
    """把 ``outage_lab`` 用作 Dashboard 的工厂函数：订单 3、4……（共 ``orders`` 个），选择器由 ``selector`` 指定；c1
    在 46 s 启动。"""
    return with_orderly_consumer(outage_lab(SELECTORS[selector], orders=tuple(range(3, 3 + orders)))[0], "46s")

def slow_a_lab(events=4):
    """从 1 s 起 broker-a 在 5 s 后才响应；订单 3（→ a3）从 2 s 起每 4 s 发送一个事件，共 ``events`` 个。"""
    lab, p = ordered_lab()
    lab.at("1s", lab.set_broker_fault, "broker-a", response_delay_ms="5s")
    for k in range(events):
        event = Message("TopicTest", f"订单 3 的事件 {k + 1}", keys="订单 3")
        lab.at(f"{2 + 4 * k}s", p.send_with_selector, event, by_order_id, 3)
    return lab

ALL_QUEUES = sorted(ordered_lab()[0].namesrv.route("TopicTest").write_queues())

def strict_by_order_id(mqs, msg, order_id):
    """在 Topic 的完整队列列表上取 order_id % 8；那个队列不在路由里时返回 None（不发送）。"""
    wanted = ALL_QUEUES[order_id % len(ALL_QUEUES)]
    return wanted if wanted in mqs else None

SELECTORS = {"by_order_id": by_order_id, "strict_by_order_id": strict_by_order_id}


# %% [markdown]
# ## 一次小运行：两个订单，两个队列
# 图：订单 3 和订单 5 每秒各发送一个事件，经过上面的选择器，每条消息都以它的订单作为键（`keys`，即分片键）；最后一次发送之后，顺序消费的 Consumer c1 启动。消息按订单着色：看每个订单的事件发往哪个队列，再看 c1 按顺序消费每个队列。单步：在订单 5 的第一个事件被存储之前，图会停下问它存到哪里。图下的表格是订单 3 的第一次发送，即图的第一步（订单 5 的那次就是问题）。

# %% tags=["nbval-ignore-output"]
from rmqlab.widgets.checkpoints import Checkpoint, sealed_explanation
from rmqlab.widgets.dashboard import Dashboard


def in_order(msgs, ctx):
    """顺序消费的监听器，接受每个事件。"""
    return ConsumeOrderlyStatus.SUCCESS


def two_orders(events=4):
    """订单 3 和订单 5 各发送 ``events`` 个事件（键：订单），从 1 s 起每秒一个，用 ``by_order_id``；
    顺序消费的 Consumer c1 在最后一次发送半秒之后启动。"""
    lab, p = ordered_lab()
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=in_order, orderly=True, name="c1",
                     start=f"{events + 1}.5s")
    for k in range(events):
        for order_id in (3, 5):
            event = Message("TopicTest", f"订单 {order_id} 事件 {k + 1}", keys=f"订单 {order_id}")
            lab.at(f"{1 + k}s", p.send_with_selector, event, by_order_id, order_id)
    return lab


tiny_dash = Dashboard(two_orders, knobs={"events": 4}, horizon="8s", checkpoints=[
    Checkpoint(before="stored", msg_id="M0002", ask="where", optional=True, name="订单 5 的第一个事件发往哪里",
               question="订单 3 的第一个事件（M0001）去了 a3，即 broker-a 的队列 3。订单 5 的第一个事件（{msg}）存到哪里？"
                        "在图中点击那个队列（或按钮）。",
               hint="by_order_id 在路由的队列列表上返回 mqs[order_id % len(mqs)]，列表的顺序是：先 broker-a 的四个队列，"
                    "再 broker-b 的。",
               explain=sealed_explanation("06.order-5-first"))])
tiny_dash

# %%
lab, p = ordered_lab()
for order_id in (3, 5):
    lab.at("1s", p.send_with_selector, Message("TopicTest", f"订单 {order_id} 已创建"), by_order_id, order_id)
_ = lab.run(until="2s")
show_trace(lab.trace, "send_attempt", "send_result", msg_id="M0001")

# %% [markdown]
# 选择器看到路由里的 8 个队列 `[a0..a3, b0..b3]`，按订单号选其中一个。一个订单的每个事件都发往同一个队列，而一个队列是按顺序消费的——所以每个订单的事件都按顺序被消费。

# %% [markdown]
# ### 选择器出错时
# 选择器是应用自己的代码，它也会出错：抛出异常，或者找不到队列。图：订单 5 在 1 s、4 s、7 s 和 8 s 用 `by_order_id` 发送；订单 3 在 2 s 用一个会抛出异常的选择器（`throws`）发送，在 3 s 用一个返回 `None` 的选择器（`returns_none`）发送，之后再用 `by_order_id` 发送两次（5 s、6 s）；c1 在 8.5 s 启动。单步：在订单 3 的第一次发送结束之前，图会停下问这个事件到底有没有到达 Broker。

# %% tags=["nbval-ignore-output"]
def throws(mqs, msg, order_id):
    """一个有 bug 的选择器。"""
    raise KeyError(order_id)

def returns_none(mqs, msg, order_id):
    """一个为这个订单找不到队列的选择器。"""
    return None

def failing_selectors(events=4):
    """订单 5（``by_order_id``）在 1 s、4 s、7 s 和 8 s 发送；订单 3 的 ``events`` 个事件：2 s 用 ``throws``，3 s 用
    ``returns_none``，之后用 ``by_order_id``，从 5 s 起每秒一个。"""
    lab, p = ordered_lab()
    for t in ("1s", "4s", "7s", "8s"):
        lab.at(t, p.send_with_selector, Message("TopicTest", f"订单 5 @ {t}", keys="订单 5"), by_order_id, 5)
    for k in range(events):
        t, selector = (("2s", throws), ("3s", returns_none))[k] if k < 2 else (f"{3 + k}s", by_order_id)
        event = Message("TopicTest", f"订单 3 的事件 {k + 1}", keys="订单 3")
        lab.at(t, p.send_with_selector, event, selector, 3)
    return with_orderly_consumer(lab, "8.5s")


failing_dash = Dashboard(failing_selectors, knobs={"events": 4}, horizon="10s", checkpoints=[
    Checkpoint(before="send_failed", msg_id="M0002", ask="whether", optional=True,
               name="被拒绝的事件是否到达 Broker",
               holds=lambda trace, snap: any(e.kind.value == "send_attempt" and e.msg_id == "M0002" for e in trace),
               question="pg 用一个会抛出 KeyError 的选择器发送订单 3 的一个事件（M0002）。关于 M0002 的请求，有没有"
                        "任何一个到达 Broker？",
               hint="sendSelectImpl 在发送任何东西之前先向选择器要一个队列：没有队列，它能发送什么，又能发给谁？",
               explain=sealed_explanation("06.selector-throws"))])
failing_dash

# %% [markdown]
# 单步越过这个问题，看一个抛出异常的选择器、一个返回 `null` 的选择器，会让订单 3 的发送留下什么（“时空图”标签页数出它的尝试次数）。

# %% [markdown]
# ## Broker 宕机
# 订单 3–6 在 1 s、10 s 和 45 s 发送时，broker-a 在 5 s 宕机（`outage_lab`，以订单为键）；pg 每 30 s 重新拉取一次路由（`pollNameServerInterval`）。单步：图停在 10 s，之后在 45 s 的发送之前再停一次；顺序消费的 Consumer c1 在 46 s 启动。

# %% tags=["nbval-ignore-output"]
dash = Dashboard(outage_picture, knobs={"selector": "by_order_id", "orders": 4},
                 knob_options={"selector": ["by_order_id", "strict_by_order_id"]}, horizon="50s",
                 checkpoints=[Checkpoint(before="stored", msg_id="M0006", ask="where", optional=True,
                                         name="订单 4 在 10 s 发往哪里",
                                         question="broker-a 已宕机，订单 3 的发送刚刚失败。订单 4 在 10 s 的事件（M0006）"
                                                  "存到哪里？在图中点击那个队列（或按钮）。",
                                         hint="sendSelectImpl 按选择器说的发送：by_order_id 在 Producer 的"
                                              "路由此刻列出的所有队列上返回 mqs[order_id % len(mqs)]，包括 broker-a "
                                              "的队列，直到它下一次拉取路由（每 30 s 一次）。",
                                         explain=sealed_explanation("06.order-4-at-10s")),
                              Checkpoint(before="stored", msg_id="M0009", ask="where", optional=True,
                                         name="拉取路由之后订单 3 发往哪里",
                                         question="10 s 时 pg 的路由仍列出 broker-a 的队列；它下一次拉取路由在 30 s，"
                                                  "那时会发现 broker-a 已宕机，把这些队列去掉。订单 3 在 45 s 发送它的"
                                                  "最后一个事件（{msg}）。它将存到哪里？在图中点击那个队列（或按钮）。",
                                         hint="by_order_id 在发送那一刻 Producer 的路由列出的队列上返回 "
                                              "mqs[order_id % len(mqs)]：30 s 拉取路由之后，还剩几个队列，哪一个是这个"
                                              "订单的？",
                                         explain=sealed_explanation("06.order-3-after-poll"))])
dash

# %% [markdown]
# ### 练习 1 — 先预测，再运行
# 同样的宕机，但 pg 创建时设置了 `retry_times_when_send_failed=5`（默认是 2）。订单 3 在 10 s 的那次选择器发送尝试了几次？

# %% nbgrader={"grade": false, "grade_id": "ex06_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_1 = 1
### END SOLUTION

# %%
lab, sends = outage_lab(retry_times_when_send_failed=5)
lab.run(until="20s")
at_10s = sends[3][1]

# %% nbgrader={"grade": true, "grade_id": "ex06_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("06.1", answer_1, at_10s.attempts)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_06_1
grading_06_1.verify("06.1", answer_1)
### END HIDDEN TESTS

# %%
show_trace(lab.trace, "send_attempt", "send_failed")

# %% [markdown]
# 没有重试循环：连接错误直接交给调用方。换一个队列重试，会把订单 3 的事件排到另一个队列的消息后面。抛出异常或返回 `null` 的选择器也是这样失败，只是更早：在任何请求之前就抛出 `MQClientException`——“选择器出错时”那张图里，M0002 和 M0003 打着叉留在 pg 的“发送失败”区，尝试 0 次，订单 3 的这两个事件没有进入任何队列。
#
# ### 练习 2 — 先预测，再运行
# 30 s 的路由刷新之后，列表里只剩 broker-b 的 4 个队列。图问的是订单 3；这里是订单 **9** 用同一个选择器在 1 s、10 s
# 和 45 s 发送。订单 9 在 45 s 的事件发往哪个队列？按 `"TopicTest@broker-b:0"` 的格式回答。

# %% nbgrader={"grade": false, "grade_id": "ex06_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_2 = "TopicTest@broker-b:1"
### END SOLUTION

# %%
lab, sends = outage_lab(orders=(9,))
lab.run(until="50s")
late = next(e for e in lab.trace.of_kind("send_attempt") if e.msg_id == sends[9][2].msg_id)
where = f"TopicTest@{late.get('broker')}:{late.get('queue_id')}"

# %% nbgrader={"grade": true, "grade_id": "ex06_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("06.2", answer_2, where)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_06_2
grading_06_2.verify("06.2", answer_2)
### END HIDDEN TESTS

# %%
show_trace(lab.trace, "send_attempt", "send_failed", fields=("broker", "queue_id", "error"))

# %% [markdown]
# ## Broker 变慢：超时
# 选择器发送的第三种错误是超时：从 1 s 起 broker-a 对每个请求都晚 5 s 应答（它名字下面写着“晚 5 s 应答”；`slow_a_lab`），订单 3 的事件发往它的 a3。单步：它停在第一次发送之前，问 Producer 处理完之后这个事件在哪里。

# %% tags=["nbval-ignore-output"]
slow_dash = Dashboard(slow_a_lab, knobs={"events": 4}, horizon="25s", checkpoints=[
    Checkpoint(before="send_attempt", msg_id="M0001", ask="where", optional=True, name="到底存没存",
               question="pg 即将把订单 3 的第一个事件（{msg}）发往 broker-a 上的 a3，而 broker-a 现在要晚 5 s 才响应；"
                        "pg 等待 3000 ms 后放弃。发送结束后 {msg} 在哪里？在图中点击那个位置（或点按钮）。",
               hint="sendSelectImpl 只尝试一次，发往选择器选中的队列，并最多等它的应答 3000 ms（sendMsgTimeout）。"
                    "broker-a 是在请求到达时处理它，还是在它迟到的应答发出时？",
               explain=sealed_explanation("06.stored-anyway")),
])
slow_dash

# %% [markdown]
# 一次发送只有一份时间预算（`sendMsgTimeout`，3000 ms）：如果选择队列就已经把它用完，`sendSelectImpl` 不发送，直接抛出 "sendSelectImpl call timeout"（rmqlab 的选择器不占用虚拟时间，所以这里不会出现这种情况）。更常见的是像图中那样，响应来晚了。
#
# ### 练习 3 — 先预测，再运行
# 订单 3 在 2 s 和 6 s 向变慢的 broker-a 的队列 3（a3）发送 2 个事件，pg 每次都在 3000 ms 后以
# `RemotingTimeoutException` 放弃。随后应用在 12 s 和 16 s 把每个事件再发送一次，发往同一个队列（也都超时）。30 s 时 a3
# 里有几条消息？

# %% nbgrader={"grade": false, "grade_id": "ex06_3_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_3 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_3 = 4
### END SOLUTION

# %%
lab = slow_a_lab(events=2)
p = lab.producers["pg"]
for t, k in (("12s", 1), ("16s", 2)):  # 应用把每个超时的事件再发送一次
    lab.at(t, p.send_with_selector, Message("TopicTest", f"订单 3 的事件 {k}"), by_order_id, 3)
lab.run(until="30s")
in_a3 = [e for e in lab.trace.of_kind("stored") if e.actor == "broker-a" and e.get("queue_id") == 3]

# %% nbgrader={"grade": true, "grade_id": "ex06_3", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("06.3", answer_3, len(in_a3))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_06_3
grading_06_3.verify("06.3", answer_3)
### END HIDDEN TESTS

# %%
show_trace(lab.trace, "send_attempt", "stored", "send_result", "send_failed")

# %% [markdown]
# 读上面的轨迹：Broker 何时处理了 M0001，pg 又是何时放弃的？超时能告诉应用存储的什么情况？再发送一次这个事件，会给订单
# 3 的事件流带来什么？
#
# ## 普通顺序与严格顺序
# RocketMQ 的文档给出了两种顺序保证：**普通**顺序和**严格**顺序。图：还是这次宕机，换成 `strict_by_order_id`，它从 Topic 的完整队列列表中选，从不从当前的列表中选；图停在 10 s。

# %% tags=["nbval-ignore-output"]
strict_dash = Dashboard(outage_picture, knobs={"selector": "strict_by_order_id", "orders": 4},
                        knob_options={"selector": ["by_order_id", "strict_by_order_id"]}, horizon="50s", checkpoints=[
    Checkpoint(before="send_failed", msg_id="M0009", ask="whether", optional=True,
               name="订单 3 在 45 s 的事件是否被存储",
               holds=lambda trace, snap: any(e.kind.value == "stored" and e.msg_id == "M0009" for e in trace),
               question="10 s 时 pg 的路由仍列出 broker-a 的队列；它在 30 s 拉取路由时会把这些队列去掉。订单 3 在 45 s "
                        "用 strict_by_order_id 发送它的最后一个事件（M0009）。M0009 会被存到任何地方吗？",
               hint="strict_by_order_id 从 Topic 的完整队列列表中选，从不从当前的列表中选；那个队列不在路由中时它返回 "
                    "None：sendSelectImpl 拿到 None 会怎么做？",
               explain=sealed_explanation("06.strict-refuses"))])
strict_dash.controller.seek_time("10s")
strict_dash

# %% [markdown]
# ### 练习 4 — 先预测，再运行
# 图中的 broker-a 在 5 s 宕机。同样的发送，使用 `strict_by_order_id`，但 broker-a 在 **0.5 s**、第一次发送之前就宕机。订单 3 的三个事件中有几个被存储？

# %% nbgrader={"grade": false, "grade_id": "ex06_4_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_4 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_4 = 0
### END SOLUTION

# %%
lab, sends = outage_lab(strict_by_order_id, down_at="500ms")
lab.run(until="50s")
order_3_ids = {future.msg_id for future in sends[3]}
order_3 = [e for e in lab.trace.of_kind("stored") if e.msg_id in order_3_ids]

# %% nbgrader={"grade": true, "grade_id": "ex06_4", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("06.4", answer_4, len(order_3))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_06_4
grading_06_4.verify("06.4", answer_4)
### END HIDDEN TESTS

# %%
show_trace(lab.trace, "send_attempt", "stored", "send_failed", fields=("broker", "queue_id", "error"))

# %% [markdown]
# RocketMQ 的文档（`docs/en/Concept.md`）给出了两种保证：
#
# - **普通顺序消息（Normal Ordered
#   Message）**——从**同一个队列**收到的消息是有序的；来自不同队列的消息则未必。`by_order_id`
#   给的就是这种：它在路由**当前**的队列上取哈希，所以列表一变，订单就换到另一个队列。发送照常进行，但订单
#   3 的事件现在分散在两个 Broker 的队列上，Consumer 可能在早的那条被消费之前就看到晚的那条。
# - **严格顺序消息（Strictly Ordered Message）**——每条消息都按存储的顺序被接收。（`docs/en/Feature.md`
#   把这两种称为**全局**顺序——整个 Topic 只有一个队列——和**分区**顺序——按分区键（sharding
#   key）有序。）严格意味着订单永远不换队列：选择器保留完整的队列列表并从中挑选，当那个队列不在路由里时，它宁可拒绝也不换队列。
#
# 严格顺序以可用性为代价：broker-a 宕机期间，订单 3 完全发不出去（订单 5 在 broker-b
# 上，不受影响）。普通顺序照常发送，但在宕机前后放弃了顺序。系统需要哪一种是业务上的决定；RocketMQ 的选择器 API
# 让应用自己选。
#
# > **常见说法 vs. 源码。** “顺序发送和其他发送一样会重试。”——`DefaultMQProducerImpl.sendSelectImpl`
# > 没有重试循环（`retryTimesWhenSendFailed` 不适用）：只尝试一次，错误交给调用方。

# %% [markdown]
# ## 要点
# - 选择器发送（`sendSelectImpl`）发往选择器返回的队列；它不是 `sendDefaultImpl` 的那个重试循环。
# - 在当前存活的列表上取 `order_id % len(mqs)`
#   是**普通**顺序——可用，但列表一变订单就换队列；保留固定列表并在队列缺失时拒绝是**严格**顺序：两者各自在可用性和顺序之间做了取舍。
#
# ## 你的得分
# 最后运行这个单元：本实验的每个练习一行，来自你运行过的检查。

# %%
score("06")
