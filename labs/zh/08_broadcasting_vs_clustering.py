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
# [目录](README.md) · [← 上一个](07b_orderly_failover.ipynb) · [下一个 →](09_capstone.ipynb)

# %% [markdown]
# # 08 · 广播模式 vs. 集群模式
#
# **目标：** 比较两种消息模型（message
# model）下：谁收到一条消息、消费失败时会发生什么，以及消费位点存在哪里。源码：`DefaultMQPushConsumer.messageModel`、`ConsumeMessageConcurrentlyService.processConsumeResult`、`DefaultMQPushConsumerImpl.copySubscription`、`client/.../consumer/store/LocalFileOffsetStore.java`。

# %%
from rmqlab import ConsumeConcurrentlyStatus, Lab, Message, set_language
from rmqlab.course.exercises import assert_right, check, score, show_trace, table

set_language("zh")  # 仪表盘的按钮、图例和每一步的说明都用简体中文
CONSUME_SUCCESS = ConsumeConcurrentlyStatus.CONSUME_SUCCESS
RECONSUME_LATER = ConsumeConcurrentlyStatus.RECONSUME_LATER
SEED = 7


# %%
def fails_once(msgs, ctx):
    """第一次投递消费失败，重试时消费成功。"""
    return RECONSUME_LATER if msgs[0].reconsume_times == 0 else CONSUME_SUCCESS

def two_consumers_lab(model="CLUSTERING", messages=1, instances=2, listener=fails_once):
    """一个 Broker、2 个队列，消费组 cg 的 ``instances`` 个 Consumer c1、c2……使用给定的消息模型，监听器都是
    ``listener``（``fails_once``）；从 1 s 起发送 ``messages`` 条消息。"""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=2)
    p = lab.add_producer("pg")
    for k in range(instances):
        lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=listener, name=f"c{k + 1}", message_model=model)
    for k in range(messages):
        lab.at(f"{1 + 2 * k}s", p.send, Message("TopicTest", "配置已变更" if k == 0 else f"配置已变更 ({k + 1})"))
    return lab

def two_consumers(model):
    """把 two_consumers_lab(model) 运行一分钟。"""
    return two_consumers_lab(model).run(until="1m")


# %% [markdown]
# ## 一次小运行：集群模式 CLUSTERING（默认）
# 图：三条消息发给消费组 cg（c1 和 c2），每条都消费失败一次。`model` 参数在 CLUSTERING / BROADCASTING
# 之间切换（改后点“重建”）。先在 CLUSTERING 下单步走一遍：每条消息由谁收到，它的重试又去了哪里。c1 拉取了第一条消息时（它的监听器将返回 RECONSUME_LATER），图会停下问这条消息去哪里。

# %% tags=["nbval-ignore-output"]
from rmqlab.widgets.checkpoint_whether import owns
from rmqlab.widgets.checkpoints import Checkpoint, sealed_explanation
from rmqlab.widgets.dashboard import Dashboard

MODELS = ("CLUSTERING", "BROADCASTING")
dash = Dashboard(two_consumers_lab, knobs={"model": "CLUSTERING", "messages": 3}, knob_options={"model": MODELS},
                 horizon="30s", checkpoints=[
    Checkpoint(before="consumed", actor="consumer:c1", ask="where", optional=True, name="c1 消费失败的消息去哪里",
               question="c1 刚拉取了 {msg}，它的监听器将对它返回 RECONSUME_LATER。消费组处于集群模式。"
                        "下一步之后 {msg} 在哪里？在图中点击那个位置（或按钮）。",
               hint="集群模式下 processConsumeResult 把消费失败的消息回传给 Broker（sendMessageBack），延迟级别随它的 "
                    "reconsumeTimes 增长。",
               explain=sealed_explanation("08.clustering-send-back"))])
dash

# %% [markdown]
# 一条消息，用表格看，截至图中的问题：谁收到了它。

# %%
show_trace(two_consumers_lab("CLUSTERING").run(until="1s").trace, "delivered", fields=("queue", "reconsume_times"))

# %% [markdown]
# ## 广播模式 BROADCASTING：每个实例一份副本
# 广播模式下的图，三条消息。它一打开就问一个是非题：c1 订阅重试主题吗？然后单步：c1 拉取了它那份第一条消息时（它的监听器将返回 RECONSUME_LATER），图会停下来，问这份副本去哪里。下面的练习 1 和练习 3 在别的运行上问同样的两条规则。

