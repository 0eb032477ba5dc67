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
# [目录](README.md) · [← 上一个](03_delay_levels_schedule.ipynb) · [下一个 →](04b_stranded_retry_queues.ipynb)
#
# # 04 · 死信队列
#
# **目标：** 知道消息什么时候成为死信、落在哪里、为什么两条回传路径的计数不一样，以及运维人员怎样把一条死信取回来。源码：`broker/.../processor/SendMessageProcessor.java`（`asyncConsumerSendMsgBack`、`handleRetryAndDLQ`）、
# `client/.../impl/consumer/DefaultMQPushConsumerImpl.java`（`sendMessageBack`）、`common/.../MixAll.java`（`getDLQTopic`）、
# `broker/.../processor/AbstractSendMessageProcessor.java`（`DLQ_NUMS_PER_GROUP`）、
# `broker/.../topic/TopicConfigManager.java`（`createTopicInSendMessageBackMethod`）。

# %%
from rmqlab import ConsumeConcurrentlyStatus, Lab, Message, check_invariants, set_language
from rmqlab.course.exercises import assert_right, check, score, show_trace, table

set_language("zh")  # 仪表盘的按钮、图例和每一步的说明都用简体中文
CONSUME_SUCCESS = ConsumeConcurrentlyStatus.CONSUME_SUCCESS
RECONSUME_LATER = ConsumeConcurrentlyStatus.RECONSUME_LATER
SEED = 7

bug_fixed = False


def business(msgs, ctx):
    """在 bug 修好之前一直失败。"""
    return CONSUME_SUCCESS if bug_fixed else RECONSUME_LATER


def always_fails(msgs, ctx):
    """永远不成功。"""
    return RECONSUME_LATER


def refund_lab(listener, max_reconsume_times=1):
    """一个 Broker，只有一个队列的 TopicTest，Producer pg，消费组 cg 的 Consumer c1。"""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    c = lab.add_consumer(
        "cg", subscribe={"TopicTest": "*"}, listener=listener, name="c1", max_reconsume_times=max_reconsume_times
    )
    return lab, p, c


def refund_fails(max_reconsume_times=1, reject_send_back=False, retry_queue_nums=1, messages=1):
    """总是失败的退款消息，从 1 s 起每秒一条（``refund 17``、``refund 18``……）；其余参数是 Broker 和消费组的设置，含义如其名。"""
    lab, p, _ = refund_lab(always_fails, max_reconsume_times)
    if reject_send_back:
        lab.set_broker_fault("broker-a", reject_send_back=True)
    if retry_queue_nums != 1:
        lab.update_subscription_group("cg", retry_queue_nums=retry_queue_nums)
    for k in range(messages):
        lab.at(f"{1 + k}s", p.send, Message("TopicTest", f"refund {17 + k}", keys=f"order-{17 + k}"))
    return lab

# %% [markdown]
# ## 一次小运行：`max_reconsume_times=1`
# 图：三条总是消费失败的退款消息，`max_reconsume_times=1`。参数可以改变这次运行（改后点“重建”）。单步走过第一条退款消息的各次投递，在它第二次回传之前停下。

# %% tags=["nbval-ignore-output"]
from rmqlab.widgets.checkpoints import Checkpoint, sealed_explanation
from rmqlab.widgets.dashboard import Dashboard

dash = Dashboard(refund_fails, knobs={"max_reconsume_times": 1, "messages": 3}, horizon="1m", checkpoints=[
    Checkpoint(before="send_back", msg_id="M0001", nth=2, ask="where", optional=True, name="refund 17 重试失败后去了哪里",
               question="退款 17（M0001）重试失败之后在哪里？请在图上点击那个位置（或点按钮）。",
               explain=sealed_explanation("04.refund-17")),
])
dash

# %% [markdown]
# Broker 的规则，在 `asyncConsumerSendMsgBack` 里：当失败消息**已存储的** `reconsumeTimes`
# `>= maxReconsumeTimes`（来自请求头），或者监听器要求的延迟级别 < 0 时，这份副本不进 `%RETRY%<group>`，而是不带延迟地进入该消费组的死信 Topic。
#
# ### 练习 1 — 先预测，再运行
# 另一次运行：消费组 `invoices` 的 c1 消费 `Orders`，这个 Topic 有 **4** 个队列；c1 的 `max_reconsume_times=1`，每次投递都失败，每个队列各发一条订单。它们最终落在哪个 Topic（准确的名字），这个 Topic 有几个队列？用 `("name", queues)` 回答。

