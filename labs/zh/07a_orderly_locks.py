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
# [目录](README.md) · [← 上一个](06_ordered_send.ipynb) · [下一个 →](07b_orderly_failover.ipynb)
#
# # 07a · 顺序消费：本地重试与三把锁
#
# **目标：** 看清顺序消费的 Consumer 怎样重试（在本地、在同一个队列上）、暂停多久、监听器运行时持有哪把锁、它对 Broker
# 上的锁信任多久，以及为什么一个队列不能一直占着一个线程。源码：`client/.../impl/consumer/ConsumeMessageOrderlyService.java`、`MessageQueueLock.java`、`ProcessQueue.java`、`broker/.../client/rebalance/RebalanceLockManager.java`。下一个实验
# [07b](07b_orderly_failover.ipynb)：故障、接管与关闭。

# %%
from rmqlab import ConsumeOrderlyStatus, Lab, Message, after, format_duration, set_language
from rmqlab.course.exercises import assert_right, check, score, show_trace, table
from rmqlab.widgets.checkpoints import Checkpoint, sealed_explanation
from rmqlab.widgets.dashboard import Dashboard

set_language("zh")  # 仪表盘的按钮、图例和每一步的说明都用简体中文
SUCCESS = ConsumeOrderlyStatus.SUCCESS
SUSPEND = ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT
SEED = 7


# %%
def bad_suspends(msgs, ctx):
    """消息“bad”总是要求挂起；其余的都消费成功。"""
    return SUSPEND if msgs[0].body == "bad" else SUCCESS

def orderly_lab(listener=bad_suspends, bodies=("a", "bad", "c"), queues=1, **consumer_options):
    """一个 Broker，TopicTest 有 `queues` 个队列，一个顺序消费的 Consumer c1；从 2 s 起每秒发送一条消息。"""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=queues)
    p = lab.add_producer("pg", send_which_queue_start=0)
    c = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=listener, orderly=True, name="c1", **consumer_options)
    for i, body in enumerate(bodies):
        lab.at(f"{2 + i}s", p.send, Message("TopicTest", body))
    return lab, c

def topic_queue(c, queue_id=0):
    """c 在 TopicTest 队列 `queue_id` 上的 MessageQueue 和 ProcessQueue。"""
    return next((mq, pq) for mq, pq in c.process_queue_table.items() if mq.topic == "TopicTest" and mq.queue_id == queue_id)


# %%
# 下面各个图和练习用到的场景（每一节都会说出它运行的是哪一个）。
def retry_picture(max_reconsume_times=3):
    """把 ``orderly_lab()`` 用作 Dashboard 的工厂函数：按 orderly_lab 的节奏每秒发送 a、bad、c 各一条；bad 总是要求挂起。"""
    return orderly_lab(max_reconsume_times=max_reconsume_times)[0]

def pause_two_minutes(msgs, ctx):
    """“bad”消费失败，并要求队列暂停 120 000 ms。"""
    if msgs[0].body == "bad":
        ctx.suspend_current_queue_time_millis = 120_000
        return SUSPEND
    return SUCCESS


def pause_picture(max_reconsume_times=3):
    """a、bad、c，监听器是 ``pause_two_minutes``。"""
    return orderly_lab(pause_two_minutes, max_reconsume_times=max_reconsume_times)[0]

def five_seconds(msgs, ctx):
    """每条消息都要 5 s，然后消费成功。"""
    return after("5s", SUCCESS)

def lock_table(lab, c):
    """c 在 TopicTest 各队列上的三把锁，此刻的状态。"""
    rows = []
    for mq, pq in sorted(c.process_queue_table.items()):
        if mq.topic != "TopicTest":
            continue
        lease = lab.brokers[mq.broker_name].lock_manager.holder(c.consumer_group, mq)
        local = c.consume_service.mq_locks.get(mq)
        rows.append([
            str(mq),
            f"{lease[0]}, {format_duration(lease[1])} left" if lease else "none",
            "yes" if pq.locked and not pq.is_lock_expired(lab.now) else "no",
            "held" if local is not None and local.held else "free",
            "held" if pq.consume_lock.held else "free",
        ])
    return table(rows, ["queue", "broker lock", "c1 trusts it", "MessageQueueLock", "consume lock"])