# %% tags=["nbval-ignore-output"]
broadcast_dash = Dashboard(two_consumers_lab, knobs={"model": "BROADCASTING", "messages": 3},
                           knob_options={"model": MODELS}, horizon="30s", checkpoints=[
    Checkpoint(before="rebalanced", actor="consumer:c1", ask="whether", name="c1 是否订阅 %RETRY%cg",
               holds=lambda trace, snap: owns(snap, "c1", "%RETRY%cg"),
               question="c1 即将启动并第一次重平衡。它会订阅本组的重试主题 %RETRY%cg 吗（会分到它的队列吗）？"
                        "注意消费者组的消息模式。",
               hint="重试主题里的消息从哪里来？看看在这种消息模式下 processConsumeResult 如何处理消费失败，再看 "
                    "DefaultMQPushConsumerImpl.copySubscription。",
               explain=sealed_explanation("08.retry-topic")),
    Checkpoint(before="consumed", actor="consumer:c1", ask="where", optional=True, name="c1 消费失败的副本去哪里",
               question="c1 刚拉取了它那份 {msg}，它的监听器将对它返回 RECONSUME_LATER。"
                        "消费者组处于广播模式。下一步之后这份副本在哪里？在图中点击那个位置（或按钮）。",
               hint="processConsumeResult 按消息模式分支，只有集群模式的分支会调用 sendMessageBack。没有 Broker 的"
                    "参与，这份副本能到达下面哪个位置？",
               explain=sealed_explanation("08.failed-copy")),
])
broadcast_dash

# %% [markdown]
# 越过问题继续播放，也看看 c2 的副本。
#
# ### 练习 1 — 先预测，再运行
# 图中有两个实例。广播模式 BROADCASTING 下有**三个**实例（c1、c2、c3）和一条消息，它在每个实例的第一次投递都消费失败，第一分钟内一共投递几次？

# %% nbgrader={"grade": false, "grade_id": "ex08_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_1 = 3
### END SOLUTION

# %%
three = two_consumers_lab("BROADCASTING", instances=3).run(until="1m")
deliveries = three.trace.of_kind("delivered")
lab = two_consumers("BROADCASTING")

# %% nbgrader={"grade": true, "grade_id": "ex08_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("08.1", answer_1, len(deliveries))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_08_1
grading_08_1.verify("08.1", answer_1)
### END HIDDEN TESTS

# %%
show_trace(lab.trace, "delivered", "consumed", "send_back", "broadcast_dropped", fields=("queue", "reconsume_times", "status"))

# %% [markdown]
# 作为对比，小运行的第一条消息在集群模式下：只有一个实例收到了这条消息；它的消费失败被回传给 Broker，10 s 后又从 `%RETRY%cg`（重试队列）再来一次。

# %%
show_trace(two_consumers("CLUSTERING").trace, "delivered", "send_back", fields=("queue", "reconsume_times", "ok"))

# %% [markdown]
# ## 消费位点存在哪里
# 图：同一个消费组，监听器从不失败，三条消息，广播模式（`model` 参数）。它的“处理队列”标签页画出每个实例的队列，每个队列下面是这个实例保存的消费位点。单步：它停在 c1 第一次保存消费位点之前，问 broker-a 之后会不会知道它们。

# %% tags=["nbval-ignore-output"]
def offsets_picture(model="BROADCASTING", messages=3):
    """``messages`` 条消息发给 ``model`` 模式下 cg 的 c1 和 c2；监听器从不失败。"""
    return two_consumers_lab(model, messages=messages, listener=lambda msgs, ctx: CONSUME_SUCCESS)


def broker_knows_cg(trace, snap):
    """broker-a 的 consumerOffset 表里是否有消费组 cg 的消费位点。"""
    return any(group == "cg" for b in snap.brokers for group, mq, offset in b.committed_offsets)