# %% nbgrader={"grade": false, "grade_id": "ex04_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_1 = ("%DLQ%invoices", 1)
### END SOLUTION

# %%
pay = Lab(seed=SEED)
pay.add_broker("broker-a")
pay.create_topic("Orders", queues=4)
pay_p = pay.add_producer("pg")
pay.add_consumer("invoices", subscribe={"Orders": "*"}, listener=always_fails, name="c1", max_reconsume_times=1)
for k in range(4):
    pay.at(f"{1 + k}s", pay_p.send, Message("Orders", f"order {k + 1}"))
broker = pay.brokers["broker-a"]
print("之前的 Topic：", sorted(broker.topic_config))
pay.run(until="1m")
print("之后的 Topic：", sorted(broker.topic_config))
show_trace(pay.trace, "dead_lettered", fields=("topic", "queue_id", "reconsume_times"))
dlq_name = pay.trace.of_kind("dead_lettered")[0].get("topic")
cfg = broker.topic_config[dlq_name]
print(dlq_name, "读/写队列数：", cfg.read_queue_nums, cfg.write_queue_nums, "perm：", cfg.perm)

# %% nbgrader={"grade": true, "grade_id": "ex04_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("04.1", answer_1, (dlq_name, cfg.read_queue_nums))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_04_1
grading_04_1.verify("04.1", answer_1)
### END HIDDEN TESTS

# %% [markdown]
# 死信 Topic 之前并不存在：该消费组的消息第一次在这个 Broker 上“死掉”时，Broker 才创建它（`createTopicInSendMessageBackMethod`）。

# %% [markdown]
# ## 两个 Topic、一个消费组：有几个死信 Topic？
# 图：同一个消费组里全部失败的订单和退款消息，组里的 c1 不允许重试。往前单步：它停在第一条失败的订单去任何地方之前，问它去哪里。

# %%
def two_topics_lab(per_topic=3):
    """消费组 cg 订阅 Orders 和 Refunds，``max_reconsume_times=0``；每个 Topic 各 ``per_topic`` 条会失败的消息。"""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("Orders", queues=1)
    lab.create_topic("Refunds", queues=1)
    p = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"Orders": "*", "Refunds": "*"}, listener=always_fails, name="c1",
                     max_reconsume_times=0)
    for k in range(per_topic):
        lab.at(f"{1 + 2 * k}s", p.send, Message("Orders", f"order {5 + k}"))
        lab.at(f"{2 + 2 * k}s", p.send, Message("Refunds", f"refund {9 + k}"))
    return lab


# %% tags=["nbval-ignore-output"]
two_dash = Dashboard(two_topics_lab, knobs={"per_topic": 3}, horizon="10s", checkpoints=[
    Checkpoint(before="send_back", msg_id="M0001", ask="where", optional=True,
               name="第一条失败的订单去哪里",
               question="c1 即将让 order 5（M0001）失败，而 c1 不允许重试。下一步之后 M0001 在哪里？"
                        "请在图上点击那个位置（或点按钮）。",
               hint="Broker 拿 c1 自己的 maxReconsumeTimes 和消息里存着的次数比较。",
               explain=sealed_explanation("04.first-dead")),
])
two_dash

# %% [markdown]
# ### 练习 2 — 先预测，再运行
# 另一次运行：**两个**消费组 `billing` 和 `audit` 都订阅 `Orders` 和 `Refunds`，都是 `max_reconsume_times=0`（第一次失败就进入死信队列），监听器都总是失败。每个 Topic 各发一条消息（每个消费组都会收到它们）。之后 broker-a 上有几个 `%DLQ%` Topic？

# %% nbgrader={"grade": false, "grade_id": "ex04_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_2 = 2
### END SOLUTION

