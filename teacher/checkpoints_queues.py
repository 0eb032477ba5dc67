# ruff: noqa: E501 — explanations are prose, one per line as the student reads them.
"""The explanations of the checkpoints on the pictures of the queue labs (05, 06, 07a, 07b, 08, 09),
in English and Simplified Chinese, each with the right answer at its picture's first settings.

Teacher-only (never installed, never in a student copy): ``python -m teacher.compile`` seals each text under its
answer into ``rmqlab/course/bank.json``; a lab names it by id (``explain=sealed_explanation("07b.where-m0001")``).
``tests/test_checkpoint_sealed.py`` runs every lab's pictures and checks each ``answer`` is the engine's.
"""

from __future__ import annotations

from .declare import CheckpointWhy

QUEUE_CHECKPOINTS: tuple[CheckpointWhy, ...] = (
    # 07a
    CheckpointWhy(
        id="07a.bad-comes-back",
        answer="4000",
        why="Right: {answer}. bad returned SUSPEND_CURRENT_QUEUE_A_MOMENT at 3 s. An orderly consumer never sends a failure back to the broker: processConsumeResult puts it back into the ProcessQueue and submitConsumeRequestLater retries the same queue after suspendCurrentQueueTimeMillis, its default: {since}. c (M0003) waits behind it: one queue is consumed in order.",
        zh="答对了：{answer}。bad 在 3 s 返回 SUSPEND_CURRENT_QUEUE_A_MOMENT。顺序消费的 Consumer 从不把失败的消息回传给 Broker：processConsumeResult 把它放回 ProcessQueue，submitConsumeRequestLater 在 suspendCurrentQueueTimeMillis（默认值：{since}）之后在同一个队列上重试。c（M0003）在它后面等着：一个队列按顺序消费。",
    ),
    CheckpointWhy(
        id="07a.gives-up",
        answer="6000",
        why="Right: {answer}. Each suspension counted one more reconsume and paused the queue {suspended_retry_in}. When bad failed with reconsumeTimes at the max ({max_reconsume_times}), checkReconsumeTimes stopped retrying it locally: it sent bad back to %RETRY%cg (on its way to the DLQ) and committed it, and c went next.",
        zh="答对了：{answer}。每次挂起都让重试次数加一，并让队列暂停 {suspended_retry_in}。bad 在 reconsumeTimes 达到最大值（{max_reconsume_times}）时又一次消费失败，checkReconsumeTimes 就不再在本地重试：它把 bad 回传到 %RETRY%cg（在去死信队列的路上）并提交，然后轮到 c。",
    ),
    CheckpointWhy(
        id="07a.pauses-end",
        answer="93000",
        why="Right: {answer}. submitConsumeRequestLater clamped every requested pause: each of bad's suspensions lasted {suspended_retry_in}, not two minutes. After the last one bad failed with reconsumeTimes at the max ({max_reconsume_times}), and checkReconsumeTimes sent it back.",
        zh="答对了：{answer}。submitConsumeRequestLater 限制了每次请求的暂停：bad 的每次挂起只持续 {suspended_retry_in}，而不是两分钟。最后一次之后 bad 在 reconsumeTimes 达到最大值（{max_reconsume_times}）时又一次消费失败，checkReconsumeTimes 就把它回传。",
    ),
    CheckpointWhy(
        id="07a.lock-renewed",
        answer="21000",
        why="Right: {answer}. The broker lease is not tied to consuming: RebalanceService's lockAll renews every lock c1 holds every 20 s (from its first run at 1 s), whether a listener is running or not, and each renewal gives the lease 60 s more at the broker. The two local locks (MessageQueueLock and the consume lock) come and go with each ConsumeRequest and listener call instead.",
        zh="答对了：{answer}。Broker 租约与消费无关：RebalanceService 的 lockAll 每 20 s（从 1 s 第一次运行起）为 c1 持有的每把锁续期一次，不管有没有监听器在运行，每次续期都让租约在 Broker 上再延长 60 s。两把本地锁（MessageQueueLock 和消费锁）则随每个 ConsumeRequest 和每次监听器调用而加上、放开。",
    ),
    CheckpointWhy(
        id="07a.stops-consuming",
        answer="58000",
        why="Right: {answer}. After the cut every renewal failed, so c1's copy of the lock dated from 21 s. The consume loop checks ProcessQueue.isLockExpired() before it takes each message: at 51 s exactly 30 s had passed, not more, so that message ran; the next check, when it finished, found the lock expired, and tryLockLaterAndReconsume asked the broker again, about every 3 s, until the link healed.",
        zh="答对了：{answer}。链路切断后每次续期都失败了，所以 c1 手里的锁停在 21 s。消费循环在取每条消息之前检查 ProcessQueue.isLockExpired()：51 s 时恰好过了 30 s，没有超过，所以那条消息照常运行；它处理完后的下一次检查发现锁已过期，tryLockLaterAndReconsume 就大约每 3 s 向 Broker 重新请求一次，直到链路恢复。",
    ),
    CheckpointWhy(
        id="07a.other-queue",
        answer="77000",
        why="Right: {answer}. The single thread kept the first queue's ConsumeRequest while it had messages. Before each batch the request checks how long it has run; only once past MAX_TIME_CONSUME_CONTINUOUSLY did it give the thread back and resubmit itself, and the other queue's request ran.",
        zh="答对了：{answer}。唯一的线程一直被第一个队列的 ConsumeRequest 占着，只要它还有消息。每一批之前这个请求都检查自己运行了多久；只有超过 MAX_TIME_CONSUME_CONTINUOUSLY 之后，它才让出线程并重新提交自己，另一个队列的请求才得以运行。",
    ),
    # 07b
    CheckpointWhy(
        id="07b.takes-crashed-queue",
        answer="71000",
        why="Right: {answer}. c1's lease stayed until it expired (rebalanceLockMaxLiveTime after its last renewal), and until then the broker refused c2 at each of its rebalances. c2's first rebalance after the expiry took the lock: the first time it asked with no live lease.",
        zh="答对了：{answer}。c1 的租约一直保留到过期（最后一次续期之后 rebalanceLockMaxLiveTime），在此之前c2 每次重平衡时请求都被 Broker 拒绝。租约过期后 c2 的第一次重平衡拿到了锁：这是它第一次在没有未过期租约时请求。",
    ),
    CheckpointWhy(
        id="07b.queue-1-lock",
        answer="70000",
        why="Right: {answer}. c2 asks for the lock only in its rebalances, 20 s apart from its start at 10 s: refused at 10 s, 30 s and 50 s while c1 held the lease. c1's rebalance dropped queue 1 at 31 s, once its listener let go of the consume lock, and unlocked it at the broker at 51 s, 20 s later (UNLOCK_DELAY_TIME_MILLS) because messages were still cached; so c2's next rebalance, at {time}, gets it.",
        zh="答对了：{answer}。c2 只在重平衡时请求锁，从 10 s 启动起每隔 20 s 一次：c1 持有租约时，它在 10 s、30 s、50 s 都被拒绝。c1 的重平衡在 31 s 放下队列 1（它的监听器此时已放开消费锁），并在 20 s 后的 51 s 才在 Broker 上解锁（UNLOCK_DELAY_TIME_MILLS），因为 ProcessQueue 里还缓存着消息；所以 c2 的下一次重平衡，在 {time}，拿到了锁。",
    ),
    CheckpointWhy(
        id="07b.where-m0001",
        answer="pq:c2:TopicTest@broker-a:1",
        why="Right: {answer}. The rebalance persisted queue 1's offset when c2 joined, before c1 had finished M0001, and marked the ProcessQueue dropped, so c1's SUCCESS was never committed. c2 starts from that persisted offset and gets M0001 again: at-least-once, even in order.",
        zh="答对了：{answer}。c2 加入时，重平衡在 c1 处理完 M0001 之前就持久化了队列 1 的消费位点，并把ProcessQueue 标记为 dropped，所以 c1 的 SUCCESS 从未被提交。c2 从那个持久化的消费位点开始，再次拿到 M0001：即使是顺序消费，也是至少一次。",
    ),
    CheckpointWhy(
        id="07b.shutdown-ends",
        answer="9001",
        why="Right: {answer}. c1 asked broker-a to unlock its queues at {unlocked_at}. The broker released the leases at once, but its answer was late, so the client gave up when the request timed out ({warning_at}, RemotingTimeoutException, only logged), then persisted its offsets and stopped. Its ProcessQueues stay marked locked.",
        zh="答对了：{answer}。c1 在 {unlocked_at} 请求 broker-a 解锁它的队列。Broker 立刻释放了租约，但应答来晚了，所以客户端在请求超时时放弃（{warning_at}，RemotingTimeoutException，只记进日志），然后持久化消费位点并停止。它的 ProcessQueue 仍被标记为已锁定。",
    ),
    CheckpointWhy(
        id="07b.rollback-b",
        answer="pq:c1:TopicTest@broker-a:0",
        why="Right: {answer}. With autoCommit false, processConsumeResult answers ROLLBACK with ProcessQueue.rollback(): every message taken since the last commit (consumingMsgOrderlyTreeMap) goes back into msgTreeMap, a too, though its listener call returned SUCCESS. Nothing is sent back to the broker and the offset does not move; the queue is resubmitted after the suspend time, and a and b are delivered again, in order.",
        zh="答对了：{answer}。关闭自动提交后，processConsumeResult 对 ROLLBACK 调用 ProcessQueue.rollback()：上次提交以来取走的每条消息（consumingMsgOrderlyTreeMap）都回到 msgTreeMap，a 也一样，尽管它的监听器调用返回了 SUCCESS。没有任何消息回传给 Broker，消费位点也不动；暂停时间过后这个队列被重新提交，a 和 b 按顺序再次投递。",
    ),
    CheckpointWhy(
        id="07b.offset-moves",
        answer="4000",
        why="Right: {answer}. With auto-commit off, SUCCESS only takes a message out of the way (it stays in consumingMsgOrderlyTreeMap, uncommitted). The COMMIT returned for c commits everything consumed so far, so the offset jumps past c at once.",
        zh="答对了：{answer}。关闭自动提交后，SUCCESS 只是把消息挪开（它留在 consumingMsgOrderlyTreeMap 里，未提交）。对 c 返回的 COMMIT 提交到目前为止消费过的全部消息，所以消费位点一下子越过 c。",
    ),
    CheckpointWhy(
        id="07b.batch-a",
        answer="pq:c1:TopicTest@broker-a:0",
        why="Right: {answer}. The listener returned one status for the whole batch, and processConsumeResult handles the batch, not the message: makeMessageToConsumeAgain put every message of it back into the ProcessQueue, {msg} included, and checkReconsumeTimes counted a try for each (reconsumeTimes {reconsume_times}).",
        zh="答对了：{answer}。监听器为整批消息返回一个状态，processConsumeResult 处理的是这一批，而不是单条消息：makeMessageToConsumeAgain 把这一批的每条消息都放回了 ProcessQueue，{msg} 也在其中；checkReconsumeTimes 为每条都记了一次重试（reconsumeTimes {reconsume_times}）。",
    ),
    # 09
    CheckpointWhy(
        id="09.bad-card-waits",
        answer="pq:pay-1:Payments@broker-a:0",
        why="Right: {answer}. pay-1 is an orderly consumer: a suspension puts bad-card back into its own ProcessQueue (makeMessageToConsumeAgain) and the queue pauses {since} before the same message is taken again. Nothing goes to the broker (no %RETRY% topic, no delay level, no DLQ) and the committed offset stays in front of bad-card: this queue is the blocked one, and the payments behind bad-card wait for it.",
        zh="答对了：{answer}。pay-1 是顺序消费的 Consumer：暂时挂起消费会把 bad-card 放回它自己的处理队列（makeMessageToConsumeAgain），队列暂停 {since} 后再取同一条消息。什么都没有交给 Broker（没有 %RETRY% 主题，没有延迟级别，不进死信队列），消费位点停在 bad-card 前面：被堵住的就是这个队列，bad-card 后面的支付都在等它。",
    ),
    CheckpointWhy(
        id="09.gives-up",
        answer="8000",
        why="Right: {answer}. Every suspension counts one more reconsume. When bad-card failed with reconsumeTimes at maxReconsumeTimes ({max_reconsume_times}), checkReconsumeTimes stopped retrying it locally: it sent bad-card back to the broker (sendMessageBack, which dead-letters a message at its max) and committed its offset, so the queue is no longer blocked.",
        zh="答对了：{answer}。每次挂起都让重试次数加一。bad-card 在 reconsumeTimes 达到 maxReconsumeTimes（{max_reconsume_times}）时又一次消费失败，checkReconsumeTimes 就不再在本地重试：它把 bad-card 回传给 Broker（sendMessageBack，达到最大重试次数的消息由 Broker 放进死信队列），并提交它的消费位点，队列不再被堵住。",
    ),
    # 05
    CheckpointWhy(
        id="05.offset-past-slow",
        answer="62000",
        why="Right: {answer}. ProcessQueue.removeMessage returns msgTreeMap.firstKey(), the smallest offset still in the TreeMap, not the highest one done: while slow sat in its 60 s listener, M0003 … M0005 finishing did not move the commit. When slow returned, the map was empty and removeMessage returned queueOffsetMax + 1 = {offset}.",
        zh="答对了：{answer}。ProcessQueue.removeMessage 返回 msgTreeMap.firstKey()，即 TreeMap 里最小的位点，而不是已完成的最大位点：slow 还在它 60 s 的监听器里时，M0003 … M0005 完成也没有让消费位点移动。slow 返回时 TreeMap 空了，removeMessage 返回 queueOffsetMax + 1 = {offset}。",
    ),
    CheckpointWhy(
        id="05.broker-copy-follows",
        answer="65000",
        why="Right: {answer}. The client's copy moved the moment slow left the TreeMap; the broker's moves only when c1 tells it. A pull request carries c1's commitOffset, but c1's last pull was held at broker-a (long polling: nothing new to pull) and had carried the old offset. So broker-a learned {offset} from MQClientInstance's persistAllConsumerOffset, c1's timer every 5 s (persistConsumerOffsetInterval, first run 10 s after start). Until then a crash of c1 would lose its copy: the restarted consumer resumes from the broker's.",
        zh="答对了：{answer}。slow 一离开 TreeMap，客户端那份就变了；Broker 那份只有 c1 告诉它时才变。拉取请求会捎带 c1 的 commitOffset，但 c1 的上一次拉取被 broker-a 挂起了（长轮询：没有新消息可拉），它捎带的还是旧位点。所以 broker-a 是从 MQClientInstance 的 persistAllConsumerOffset 得知 {offset} 的：这是 c1 每 5 s 一次的定时任务（persistConsumerOffsetInterval，启动 10 s 后第一次运行）。在那之前 c1 崩溃就会丢掉它那份：重启的 Consumer 从 Broker 那份继续。",
    ),
    CheckpointWhy(
        id="05.slow-after-restart",
        answer="pq:c1:TopicTest@broker-a:0",
        why="Right: {answer}. The restarted c1 starts from the offset the broker had persisted for cg, and that offset was still slow's: the client's commit could not pass slow while its listener ran. So slow is delivered again: at-least-once.",
        zh="答对了：{answer}。重启后的 c1 从 Broker 为 cg 持久化的消费位点开始，而这个消费位点仍停在 slow：slow 的监听器运行期间，客户端的提交无法越过它。所以 slow 被再次投递：至少一次。",
    ),
    # 06
    CheckpointWhy(
        id="06.order-4-at-10s",
        answer="queue:TopicTest@broker-b:0",
        why="Right: {answer}. At 10 s the producer's route still lists all 8 queues, [a0..a3, b0..b3] (it re-reads routes every 30 s), so the selector returns mqs[4 % 8], on a broker that is up. Order 3 got mqs[3 % 8] = a3 on the broker that is down, and sendSelectImpl made its one attempt: no retry on another queue, which would break the order's sequence.",
        zh="答对了：{answer}。10 s 时 Producer 的路由仍列出全部 8 个队列 [a0..a3, b0..b3]（它每 30 s 重新拉取一次路由），所以选择器返回 mqs[4 % 8]，在一个正常运行的 Broker 上。订单 3 得到 mqs[3 % 8] = a3，在宕机的 Broker 上，而 sendSelectImpl 只尝试一次：不会换一个队列重试，那会打乱这个订单的顺序。",
    ),
    CheckpointWhy(
        id="06.order-3-after-poll",
        answer="queue:TopicTest@broker-b:3",
        why="Right: {answer}. After the route poll the producer's list holds only broker-b's queues, and by_order_id computes its index over the list it has now: the order moved to another broker's queue, so its events no longer share one queue.",
        zh="答对了：{answer}。拉取路由之后，Producer 的列表里只有 broker-b 的队列，而 by_order_id 在它此刻的列表上计算下标：这个订单换到了另一个 Broker 的队列上，它的事件不再在同一个队列里。",
    ),
    CheckpointWhy(
        id="06.order-5-first",
        answer="queue:TopicTest@broker-b:1",
        why="Right: {answer}. by_order_id returns mqs[order_id % len(mqs)] over the route's queue list, broker-a's four queues then broker-b's: 5 % 8 = 5, the second queue of broker-b. Every later event of order 5 gets the same index while the list stays the same, so one queue holds the order's events in sequence.",
        zh="答对了：{answer}。by_order_id 在路由的队列列表上返回 mqs[order_id % len(mqs)]，列表先是 broker-a 的四个队列，再是 broker-b 的：5 % 8 = 5，即 broker-b 的第二个队列。只要列表不变，订单 5 之后的每个事件都得到同一个下标，所以这个订单的事件按顺序落在同一个队列里。",
    ),
    CheckpointWhy(
        id="06.selector-throws",
        answer="no",
        why="Right: {answer}. sendSelectImpl calls the selector before anything else; a selector that throws (or returns null) ends the send with MQClientException (\"select message queue threw exception\"), and no request is ever made: M0002 is crossed in pg's \"send failed\" tray with 0 attempts. The application gets the exception, and the event is its to send again or give up.",
        zh="答对了：{answer}。sendSelectImpl 先调用选择器；选择器抛出异常（或返回 null）时，发送以 MQClientException（“select message queue threw exception”）结束，根本不会发出请求：M0002 以 0 次尝试打叉留在 pg 的“发送失败”区。应用收到这个异常，这个事件是重发还是放弃，由应用决定。",
    ),
    CheckpointWhy(
        id="06.strict-refuses",
        answer="no",
        why="Right: {answer}. strict_by_order_id still wants a3 (3 % 8 over the topic's full list), and a3 is no longer in the route, so it returns None; sendSelectImpl then throws MQClientException (\"select message queue return null\") before anything is sent. The order stays in one queue, at the cost of refusing the send while that queue is gone.",
        zh="答对了：{answer}。strict_by_order_id 仍然要 a3（在 Topic 的完整列表上 3 % 8），而 a3 已不在路由中，所以它返回 None；sendSelectImpl 随即在发送任何东西之前抛出 MQClientException（“select message queue return null”）。订单留在一个队列里，代价是这个队列不在时拒绝发送。",
    ),
    CheckpointWhy(
        id="06.stored-anyway",
        answer="queue:TopicTest@broker-a:3",
        why="Right: {answer}. broker-a appended {msg} the moment the request arrived; only its answer was late. pg gave up after 3000 ms (RemotingTimeoutException), which says nothing about the store: the timeout is the producer's clock, not the broker's. An application that sends it again adds a duplicate.",
        zh="答对了：{answer}。请求一到，broker-a 就追加了 {msg}；晚的只是它的响应。pg 在 3000 ms 后放弃（RemotingTimeoutException），这与是否存储无关：超时是 Producer 的时钟，不是 Broker 的。应用若再发送一次，就会多出一条重复消息。",
    ),
    # 08
    CheckpointWhy(
        id="08.clustering-send-back",
        answer="delay:broker-a:3",
        why="Right: {answer}. In CLUSTERING processConsumeResult sends a failed message back to the broker (sendMessageBack, delayLevel 0: the broker uses 3 + reconsumeTimes). The broker parks the copy in SCHEDULE_TOPIC_XXXX at that level; when the delay is over it moves to %RETRY%cg, which the group's consumers subscribe, and whoever owns that queue gets it again.",
        zh="答对了：{answer}。集群模式下 processConsumeResult 把消费失败的消息回传给 Broker（sendMessageBack，delayLevel 0：Broker 用 3 + reconsumeTimes）。Broker 把这份副本按这个级别放进 SCHEDULE_TOPIC_XXXX；延迟结束后它被移到 %RETRY%cg，消费组的 Consumer 都订阅了这个 Topic，谁拥有那个队列，谁就再次收到它。",
    ),
    CheckpointWhy(
        id="08.offsets-local",
        answer="no",
        why="Right: {answer}. In BROADCASTING, DefaultMQPushConsumerImpl.start() gives each instance a LocalFileOffsetStore, and its persistAll writes the offsets to a local file of that very instance, never to the broker. Each instance keeps its own offset per queue, as the ProcessQueues tab shows under each of c1's and c2's queues. In CLUSTERING the group shares one offset per queue in the broker's consumerOffset table (RemoteBrokerOffsetStore).",
        zh="答对了：{answer}。广播模式下，DefaultMQPushConsumerImpl.start() 给每个实例一个 LocalFileOffsetStore，它的 persistAll 把消费位点写进这个实例自己的本地文件，从不写到 Broker。每个实例为每个队列各自保存一个消费位点，就像“处理队列”标签页在 c1 和 c2 各自的队列下画出的那样。集群模式下，整个消费组在 Broker 的 consumerOffset 表里为每个队列共用一个消费位点（RemoteBrokerOffsetStore）。",
    ),
    CheckpointWhy(
        id="08.retry-topic",
        answer="no",
        why="Right: {answer}. Whether a push consumer subscribes %RETRY%<group> is decided once, when it starts, by DefaultMQPushConsumerImpl.copySubscription, from the group's message model: the retry topic is where the broker returns the group's sent-back messages, so a consumer subscribes it exactly when its processConsumeResult sends failures back.",
        zh="答对了：{answer}。Push Consumer 是否订阅 %RETRY%<group>，在它启动时由 DefaultMQPushConsumerImpl.copySubscription 按消费者组的消息模式一次决定：重试主题是 Broker 送回本组回传消息的地方，所以只有 processConsumeResult 会把消费失败回传的 Consumer 才订阅它。",
    ),
    CheckpointWhy(
        id="08.failed-copy",
        answer="dropped:c1",
        why="Right: {answer}. In BROADCASTING each instance gets its own copy and keeps its own offsets (LocalFileOffsetStore, on the client's disk: the broker keeps none for it). processConsumeResult never calls sendMessageBack there, and nothing retries the copy: no %RETRY% topic, no delay level, no dead letter, and c2's copy is untouched.",
        zh="答对了：{answer}。广播模式下每个实例拿到自己的一份副本，也各自保存自己的消费位点（LocalFileOffsetStore，在客户端的磁盘上：Broker 不为它保存）。processConsumeResult 在这里从不调用 sendMessageBack，也没有谁再试这份副本：没有 %RETRY% 主题、没有延迟级别、不进死信队列，c2 的副本也不受影响。",
    ),
)