def locks_picture(message_model="CLUSTERING", messages=6):
    """一个顺序消费 Consumer 的一个队列上有 ``messages`` 条消息，每条 5 s，消息模型为 ``message_model``。"""
    return orderly_lab(five_seconds, bodies=tuple("abcdefgh"[:messages]), message_model=message_model)[0]

def two_seconds(msgs, ctx):
    """每条消息都要 2 s，然后消费成功。"""
    return after("2s", SUCCESS)

def cut_off_lab(listener_seconds=2, messages=60):
    """在 2 s 发送 ``messages`` 条消息，每条消费 ``listener_seconds`` 秒；c1 到 broker-a 的网络在 25 s 断开，70 s 恢复。"""
    listener = two_seconds if listener_seconds == 2 else (lambda msgs, ctx: after(listener_seconds * 1000, SUCCESS))
    lab, c = orderly_lab(listener, bodies=())
    p = lab.producers["pg"]
    for i in range(messages):
        lab.at("2s", p.send, Message("TopicTest", f"m{i}"))
    lab.at("25s", lab.partition, "c1", "broker-a")
    lab.at("70s", lab.partition, "c1", "broker-a", heal=True)
    return lab, c

def twenty_five_seconds(msgs, ctx):
    """每条消息都要 25 s，然后消费成功。"""
    return after("25s", SUCCESS)

def yield_lab(consume_thread_min=1, listener_seconds=25):
    """两个队列，在 1 s 发送 8 条消息；c1 顺序消费，``consume_thread_min`` 个线程，每条消息 ``listener_seconds``
    （25 s），从 2 s 开始。"""
    listener = twenty_five_seconds if listener_seconds == 25 else (lambda msgs, ctx: after(listener_seconds * 1000, SUCCESS))
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=2)
    p = lab.add_producer("pg", send_which_queue_start=0)
    for i in range(8):
        lab.at("1s", p.send, Message("TopicTest", f"m{i}"))
    lab.add_consumer(
        "cg", subscribe={"TopicTest": "*"}, listener=listener, orderly=True, name="c1",
        consume_thread_min=consume_thread_min, start="2s", consume_from_where="CONSUME_FROM_FIRST_OFFSET",
    )
    return lab


# %% [markdown]
# ## 一次小运行：消费失败的消息在原地重试
#
# 图：`a`、`bad`、`c` 在一个顺序消费 Consumer 的同一个队列上，`bad` 总是消费失败。单步走过 `bad` 的前几次投递，停在
# `c` 之前；图下面的表格是同一次运行，到图中第一个提问的那一刻为止（`bad` 何时再来，由你在图上预测）。它的第二个问题就是练习 1 的问题：队列何时继续往前走。

# %% tags=["nbval-ignore-output"]
dash = Dashboard(retry_picture, knobs={"max_reconsume_times": 3}, horizon="20s", checkpoints=[
    Checkpoint(before="delivered", nth=3, ask="when", optional=True, name="bad 何时再来",
               question="bad（M0002）何时再次被投递？选择时间。",
               hint="顺序消费的 Consumer 不把失败的消息回传给 Broker：processConsumeResult 把它留在 ProcessQueue 里，"
                    "submitConsumeRequestLater 在 suspendCurrentQueueTimeMillis 之后重新提交同一个队列。这个 Consumer "
                    "用的是哪个值？",
               explain=sealed_explanation("07a.bad-comes-back")),
    Checkpoint(before="send_back", ask="when", optional=True, name="c1 何时放弃 bad",
               question="max_reconsume_times 为 {max_reconsume_times}。c1 何时不再重试 bad（{msg}），把它回传给 Broker？"
                        "选择时间。",
               hint="每次挂起都让重试次数加一；reconsumeTimes 达到最大重试次数后，checkReconsumeTimes 就把消息回传。",
               explain=sealed_explanation("07a.gives-up")),
])
dash

# %%
lab, c = orderly_lab()
lab.run(until="3s")
show_trace(lab.trace, "delivered", "suspended", fields=("queue_offset", "reconsume_times"))