# %%
two = Lab(seed=SEED)
two.add_broker("broker-a")
two.create_topic("Orders", queues=1)
two.create_topic("Refunds", queues=1)
two_p = two.add_producer("pg")
for group in ("billing", "audit"):
    two.add_consumer(group, subscribe={"Orders": "*", "Refunds": "*"}, listener=always_fails, name=f"c-{group}",
                     max_reconsume_times=0)
two.at("1s", two_p.send, Message("Orders", "order 5"))
two.at("2s", two_p.send, Message("Refunds", "refund 9"))
two.run(until="1m")
store = two.brokers["broker-a"]
dlq_topics = [t for t in sorted(store.topic_config) if t.startswith("%DLQ%")]
dead = [m for m in store.commit_log.live() if m.topic.startswith("%DLQ%")]
print(table([[m.msg_id, m.topic, m.queue_id, m.properties["RETRY_TOPIC"]] for m in dead],
            ["dead letter", "stored in", "queue", "RETRY_TOPIC"]))

# %% nbgrader={"grade": true, "grade_id": "ex04_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("04.2", answer_2, len(dlq_topics))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_04_2
grading_04_2.verify("04.2", answer_2)
### END HIDDEN TESTS

# %% [markdown]
# > **常见说法 vs. 源码。** “每个 Topic 都有自己的死信队列。”——死信队列是每个消费组一个：`%DLQ%<group>`，只有 `DLQ_NUMS_PER_GROUP`
# > = 1 个队列，由 Broker 在这个消费组出现第一条死信时创建（`SendMessageProcessor.asyncConsumerSendMsgBack`）。没有谁订阅它：死信等待人工介入。
#
# 每条死信都带着 `RETRY_TOPIC` 属性（在第一次回传时设置）：它来自哪个 Topic，重新发送时必须读这个属性。每条死信有两个 ID。`msg_id` 是客户端的（`UNIQ_KEY`：由 Producer 设置一次，每个监听器看到的都是它）；`offset_msg_id` 是存储的，由 Broker 的地址和这份副本在 CommitLog 中的 offset 组成（`MessageDecoder.createMessageId`），每存一份副本就是一个新的。回传时按 offset 从存储里读回失败的消息，把*那份*副本的存储 ID 写进 `ORIGIN_MESSAGE_ID`；之后的每份副本都保留它。

# %%
print(table([[m.msg_id, m.offset_msg_id, m.properties["ORIGIN_MESSAGE_ID"]] for m in dead],
            ["msg_id (UNIQ_KEY)", "offset_msg_id (this copy)", "ORIGIN_MESSAGE_ID (the first copy)"]))

# %% [markdown]
# ## 两条回传路径的计数不一样
# 一条消费失败的消息经由两条路径之一到达死信队列（实验 02b）：
# - **Broker 路径**——`CONSUMER_SEND_MSG_BACK`：Broker 拿*已存储的* `reconsumeTimes`（rt）和上限比较，并以 rt + 1
#   存储副本；
# - **兜底路径**——上面的请求失败了，于是客户端自己向 `%RETRY%<group>` 发送一条消息，它的请求头里已经写着 rt + 1
#   （`RECONSUME_TIME`），Broker 的 `handleRetryAndDLQ` 拿*这个值*和上限比较。
#
# 图：`max_reconsume_times=2` 时的 Broker 路径，两条退款消息。单步走一遍，然后打开参数 `reject_send_back` 并点“重建”——不过要先回答练习 3。

# %% tags=["nbval-ignore-output"]
paths_dash = Dashboard(
    refund_fails, knobs={"max_reconsume_times": 2, "reject_send_back": False, "messages": 2}, horizon="2m",
    checkpoints=[
        Checkpoint(before="dead_lettered", msg_id="M0001", ask="when", optional=True, name="退款 17 何时进入死信队列",
                   question="c1 允许 2 次重试（max_reconsume_times=2），每次都消费退款 17（M0001）失败。"
                            "Broker 什么时候把它写进 %DLQ%cg？请选择时刻。",
                   explain=sealed_explanation("04.broker-path-dlq")),
    ],
)
paths_dash