offsets_dash = Dashboard(offsets_picture, knobs={"model": "BROADCASTING", "messages": 3},
                         knob_options={"model": MODELS}, horizon="12s", checkpoints=[
    Checkpoint(before="offset_persisted", actor="consumer:c1", ask="whether", optional=True, tab="ProcessQueues",
               name="broker-a 是否得知 c1 的消费位点", holds=broker_knows_cg,
               question="c1 即将保存它的消费位点（persistAll）。注意消费组的消息模式：之后 broker-a 会保存 cg 的"
                        "消费位点吗？",
               hint="在这种消息模式下，DefaultMQPushConsumerImpl.start() 创建的是哪种 OffsetStore？它的 persistAll "
                    "写到哪里？",
               explain=sealed_explanation("08.offsets-local"))])
offsets_dash

# %% [markdown]
# ### 练习 2 — 先预测，再运行
# 回到练习 1 那次有两个实例的运行（广播模式）：c1 的副本消费失败之后，c1 为 `TopicTest@broker-a:0`（那条消费失败的消息所在的队列，offset 0）持有的消费位点是多少？

# %% nbgrader={"grade": false, "grade_id": "ex08_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_2 = 1
### END SOLUTION

# %%
c1 = lab.consumers["c1"]
queue_0 = next(mq for mq in c1.offset_store.offset_table if str(mq) == "TopicTest@broker-a:0")
after_drop = c1.offset_store.offset_table[queue_0]

# %% nbgrader={"grade": true, "grade_id": "ex08_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("08.2", answer_2, after_drop)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_08_2
grading_08_2.verify("08.2", answer_2)
### END HIDDEN TESTS

# %% [markdown]
# 消费位点那张图的答案：集群模式为整个消费组的每个队列保存一个消费位点，存在 Broker
# 上（`RemoteBrokerOffsetStore`）。广播模式为**每个实例**的每个队列各保存一个，存在本地文件里（`LocalFileOffsetStore`，`~/.rocketmq_offsets/<clientId>/<group>/offsets.json`）：Broker
# 对它们一无所知。把参数切换到 CLUSTERING 并点“重建”，看消费组每个队列唯一的消费位点。下面是练习 2 那次运行的表格：

# %%
rows = [[client, group, str(mq), offset] for (client, group), offsets in sorted(lab.local_offset_files.items()) for mq, offset in sorted(offsets.items())]
print(table(rows, ["instance", "group", "queue", "offset in its local file"]))
print("broker-a 上存储的 cg 的消费位点：", {k: v for k, v in lab.brokers["broker-a"].consumer_offsets.items() if k[0] == "cg"})

# %% [markdown]
# ### 练习 3 — 先预测，再运行
# 回到重试主题，换成另一种消息模型：一个集群模式的消费组，它的监听器从不失败，所以从来没有消息被回传：c1 会订阅 `%RETRY%cg` 吗？（`True` / `False`）

# %% nbgrader={"grade": false, "grade_id": "ex08_3_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_3 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_3 = True
### END SOLUTION

# %%
never_fails = two_consumers_lab("CLUSTERING", listener=lambda msgs, ctx: CONSUME_SUCCESS).run(until="1m")
topics = sorted({e.get("topic") for e in never_fails.trace.of_kind("rebalanced") if e.actor == "consumer:c1"})

# %% nbgrader={"grade": true, "grade_id": "ex08_3", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("08.3", answer_3, "%RETRY%cg" in topics)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_08_3
grading_08_3.verify("08.3", answer_3)
### END HIDDEN TESTS

# %%
print(topics)

# %% [markdown]
# ## 要点
# - 集群模式（CLUSTERING）和广播模式（BROADCASTING）有三处不同：哪些实例收到一条消息、`processConsumeResult`
#   怎样处理消费失败，以及消费位点存在哪里（`RemoteBrokerOffsetStore` / `LocalFileOffsetStore`）。
#
# > **常见说法 vs. 源码。** “消费失败的消息会重试最多 16 次，然后进入死信队列，不管是哪种消费模式。”——只有集群模式如此。广播模式下，4.9.7 的 `ConsumeMessageConcurrentlyService.processConsumeResult` 对每条失败的消息只记一条日志“BROADCASTING, the message consume failed, drop it”就继续往下走：既不回传，也不延迟，更不进死信队列。可能失败的广播监听器必须自己重试或把工作暂存起来。

# %% [markdown]
# ## 你的得分
# 最后运行这个单元：本实验的每个练习一行，来自你运行过的检查。

# %%
score("08")
