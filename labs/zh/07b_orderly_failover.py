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
# [目录](README.md) · [← 上一个](07a_orderly_locks.ipynb) · [下一个 →](08_broadcasting_vs_clustering.ipynb)
#
# # 07b · 顺序消费：故障、接管与关闭
#
# **目标：** 看看一个顺序消费的队列在这些时候会怎样：持有者崩溃；监听器运行到一半时队列被分给另一个 Consumer；Consumer
# 关闭；监听器手动提交（`autoCommit`）；一批消息消费失败。本地重试和三把锁在实验 [07a](07a_orderly_locks.ipynb)
# 里。源码：`client/.../impl/consumer/ConsumeMessageOrderlyService.java`、`RebalancePushImpl.java`、`ProcessQueue.java`、`broker/.../client/rebalance/RebalanceLockManager.java`。

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
def takeover_lab(crash_at_s=10, c2_start_s=11):
    """从 2 s 起在一个队列上发送 a、bad、c；c1 在 ``crash_at_s`` 崩溃，同一消费组的 c2 在 ``c2_start_s`` 启动。"""
    lab, c = orderly_lab()
    lab.at(f"{crash_at_s}s", c.crash)
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=bad_suspends, orderly=True, name="c2",
                     start=f"{c2_start_s}s")
    return lab

def moving_queue_lab(listener_seconds=25):
    """两个队列，从 2 s 起发送四条消息；c1 顺序消费它们，c2 在 10 s 加入。"""
    slow = lambda msgs, ctx: after(listener_seconds * 1000, SUCCESS)  # noqa: E731
    lab, c1 = orderly_lab(slow, bodies=("m0", "m1", "m2", "m3"), queues=2)
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=slow, orderly=True, name="c2", start="10s")
    return lab

def shutdown_picture(response_delay_s=4):
    """从 2 s 起 a … f 在一个队列上；broker-a 从 7.5 s 起对每个请求都晚 ``response_delay_s`` 应答；c1 在 8 s 关闭。"""
    lab, c1 = orderly_lab(bodies=("a", "b", "c", "d", "e", "f"))
    lab.at("7.5s", lab.set_broker_fault, "broker-a", response_delay_ms=f"{response_delay_s}s")
    lab.at("8s", c1.shutdown)
    return lab

def manual_commit(commits="c", auto_commit=False):
    """一个设置 ``ctx.auto_commit`` 的监听器：“b”第一次调用时返回 ROLLBACK，``commits`` 返回 COMMIT，其余返回
    SUCCESS。"""
    rolled_back = []

    def listener(msgs, ctx):
        ctx.auto_commit = auto_commit
        if msgs[0].body == "b" and not rolled_back:
            rolled_back.append(msgs[0].msg_id)
            return ConsumeOrderlyStatus.ROLLBACK
        return ConsumeOrderlyStatus.COMMIT if msgs[0].body == commits else SUCCESS

    return listener


def commit_picture(messages=5, auto_commit=False):
    """一个队列上的 ``messages`` 条消息 a、b、c……，由 ``manual_commit()`` 消费。"""
    return orderly_lab(manual_commit(auto_commit=auto_commit), bodies=tuple("abcdefgh"[:messages]))[0]

def fails_with_bad(msgs, ctx):
    """整批一个状态：只要有一条消息是“bad”就返回 SUSPEND。"""
    return SUSPEND if any(m.body == "bad" for m in msgs) else SUCCESS


def batch_lab(batch=3, max_reconsume_times=2):
    """a、bad、c、d 在 1.0–1.3 s 发出，c1 在 2 s 启动时它们已在等待；每批 ``batch`` 条；含 bad 的批次都会被监听器判为失败。"""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    for k, body in enumerate(("a", "bad", "c", "d")):
        lab.at(f"{1000 + 100 * k}ms", p.send, Message("TopicTest", body))
    lab.add_consumer(
        "cg", subscribe={"TopicTest": "*"}, listener=fails_with_bad, orderly=True, name="c1", start="2s",
        consume_from_where="CONSUME_FROM_FIRST_OFFSET", consume_message_batch_max_size=batch,
        max_reconsume_times=max_reconsume_times,
    )
    return lab


# %% [markdown]
# ## 持有者崩溃：谁接管队列，什么时候
# 崩溃的 Consumer 从不解锁：它的 Broker 消息队列锁是 `RebalanceLockManager` 里的一份租约，由 `lockAll` 每 20 s
# 续期一次（实验 07a），一直保留到过期。图（`takeover_lab`）：c1 在 10 s 崩溃，c2 在 11 s 启动；打开“锁”标签页继续播放：图会停下来问 c2 何时拿到队列的锁（练习 1 的问题）。