# %%
# Broker 路径，用表格表示
lab2, p2, _ = refund_lab(always_fails, max_reconsume_times=2)
lab2.at("1s", p2.send, Message("TopicTest", "refund 20"))
lab2.run(until="5m")
show_trace(lab2.trace, "delivered", "dead_lettered", fields=("reconsume_times", "topic"))


# %% [markdown]
# ### 练习 3 — 先预测，再运行
# 同一个 Consumer，但 broker-a 拒绝每一个 `CONSUMER_SEND_MSG_BACK`（`reject_send_back=True`），所以每次失败都走兜底路径。这条消息在成为死信之前被投递了几次？

# %% nbgrader={"grade": false, "grade_id": "ex04_3_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_3 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_3 = 2
### END SOLUTION

# %%
fb, fb_p, _ = refund_lab(always_fails, max_reconsume_times=2)
fb.set_broker_fault("broker-a", reject_send_back=True)
fb.at("1s", fb_p.send, Message("TopicTest", "refund 20"))
fb.run(until="5m")
show_trace(fb.trace, "delivered", "send_back_fallback", "scheduled", "dead_lettered",
           fields=("reconsume_times", "real_topic", "level", "topic"))
fallback_deliveries = len(fb.trace.of_kind("delivered"))

# %% nbgrader={"grade": true, "grade_id": "ex04_3", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("04.3", answer_3, fallback_deliveries)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_04_3
grading_04_3.verify("04.3", answer_3)
### END HIDDEN TESTS

# %% [markdown]
# ## 死信保存多久？
# 默认没有人订阅死信队列：死信就放在那里。能放多久？broker-a 使用 RocketMQ 的默认值：`fileReservedTime` 72（小时），`deleteWhen` "04"（每天删除过期文件的钟点）。
#
# 图：c1 不允许重试（`max_reconsume_times=0`），所以退款 17 和 18 分别在 1 s 和 2 s 进入死信队列；订单 19 在 2 m 到达并消费成功；3 m 时 c1 和 pg 停止，broker-a 安静地过了三天（虚拟时间 0 是午夜；每条消息代表一个 CommitLog 文件）。往前单步：它在 broker-a 删除任何东西之前停下。

# %% tags=["nbval-ignore-output"]
def refunds_fail(msgs, ctx):
    """退款失败，订单成功。"""
    return RECONSUME_LATER if msgs[0].body.startswith("refund") else CONSUME_SUCCESS


def kept_lab():
    """退款 17 和 18（1 s、2 s）立即进入死信队列；订单 19 在 2 m 消费成功；c1 和 pg 在 3 m 停止。"""
    lab, p, c = refund_lab(refunds_fail, max_reconsume_times=0)
    lab.at("1s", p.send, Message("TopicTest", "refund 17", keys="order-17"))
    lab.at("2s", p.send, Message("TopicTest", "refund 18", keys="order-18"))
    lab.at("2m", p.send, Message("TopicTest", "order 19", keys="order-19"))
    lab.at("3m", c.shutdown)
    lab.at("3m", p.shutdown)
    return lab


kept_dash = Dashboard(kept_lab, horizon="78h", checkpoints=[
    Checkpoint(before="retention_deleted", ask="when", optional=True, name="退款 17 的死信何时被删除",
               question="没有人读 %DLQ%cg。退款 17 的死信（M0001）在 1 s 存储，broker-a 什么时候删除它？请选择时刻。",
               explain=sealed_explanation("04.dlq-kept")),
])
kept_dash

# %% [markdown]
# ## 运维人员的重新发送
# 先修好 bug，然后让一个 Consumer（用它自己的消费组）订阅 `%DLQ%cg`，把每条消息重新生产到它的 `RETRY_TOPIC` 属性所指的 Topic。
#
# 图：退款 17 在 11 s 进入死信队列；30 s 时 bug 修好了，运维的 Consumer ops1（消费组 dlq-ops）从第一个 offset 开始读
# `%DLQ%cg`，把死信重新发送。往前单步：它在副本被重新发送之前停下，问 ops1 会不会收到它。