# %% [markdown]
# 这次重试是**本地**的：同一个队列、同一个 Consumer，暂停 `suspendCurrentQueueTimeMillis`（就是图上的问题）之后；而 `c` 在 `bad` 后面等着——这就是“顺序”的代价。
#
# > **常见说法 vs. 源码。** “顺序消费的 Consumer 重试 16 次，然后进入死信队列。”——
# > `ConsumeMessageOrderlyService.getMaxReconsumeTimes` 把默认的 −1 变成
# > `Integer.MAX_VALUE`：这个队列永不停止地重试，每次都先暂停那么久。不经过 `%RETRY%` 绕一圈，也没有 10 s / 30 s 的时间表。
#
# ### 练习 1 — 先预测，再运行
# 图中用的是 `max_reconsume_times=3`。在 `max_reconsume_times=1` 下（同样是 a、bad、c），`bad` 被投递几次之后队列才继续往前走？先预测，再把图的参数设为 1，点“重建”并单步。

# %% nbgrader={"grade": false, "grade_id": "ex07a_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_1 = 2
### END SOLUTION

# %%
lab, c = orderly_lab(max_reconsume_times=1)
lab.run(until="3m")
bad = [e for e in lab.trace.of_kind("delivered") if e.msg_id == "M0002"]
show_trace(lab.trace, "delivered", "send_back", "scheduled", "dead_lettered", fields=("queue_offset", "reconsume_times", "level", "topic"))

# %% nbgrader={"grade": true, "grade_id": "ex07a_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("07a.1", answer_1, len(bad))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_07a_1
grading_07a_1.verify("07a.1", answer_1)
### END HIDDEN TESTS

# %% [markdown]
# ## 挂起时间会被限制在一个范围内
# 监听器可以自己要求暂停多久：`ctx.suspend_current_queue_time_millis`（−1 = 用 Consumer
# 的设置）。`submitConsumeRequestLater` 把收到的值限制在 **10 … 30000 ms** 之间。图（`pause_picture`）里的监听器
# `pause_two_minutes` 在 `bad` 每次消费失败时都要求暂停 2 分钟。

# %% tags=["nbval-ignore-output"]
pause_dash = Dashboard(pause_picture, knobs={"max_reconsume_times": 3}, horizon="2m", checkpoints=[
    Checkpoint(before="send_back", pause_before="delivered", ask="when", optional=True, name="两分钟的暂停何时结束",
               question="bad 每次消费失败都请求暂停两分钟，max_reconsume_times 为 {max_reconsume_times}。c1 何时把 "
                        "bad（{msg}）回传到 %RETRY%cg？选择时间。",
               hint="submitConsumeRequestLater 在安排重试之前，会先限制监听器请求的暂停时间。",
               explain=sealed_explanation("07a.pauses-end"))])
pause_dash

# %% [markdown]
# ### 练习 2 — 先预测，再运行
# 图问的是 `max_reconsume_times=3` 时 c1 何时把 `bad` 回传。同一个监听器（每次失败都请求暂停两分钟，`bad` 在 3 s
# 第一次投递），但 `max_reconsume_times=5`：c1 在第几秒把 `bad` 回传到 `%RETRY%cg`（它去往死信队列的路上）？

# %% nbgrader={"grade": false, "grade_id": "ex07a_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_2 = 153
### END SOLUTION

# %%
lab, c = orderly_lab(pause_two_minutes, max_reconsume_times=5)
lab.run(until="5m")
sent_back = lab.trace.of_kind("send_back")[0]
show_trace(lab.trace, "delivered", "suspended", "send_back", fields=("reconsume_times", "retry_in_ms"))

# %% nbgrader={"grade": true, "grade_id": "ex07a_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("07a.2", answer_2, sent_back.time_ms // 1000)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_07a_2
grading_07a_2.verify("07a.2", answer_2)
### END HIDDEN TESTS

# %%
# 范围的另一端：每个请求的值实际得到的暂停时间（requested ms = 监听器要求的毫秒数，paused ms = 实际暂停的毫秒数）
def pause_of(requested):
    """监听器要求暂停 `requested` ms 时，bad 第一次挂起的 retry_in_ms。"""
    def listener(msgs, ctx):
        ctx.suspend_current_queue_time_millis = requested
        return SUSPEND if msgs[0].body == "bad" else SUCCESS
    lab, c = orderly_lab(listener, max_reconsume_times=1)
    lab.run(until="10s")
    return lab.trace.of_kind("suspended")[0].get("retry_in_ms")

print(table([[ms, pause_of(ms)] for ms in (0, 5, 500, 60_000)], ["requested ms", "paused ms"]))