# %% tags=["nbval-ignore-output"]
dash = Dashboard(takeover_lab, knobs={"crash_at_s": 10, "c2_start_s": 11}, horizon="90s", checkpoints=[
    Checkpoint(before="lock_acquired", actor="consumer:c2", queue="TopicTest@broker-a:0", ask="when", optional=True,
               name="c2 何时接管崩溃的 c1 的队列",
               question="c1 崩溃时持有 TopicTest@broker-a:0 的锁，c2 已经启动。c2 何时拿到这把锁？选择时间。",
               hint="崩溃的 Consumer 从不解锁：它在 RebalanceLockManager 里的租约一直保留到过期，即 c1 最后一次 "
                    "lockBatchMQ 之后 rebalanceLockMaxLiveTime；c2 只在重平衡时请求锁。",
               explain=sealed_explanation("07b.takes-crashed-queue"))])
dash.controller.seek_time("11s")
dash

# %% [markdown]
# ### 练习 1 — 先预测，再运行
# 图里的 c2 在 11 s 启动。这里 c1 同样在 10 s **崩溃**（它从不解锁），但同一消费组的 c2 晚一些，在 **25 s** 启动；c2
# 在每次重平衡时请求锁（启动时一次，之后每隔 20 s 一次）。c2 在第几秒第一次拿到 `TopicTest` 队列的锁？

# %% nbgrader={"grade": false, "grade_id": "ex07b_1_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_1 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_1 = 65
### END SOLUTION

# %%
lab = takeover_lab(c2_start_s=25).run(until="90s")
got = [e for e in lab.trace.of_kind("lock_acquired") if e.actor == "consumer:c2" and e.get("queue") == "TopicTest@broker-a:0"]
show_trace(lab.trace, "lock_acquired", "lock_refused", "lock_expired", "lifecycle", fields=("queue", "holder", "previous_holder", "event"))

# %% nbgrader={"grade": true, "grade_id": "ex07b_1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("07b.1", answer_1, got[0].time_ms // 1000)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_07b_1
grading_07b_1.verify("07b.1", answer_1)
### END HIDDEN TESTS

# %% [markdown]
# ## 队列被分给另一个 Consumer 时
# c2 在 10 s 加入，平均分配策略把队列 1 分给了它——而这时 c1 在这个队列上的一次 25 s 的监听器调用才进行了 8 s
# （`moving_queue_lab`）。看 c1 在监听器运行期间一直保留队列 1，在 c1 放手之后 Broker 上的租约转给 c2。

# %% tags=["nbval-ignore-output"]
moving_dash = Dashboard(moving_queue_lab, knobs={"listener_seconds": 25}, horizon="2m", checkpoints=[
    Checkpoint(before="lock_acquired", actor="consumer:c2", queue="TopicTest@broker-a:1", ask="when", optional=True,
               name="c2 何时拿到队列 1 的锁",
               question="c2 在 10 s 加入，重平衡把 TopicTest 的队列 1 分给了它，而 c1 正在消费这个队列。c2 何时拿到 "
                        "Broker 上 TopicTest@broker-a:1 的锁？选择时间。",
               hint="c2 只在重平衡时向 Broker 请求队列锁（lockBatchMQ），从启动起每隔 20 s 一次；只有当没有人持有这个"
                    "队列未过期的租约时，Broker 才会给它。",
               explain=sealed_explanation("07b.queue-1-lock")),
    Checkpoint(before="delivered", msg_id="M0001", nth=2, pause_before="pulled", ask="where", optional=True, name="M0001 接下来在哪里",
               question="重平衡已把队列 1 的 ProcessQueue 标记为 dropped 之后，c1 的监听器才以 SUCCESS 处理完 M0001；"
                        "现在 c2 持有这个队列的锁。c2 下一次拉取之后 M0001 在哪里？在图中点击那个位置（或按钮）。",
               hint="只有没被 dropped 的 ProcessQueue 才会提交消费结果；新的持有者从旧持有者放下队列时持久化的消费"
                    "位点开始。",
               explain=sealed_explanation("07b.where-m0001")),
])
moving_dash.controller.seek_time("10.5s")
moving_dash