# %% tags=["nbval-ignore-output"]
def resend_lab(fix_at="30s"):
    """退款 17 在 1 s 发送，c1（max_reconsume_times=1）在 ``fix_at`` 之前一直失败；那时 ops1 开始重新发送死信。"""
    fixed = []
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    fails_until_fixed = lambda msgs, ctx: CONSUME_SUCCESS if fixed else RECONSUME_LATER  # noqa: E731
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=fails_until_fixed, name="c1", max_reconsume_times=1)
    lab.at("1s", p.send, Message("TopicTest", "refund 17", keys="order-17"))

    def resend_each(msgs, ctx):
        """把死信重新生产到它原来的 Topic。"""
        for m in msgs:  # the operator's tool sends a second later
            lab.at(lab.now + 1_000, p.send, Message(m.properties["RETRY_TOPIC"], m.body, keys=m.keys))
        return CONSUME_SUCCESS

    def fix_and_resend():
        fixed.append(True)
        lab.add_consumer("dlq-ops", subscribe={"%DLQ%cg": "*"}, listener=resend_each, name="ops1",
                         consume_from_where="CONSUME_FROM_FIRST_OFFSET")

    lab.at(fix_at, fix_and_resend)
    return lab


def ops1_pulls_the_copy(trace, snap):
    """ops1 是否拉取了重新发送的副本（M0002），以运行为准。"""
    return any(e.kind.value == "pulled" and e.actor == "consumer:ops1" and "M0002" in e.get("msg_ids", []) for e in trace)


resend_dash = Dashboard(resend_lab, horizon="40s", checkpoints=[
    Checkpoint(before="send_attempt", msg_id="M0002", ask="whether", optional=True, holds=ops1_pulls_the_copy,
               name="ops1 是否收到重新发送的副本",
               question="ops1 已从 %DLQ%cg 读出退款 17；一秒之后，它的工具把它重新生产到 RETRY_TOPIC 所指的 Topic，"
                        "成为一条新消息（M0002）。ops1 会收到这份副本吗？",
               hint="ops1 的消费组读哪个 Topic？工具把副本发到哪个 Topic？又是谁读那个 Topic？",
               explain=sealed_explanation("04.resend-who")),
])
resend_dash

# %%
def resend(msgs, ctx):
    """把一条死信重新生产到它原来的 Topic（RETRY_TOPIC 属性）。"""
    for m in msgs:
        p.send(Message(m.properties["RETRY_TOPIC"], m.body, keys=m.keys))
    return CONSUME_SUCCESS


# %%
lab, p, c = refund_lab(business)
lab.at("1s", p.send, Message("TopicTest", "refund 17", keys="order-17"))
lab.run(until="1m")  # 退款 17 失败两次，进入 %DLQ%cg
bug_fixed = True
ops = lab.add_consumer("dlq-ops", subscribe={"%DLQ%cg": "*"}, listener=resend, name="ops1",
                       consume_from_where="CONSUME_FROM_FIRST_OFFSET")
lab.run(until="2m")
show_trace(lab.trace, "delivered", "consumed", fields=("topic", "reconsume_times", "status"))

# %% [markdown]
# 重新发送的副本是一条全新的消息（新的 `UNIQ_KEY`，`reconsume_times` 为 0）：要按业务 Key 去重（`keys="order-17"`）。先修复，再重新发送：bug 还在时重新发送，只会得到一条再次死掉的新消息。

# %% [markdown]
# ## `retryQueueNums` = 0：失败的消息去哪里？
# 运维人员想让失败的退款消息立即停放在死信队列里，不走重试时间表，于是运行了 `mqadmin updateSubGroup -g cg -q 0`
# （0 个重试队列；这里是 `lab.update_subscription_group("cg", retry_queue_nums=0)`）。同样的小运行，监听器总是失败。图：参数 `retry_queue_nums` 为 0。往前单步：它停在 c1 的第一次回传之前，问这条退款消息去哪里。

# %% tags=["nbval-ignore-output"]
off_dash = Dashboard(refund_fails, knobs={"retry_queue_nums": 0, "messages": 5}, horizon="1m", checkpoints=[
    Checkpoint(before="send_back", msg_id="M0001", ask="where", optional=True,
               name="没有重试队列时退款消息去哪里",
               question="cg 现在没有重试队列，c1 即将让 refund 17（M0001）失败。下一步之后 M0001 在哪里？"
                        "请在图上点击那个位置（或点按钮）。",
               hint="回传到达时 Broker 先检查什么：消费组的重试队列，还是死信规则？",
               explain=sealed_explanation("04.off")),
])
off_dash