# %% [markdown]
# ## 三把锁
# 顺序消费的 Consumer 在一个队列上要拿三把锁。图（`locks_picture`）：六条消息，每条 5 s，所以我们可以在 `a`
# 还在监听器里时（2 s → 7 s）让时钟停下；从 4 s 继续单步：图会停下问 c1 下一次何时续期它的 Broker 锁。

# %% tags=["nbval-ignore-output"]
locks_dash = Dashboard(locks_picture, knobs={"message_model": "CLUSTERING", "messages": 6},
                       knob_options={"message_model": ["CLUSTERING", "BROADCASTING"]}, horizon="45s", checkpoints=[
    Checkpoint(before="lock_renewed", actor="consumer:c1", queue="TopicTest@broker-a:0", nth=2, ask="when",
               optional=True, name="c1 何时续期它的 Broker 锁",
               question="c1 启动时在 Broker 上锁住了 TopicTest@broker-a:0，并在 1 s 续期了租约。它下一次何时续期？选择时间。",
               hint="租约不是按消息续期的：RebalanceService 的 lockAll 按自己的定时器运行，不管 c1 是否在消费。",
               explain=sealed_explanation("07a.lock-renewed"))])
locks_dash.controller.seek_time("4s")
locks_dash

# %% [markdown]
# 三把锁，作用范围各不相同（图的“锁”标签页把它们画出来）：
#
# 1. **Broker 消息队列锁**（分布式锁）——Broker 的 `RebalanceLockManager` 里的一份租约，用 `lockBatchMQ`
#    获取：只有持有者才能消费这个队列；
# 2. **Consumer 消息队列锁**（本地锁）——`MessageQueueLock` 里这个队列对应的对象，在一个 `ConsumeRequest`
#    的整个消费循环期间持有：这个 Consumer 最多只有一个线程在处理这个队列；
# 3. **消息处理队列消费锁**（本地锁）——在每次调用监听器的前后持有：监听器处理一批消息到一半时，重平衡不能在 Broker
#    上释放这个队列。
#
# 图的 `message_model` 参数在 CLUSTERING / BROADCASTING 之间切换。下面的表格就是图自己的那次运行，在 `a`
# 还在监听器里时和图提问的那一刻（17 s）。
#
# `lock_table` 打印的表里：broker lock = Broker 消息队列锁（租约的持有者和剩余时间，none = 没有），c1 trusts
# it = c1 是否认为这把锁仍然有效（yes / no），MessageQueueLock = Consumer 消息队列锁，consume
# lock = 消息处理队列消费锁（held = 持有，free = 空闲）。

# %%
lab = locks_picture()
c = lab.consumers["c1"]
for until in ("4s", "17s"):
    lab.run(until=until)
    inside = [e.msg_id for e in lab.trace.of_kind("delivered", "consumed")][-1:]
    print(format_duration(lab.now), "—— 监听器里：", inside, "· 已消费：", len(lab.trace.of_kind("consumed")))
    print(lock_table(lab, c))

# %% [markdown]
# 两把本地锁只在 c1 消费时才持有：把图单步到最后一条消息之后（32 s），就能看到它们空闲。Broker 上的锁是一份租约，不管有没有东西要消费都一直保持（由 `lockAll` 按它自己的定时器续期）。
#
# ### 练习 3 — 先预测，再运行
# 同一个 Consumer，改为**广播模式 BROADCASTING**，停在 4 s，此时 `a` 在监听器里。c1 在 `TopicTest@broker-a:0`
# 上持有三把锁中的几把？先预测，再切换图的 `message_model` 参数，点“重建”，在 4 s 时看它的“锁”标签页。

# %% nbgrader={"grade": false, "grade_id": "ex07a_3_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_3 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_3 = 2
### END SOLUTION

# %%
def locks_held(lab, c, queue_id=0):
    """c 此刻在 TopicTest 队列 `queue_id` 上持有三把锁中的几把。"""
    mq, pq = topic_queue(c, queue_id)
    lease = lab.brokers[mq.broker_name].lock_manager.holder(c.consumer_group, mq)
    return sum([
        lease is not None and lease[0] == c.client_id,
        c.consume_service.mq_locks[mq].held,
        pq.consume_lock.held,
    ])