# %% [markdown]
# `RebalancePushImpl.removeUnnecessaryMessageQueue` 把这个队列从 c1 那里移走：
#
# 1. 把这个队列的消费位点持久化到 Broker，然后忘掉它；
# 2. 把 ProcessQueue 标记为已丢弃（dropped），并最多等 1 s 去拿它的消费锁（`tryLock(1000 ms)`）——监听器要一直持有它，直到这次调用结束，所以在 11 s
#    重平衡放弃了（“[WRONG]mq is consuming, so can not unlock it”），队列留在 c1 的表里，在
#    c1 的下一次重平衡（这一次结束后 20 s）时再尝试移除；
# 3. 一旦拿到锁，就在 Broker 上解锁这个队列——如果 ProcessQueue 里还缓存着消息，就推迟
#    20 s（`UNLOCK_DELAY_TIME_MILLS`），让正在处理的消息处理完。
#
# 整个重平衡都在第 2 步里等着：它只有一个线程（`RebalanceService`），所以 c1 的其他队列也跟着等。图的
# `listener_seconds` 参数改变每次监听器调用的耗时（改后点“重建”）。

# %%
lab = moving_queue_lab()
lab.run(until="10.5s")
c1 = lab.consumers["c1"]
mq, pq = topic_queue(c1, 1)
waiting = [t for t in lab.snapshot().timers if t.kind.value == "consume_lock_wait"]
print("10.5 s：", mq, "—— 已丢弃（dropped）：", pq.dropped, "· c1 的重平衡等待消费锁，直到",
      format_duration(waiting[0].due_ms))
lab.run(until="11.5s")
print("11.5 s：发现消费锁被占用的移除尝试次数：", pq.try_unlock_times)

# %% [markdown]
# ### 练习 2 — 先预测，再运行
# 图中每次监听器调用要 25 s。现在每次只要 **5 s**（图的 `listener_seconds` 参数）：队列 1 的第一条消息 `M0001` 在 2 s
# 到达 c1，c2 仍在 10 s 加入。到运行结束，`M0001` 一共被投递几次（c1 和 c2 合计）？

# %% nbgrader={"grade": false, "grade_id": "ex07b_2_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_2 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_2 = 1
### END SOLUTION

# %%
lab = moving_queue_lab(listener_seconds=5)
lab.run(until="2m")
m0001 = [e for e in lab.trace.of_kind("delivered") if e.msg_id == "M0001"]
QUEUE_1 = "TopicTest@broker-a:1"

def about_queue_1(e):
    """队列 1 的事件，以及移动了它的那些重平衡。"""
    return e.get("queue") == QUEUE_1 or QUEUE_1 in (e.get("added") or []) + (e.get("removed") or [])

show_trace(
    [e for e in lab.trace if about_queue_1(e)],
    "delivered", "consumed", "offset_updated", "offset_persisted", "rebalanced", "lock_acquired", "lock_refused", "unlocked",
    fields=("queue_offset", "status", "offset", "added", "removed", "holder"),
)

# %% nbgrader={"grade": true, "grade_id": "ex07b_2", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("07b.2", answer_2, len(m0001))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_07b_2
grading_07b_2.verify("07b.2", answer_2)
### END HIDDEN TESTS

# %% [markdown]
# ## 干净的关闭：先解锁，每个应答都要等
# 图（`shutdown_picture`）：broker-a 从 7.5 s 起对每个请求都晚 4 s 应答（参数 `response_delay_s`），c1 在 8 s
# 关闭。播放它：在关闭结束之前，图会停下来问你关闭在什么时候结束。

# %% tags=["nbval-ignore-output"]
shutdown_dash = Dashboard(shutdown_picture, knobs={"response_delay_s": 4}, horizon="15s", checkpoints=[
    Checkpoint(before="lifecycle", actor="consumer:c1", nth=2, ask="when", optional=True,
               name="c1 的关闭何时结束",
               question="c1 的 shutdown() 已经以 unlockAll 开始：它正在归还它在 broker-a 上的锁，而 broker-a 现在对每个"
                        "请求都应答得很晚。c1 的关闭什么时候结束（消费位点已持久化，Consumer 已停止）？选择时间。",
               hint="unlockAll 对每个 Broker 发一个 UNLOCK_BATCH_MQ 并等待它的应答，但最多只等到请求超时；不管结果"
                    "如何，等完之后才持久化消费位点。",
               explain=sealed_explanation("07b.shutdown-ends")),
])
shutdown_dash