# %% [markdown]
# ### 练习 4 — 先预测，再运行
# 另一次运行：运维人员的 `updateSubGroup -q 0` 来得晚一些，在 **5 s**。退款 18 在 1 s 发送，c1 的 `max_reconsume_times=1`，监听器总是失败：它第一次回传时 cg 还有重试队列，重试在 11 s 到来，那时重试次数已经用完。退款 18 最终落在哪里？用一个 Topic 名回答，如果哪里都不在，就回答 `None`。

# %% nbgrader={"grade": false, "grade_id": "ex04_4_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_4 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_4 = None
### END SOLUTION

# %%
off, off_p, _ = refund_lab(always_fails, max_reconsume_times=1)
off.at("1s", off_p.send, Message("TopicTest", "refund 18", keys="order-18"))
off.at("5s", off.update_subscription_group, "cg", retry_queue_nums=0)
off.run(until="1h")
show_trace(off.trace, "admin", "delivered", "send_back", "scheduled", "dead_lettered")
last_back = off.trace.where("send_back", msg_id="M0001")[-1]
fates = [e for e in off.trace.where("scheduled", "dead_lettered", msg_id="M0001")
         if e.get("reconsume_times") == last_back.get("reconsume_times") + 1]
ended_in = (fates[-1].get("real_topic") or fates[-1].get("topic")) if fates else None
print("broker-a 上存储的 Topic：", sorted({m.topic for m in off.brokers["broker-a"].commit_log.live()}))
print("退款 18 回传之后的去向：", ended_in)

# %% nbgrader={"grade": true, "grade_id": "ex04_4", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("04.4", answer_4, ended_in)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_04_4
grading_04_4.verify("04.4", answer_4)
### END HIDDEN TESTS

# %% [markdown]
# Consumer 看到了什么，Broker 又保存了什么？实验自带的不变量检查器（invariant checker）跟踪每条生产出来的消息的最终去向，并指出原因：

# %%
report = check_invariants(off)
print("ok：", report.ok, "| M0001 的去向：", report.fates[("group:cg", "M0001")])
print(report.violations[0].detail)

# %% [markdown]
# > **常见说法 vs. 源码（死信保存多久的那张图）。** “死信队列会一直保存消息，直到有人处理。”——死信是一条普通的 CommitLog 记录，不会保存得更久。`CleanCommitLogService` 删除的是整个 CommitLog *文件*（每个 1 GiB）：最后一次写入已满 `fileReservedTime`（72 h）的文件，在 `deleteWhen` 的钟点（04:xx）被删除；磁盘使用率超过 `diskMaxUsedSpaceRatio`（75 %）时还会更早。正在写入的文件不会以这种方式被删除（`MappedFileQueue.deleteExpiredFileByTime`）：这里订单 19 代表它，所以留了下来。要在三天之内检查死信队列。

# %% [markdown]
# ## 要点
# - 当已存储的 reconsumeTimes 达到 `maxReconsumeTimes`（默认 16），或监听器把延迟级别设为 −1 时，Broker 把消息转入死信队列；这个 Topic 的名字来自 `MixAll.getDLQTopic`，在第一条死信出现时创建。
# - 死信从 4.9.2 起可读（perm 6），默认无人订阅；和其他一切一样，至少 72 h 后随所在的 CommitLog 文件一起删除。
# - Broker 路径和客户端兜底路径用的是同一条 `>=` 规则：看清各自拿哪个计数来比较。
# - 在依赖 `retryQueueNums` 为 0 之前，先试一试它会把一条消费失败的消息怎么样。
# - 下一个：[04b](04b_stranded_retry_queues.ipynb)——在运行中的消费组上调大 `retryQueueNums`。
#
# ## 你的得分
# 最后运行这个单元：本实验的每个练习一行，来自你运行过的检查。

# %%
score("04")