lab, c = orderly_lab(five_seconds, message_model="BROADCASTING")
lab.run(until="4s")
held = locks_held(lab, c)
print(lock_table(lab, c))
print("trace 里锁事件的个数：", len(lab.trace.of_kind("lock_acquired", "lock_renewed")))

# %% nbgrader={"grade": true, "grade_id": "ex07a_3", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("07a.3", answer_3, held)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_07a_3
grading_07a_3.verify("07a.3", answer_3)
### END HIDDEN TESTS

# %% [markdown]
# ## 客户端对 Broker 上的锁信任 30 s
# 图（`cut_off_lab`，15 条消息，每条 7 s）在 25 s 打开，这时 c1 与 broker-a 断开网络；它最后一次续期在 21 s。打开“锁”标签页继续单步：图会停下问 c1 何时发现锁已过期。

# %% tags=["nbval-ignore-output"]
cut_dash = Dashboard(lambda listener_seconds, messages: cut_off_lab(listener_seconds, messages)[0],
                     knobs={"listener_seconds": 7, "messages": 15}, horizon="75s", checkpoints=[
    Checkpoint(before="warning", actor="consumer:c1", nth=4, ask="when", optional=True,
               name="断开后 c1 何时停止消费",
               question="c1 在 25 s 与 broker-a 断开；它最后一次成功加锁是在 21 s。c1 何时发现锁已过期、不再取消息？"
                        "选择时间。",
               hint="ProcessQueue.isLockExpired() 在取每条消息之前检查，而不是按定时器：从最后一次成功加锁算起 30 s，"
                    "再找下一次检查。",
               explain=sealed_explanation("07a.stops-consuming"))])
cut_dash.controller.seek_time("25s")
cut_dash

# %% [markdown]
# `lockAll` 每 20 s 续期一次租约。续期失败时，c1 凭上一次成功继续消费，但只到 `ProcessQueue.isLockExpired()`
# 为止——也就是那次成功之后 30 s（`REBALANCE_LOCK_MAX_LIVE_TIME`）。练习的那次运行里，断开时 c1 的 ProcessQueue
# 里有 60 条每条 2 s 的消息（图的参数可以改它们）。
#
# ### 练习 4 — 先预测，再运行
# 这里问的是上面描述的那次运行，而不是图里的：**60 条消息，每条 2 s**（图的参数 `listener_seconds` 和 `messages` 是 7
# 和 15；预测之后想看这次运行，就把它们设为 2 和 60，再点 Rebuild）。在 70 s 网络恢复之前，c1 在第几秒投递它的**最后一条**消息？

# %% nbgrader={"grade": false, "grade_id": "ex07a_4_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_4 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_4 = 50
### END SOLUTION

# %%
lab, c = cut_off_lab()
lab.run(until="90s")
last_before_heal = max(e.time_ms for e in lab.trace.of_kind("delivered") if e.time_ms < 70_000)
show_trace(lab.trace, "lock_acquired", "lock_renewed", "warning", "fault", fields=("queue", "fault", "message"))
resumed = min(e.time_ms for e in lab.trace.of_kind("delivered") if e.time_ms >= 70_000)
print("网络恢复后的第一次投递：", format_duration(resumed))

# %% nbgrader={"grade": true, "grade_id": "ex07a_4", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("07a.4", answer_4, last_before_heal // 1000)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_07a_4
grading_07a_4.verify("07a.4", answer_4)
### END HIDDEN TESTS

# %% [markdown]
# 每次请求锁都和发送、拉取一样是一次网络调用，所以网络分区也会打断它：trace 里能看到每一条
# `lockBatchMQ exception`，先是 20 s 一次的续期（41 s、61 s），然后是下面说的重试。`persistAll` 每 5 s
# 发送的消费位点提交也以同样的方式丢失，等网络恢复后再重新发送。
#
# 锁过期之后，每个 `ConsumeRequest` 都调用 `tryLockLaterAndReconsume`：它向 Broker
# 请求这把锁（`lockOneMQ`），被拒绝或连不上时，大约 3 s 后再试。网络一恢复，下一次尝试就重新锁定，消费继续——这发生在
# Broker 自己的租约（21 s 之后 60 s）到期之前，所以这期间没有别人能拿走这个队列。