# %% [markdown]
# 顺序消费 Consumer 的 `shutdown()` 以 `unlockAll` 结束它的消费服务：每个 Broker 一个 UNLOCK_BATCH_MQ 请求，带上该
# Broker 的所有队列，一个 Broker 接一个，每个都是需要应答的请求。之后才持久化消费位点、注销
# Consumer。下面的表格是图的那次运行，到图的提问（它停在 8 s）为止：Broker 立刻执行了解锁（8 s 的 `unlocked`
# 事件是在 Broker 释放租约时记录的），而 c1 还在等它的应答。c1 什么时候不再等，就是图的问题。

# %%
lab = shutdown_picture().run(until="8.5s")
show_trace([e for e in lab.trace if e.time_ms >= 7_500], "unlocked", "warning", "offset_persisted", "lifecycle",
           fields=("queue", "offset", "message", "event"))

# %% [markdown]
# ## `autoCommit = false`：由监听器决定何时提交
# 设置 `ctx.auto_commit = False` 后，`SUCCESS` 只是把消息挪开；消费位点在 `COMMIT`
# 时才前进（到目前为止消费过的全部），监听器也可以返回 `ROLLBACK`。图（`commit_picture`）：`a` … `e` 由 `manual_commit()`
# 消费，`b` 第一次返回 `ROLLBACK`，`c` 返回 `COMMIT`；播放它，回答它的两个问题。

# %% tags=["nbval-ignore-output"]
commit_dash = Dashboard(commit_picture, knobs={"messages": 5, "auto_commit": False}, horizon="20s", checkpoints=[
    Checkpoint(before="consumed", msg_id="M0002", inside_step=True, ask="where", optional=True,
               name="b 回滚之后在哪里",
               question="自动提交已关闭，a 返回了 SUCCESS，监听器现在对 b（{msg}）返回 ROLLBACK。这之后 b 在哪里？"
                        "在图中点击那个位置（或点按钮）。",
               explain=sealed_explanation("07b.rollback-b")),
    Checkpoint(before="offset_updated", actor="consumer:c1", ask="when", optional=True,
               name="c1 的消费位点何时第一次前进",
               question="自动提交已关闭：监听器对 c 返回 COMMIT，对其他消息返回 SUCCESS（b 回滚过一次）。c1 已提交的"
                        "消费位点何时第一次前进？选择时间。",
               hint="autoCommit 为 false 时，SUCCESS 不会提交：只有 COMMIT 才会调用 ProcessQueue.commit()。",
               explain=sealed_explanation("07b.offset-moves"))])
commit_dash

# %% [markdown]
# ### 练习 3 — 先预测，再运行
# 和图中一样是五条消息 `a` … `e`、关闭自动提交（`b` 回滚过一次），但监听器对 **`d`** 返回 `COMMIT`（对其他消息返回 `SUCCESS`）。最后
# c1 为这个队列持有的消费位点是多少？

# %% nbgrader={"grade": false, "grade_id": "ex07b_3_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_3 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_3 = 4
### END SOLUTION

# %%
lab, c = orderly_lab(manual_commit(commits="d"), bodies=("a", "b", "c", "d", "e"))
lab.run(until="20s")
mq, pq = topic_queue(c)
held_offset = c.offset_store.offset_table[mq]
show_trace(lab.trace, "consumed", "offset_updated", fields=("queue_offset", "status", "offset"))
print("仍未提交的（consumingMsgOrderlyTreeMap）：", list(pq.consuming_msg_orderly_tree_map))

# %% nbgrader={"grade": true, "grade_id": "ex07b_3", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("07b.3", answer_3, held_offset)
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_07b_3
grading_07b_3.verify("07b.3", answer_3)
### END HIDDEN TESTS

# %% [markdown]
# `ROLLBACK` 把每条未提交的消息放回 ProcessQueue（`ProcessQueue.rollback`）：`a` 虽然返回了 `SUCCESS`，但没有提交，于是和 `b` 一起再次投递。现在把图的 `auto_commit` 参数设为 `True` 并点“重建”：在默认的 `auto_commit = True` 下，这两个状态已经废弃：`COMMIT` 和 `ROLLBACK` 会被记为非法（illegal）并当作 `SUCCESS` 处理——`ROLLBACK` 反而提交了。
#
# > **常见说法 vs. 源码。** “返回 `ROLLBACK` 就能重试。”——`ConsumeMessageOrderlyService.processConsumeResult`
# > 只有在监听器关闭了 `autoCommit` 时才回滚；否则它会提交。要重试，请返回 `SUSPEND_CURRENT_QUEUE_A_MOMENT`。