# %% [markdown]
# ## 一个队列不能一直占着线程：60 s 让出
# 图（`yield_lab`）：c1 只有**一个**消费线程（`consume_thread_min=1`），两个队列各有 4 条消息，每条消息要消费
# 25 s。播放它：在另一个队列第一次投递之前，它会停下来问那是什么时候。

# %% tags=["nbval-ignore-output"]
yield_dash = Dashboard(yield_lab, knobs={"consume_thread_min": 1, "listener_seconds": 25}, horizon="4m", checkpoints=[
    Checkpoint(before="delivered", queue="TopicTest@broker-a:1", ask="when", optional=True,
               name="另一个队列何时拿到线程",
               question="c1 只有一个消费线程，正忙着第一个队列。另一个队列的第一条消息（{msg}）何时开始消费？选择时间。",
               hint="只要队列还有消息，ConsumeRequest 就一直占着它，并在每一批之前检查自己已经运行了多久：只有超过 "
                    "MAX_TIME_CONSUME_CONTINUOUSLY 才让出线程。",
               explain=sealed_explanation("07a.other-queue"))])
yield_dash

# %% [markdown]
# 只要还有消息，一个 `ConsumeRequest` 就会一直消费它的队列——但在每一批之前，它会检查自己已经运行了多久，超过
# `MAX_TIME_CONSUME_CONTINUOUSLY`（60 s）就把线程让出来，10 ms 后重新提交自己。
#
# ### 练习 5 — 先预测，再运行
# 图中每条消息要 25 s。现在每条消息要 **40 s**（图的 `listener_seconds` 参数）：在另一个队列的第一条消息开始之前，
# c1 消费了第一个队列的几条消息？

# %% nbgrader={"grade": false, "grade_id": "ex07a_5_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_5 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_5 = 2
### END SOLUTION

# %%
lab = yield_lab(listener_seconds=40).run(until="5m")
order = [e.get("queue") for e in lab.trace.of_kind("delivered")]
before_switch = order.index(next(q for q in order if q != order[0]))
show_trace(lab.trace, "delivered", fields=("queue", "queue_offset"))

# %% nbgrader={"grade": true, "grade_id": "ex07a_5", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("07a.5", answer_5, before_switch)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_07a_5
grading_07a_5.verify("07a.5", answer_5)
### END HIDDEN TESTS

# %% [markdown]
# **最后说说 c1 的消费位点：顺序消费会覆盖，并发消费只会前进。** 图中的“处理队列”标签页显示 c1 边消费边为每个队列提交的消费位点。两种消费服务都调用 offset store 的 `updateOffset(mq, offset, increaseOnly)`：并发消费用
# `increaseOnly = true`（迟到的、更小的提交会被忽略），顺序消费用 `false`（直接替换）。下面的单元在上一次运行的 c1 的
# store 上两种方式各调用一次（这个队列的消费位点是 4）。正常情况下，顺序消费的提交从不后退（它按顺序提交取走的最后一个
# offset）；覆盖只在别人移动了消费位点时才有意义，比如管理员重置消费位点——rmqlab 没有模拟这一点。

# %%
store = lab.consumers["c1"].offset_store
mq = next(m for m in store.offset_table if m.topic == "TopicTest" and m.queue_id == 0)
store.update_offset(mq, 1, True)
print("increaseOnly=true  →", store.offset_table[mq])
store.update_offset(mq, 1, False)
print("increaseOnly=false →", store.offset_table[mq])

# %% [markdown]
# ## 要点
# - 顺序消费失败 = 在挂起时间（限制在 10 …
#   30000 ms）之后本地重试；默认不限次数；只有显式设置最大重试次数才会进入死信队列。
# - 三把锁：Broker 上的租约（Broker 端 60 s，客户端信任 30 s，每 20 s 续期）、消费循环用的
#   `MessageQueueLock`、每次调用监听器时的消费锁；消息模型决定 `ConsumeRequest.run` 需要其中哪几把。
# - 一个 ConsumeRequest 连续消费 60 s 后让出线程（`MAX_TIME_CONSUME_CONTINUOUSLY`）。
# - 下一个：[07b](07b_orderly_failover.ipynb)——崩溃的持有者、换了主人的队列、关闭、`autoCommit`、批量消费。
#
# ## 你的得分
# 最后运行这个单元：本实验的每个练习一行，来自你运行过的检查。

# %%
score("07a")