# %%
for auto_commit in (False, True):  # 图中的运行，参数取两种值，以表格列出
    print("auto_commit =", auto_commit)
    show_trace(commit_picture(messages=3, auto_commit=auto_commit).run(until="10s").trace, "delivered", "consumed",
               "warning", "offset_updated", fields=("queue_offset", "status", "offset", "message"))

# %% [markdown]
# ## 一批消息作为整体失败
# 设置 `consume_message_batch_max_size=3`（`batch_lab`）后，监听器一次最多拿到三条消息，并为它们返回同一个状态。播放图：在第一批消息交给监听器之前，图会停下来问：监听器对 `a` 本身并无意见，这一批失败之后 `a` 在哪里。

# %% tags=["nbval-ignore-output"]
batch_dash = Dashboard(batch_lab, knobs={"batch": 3, "max_reconsume_times": 2}, horizon="10s", checkpoints=[
    Checkpoint(before="suspended", msg_id="M0001", pause_before="delivered", ask="where", optional=True,
               name="这一批失败后 a 在哪里",
               question="c1 正要把 a（{msg}）、bad 和 c 作为一批交给监听器；任何含有 bad 的批次都会被监听器判为失败。"
                        "这一批失败之后 a 在哪里？在图中点击那个位置（或按钮）。",
               hint="监听器为它的整批消息返回一个 ConsumeOrderlyStatus，processConsumeResult 针对它交出去的这一批"
                    "处理，而不是逐条处理。",
               explain=sealed_explanation("07b.batch-a")),
])
batch_dash

# %% [markdown]
# ### 练习 4 — 先预测，再运行
# 图中每批 3 条。现在 `consume_message_batch_max_size=2`（图的 `batch` 参数）：c1 启动时 `a`、`bad`、`c`、`d` 已在等待，
# `max_reconsume_times=2`，监听器让任何含有 `bad` 的批次消费失败。最后有几条消息进入 `%DLQ%cg`？

# %% nbgrader={"grade": false, "grade_id": "ex07b_4_answer", "locked": false, "schema_version": 3, "solution": true, "task": false}
answer_4 = ...  # ← 你的预测
### BEGIN SOLUTION
answer_4 = 2
### END SOLUTION

# %%
lab = batch_lab(batch=2).run(until="3m")
dead = lab.trace.of_kind("dead_lettered")
show_trace(lab.trace, "delivered", "send_back", "dead_lettered", fields=("queue_offset", "reconsume_times", "batch", "topic"))

# %% nbgrader={"grade": true, "grade_id": "ex07b_4", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
check("07b.4", answer_4, len(dead))
### BEGIN HIDDEN TESTS
import rmqlab.course.grading as grading_07b_4
grading_07b_4.verify("07b.4", answer_4)
### END HIDDEN TESTS

# %% [markdown]
# ## 要点
# - 崩溃的持有者从不解锁：它在 Broker
#   上（`RebalanceLockManager`）的租约自己到期，而另一个实例只在它自己的重平衡时才请求这个队列。
# - 队列只会在两次监听器调用之间离开一个 Consumer（`removeUnnecessaryMessageQueue` 会等待消费锁）。
# - 干净的关闭先解锁（`unlockAll`，每个 Broker 一个请求，每个应答最多等 1 s），再持久化消费位点：变慢的 Broker
#   会推迟最后那次持久化；迟到的应答只被记进日志（`RemotingTimeoutException`）：ProcessQueue 仍被标记为已锁定。
# - 每次请求锁都是一个 `lock_batch` 事件（请求了哪些队列、哪些获准、哪些被拒绝及其持有者，或 Broker
#   连不上时的错误），每个 ConsumeRequest 都是一个带延迟的 `consume_request`
#   事件（`submitConsumeRequestLater`）：`lab.trace.where("lock_batch")`。首次起始消费位点算不出来的队列会在 1000 ms
#   后重新拉取；120 s 没有被拉取的队列会被丢弃，由下一次重平衡重新创建。
# - `autoCommit = false` 让监听器可以用 `COMMIT` / `ROLLBACK`；在默认设置下它们都等于 `SUCCESS`。
# - 监听器为一整批消息返回一个状态：`makeMessageToConsumeAgain` 把整批放回去，`checkReconsumeTimes`
#   为其中每条消息都记一次重试。
#
# ## 你的得分
# 最后运行这个单元：本实验的每个练习一行，来自你运行过的检查。

# %%
score("07b")
