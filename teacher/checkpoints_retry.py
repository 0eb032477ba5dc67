# ruff: noqa: E501 — explanations are prose, one per line as the student reads them.
"""The explanations of the checkpoints on the pictures of the tour and the retry labs (00, 01a, 01b, 02a, 02b, 03,
04, 04b), in English and Simplified Chinese, each with the right answer at its picture's first settings.

Teacher-only (never installed, never in a student copy): ``python -m teacher.compile`` seals each text under its
answer into ``rmqlab/course/bank.json``; a lab names it by id (``explain=sealed_explanation("03.level")``).
``tests/test_checkpoint_sealed.py`` runs every lab's pictures and checks each ``answer`` is the engine's.
"""

from __future__ import annotations

from .declare import CheckpointWhy

RETRY_CHECKPOINTS: tuple[CheckpointWhy, ...] = (
    # 00
    CheckpointWhy(
        id="00.c2-gets-queues",
        answer="2000",
        why="Right: {answer}. {who} started at {lifecycle_at}: DefaultMQPushConsumerImpl.start() heartbeats to both brokers, then calls rebalanceImmediately(), so a new consumer does not wait for RebalanceService's 20 s period. The brokers see a new member of cg and notify c1 (NOTIFY_CONSUMER_IDS_CHANGED), so c1 rebalances at {time} too and lets go of the queues AllocateMessageQueueAveragely now gives {who}.",
        zh="对：{answer}。{who} 在 {lifecycle_at} 启动：DefaultMQPushConsumerImpl.start() 先向两个 Broker 发心跳，再调用 rebalanceImmediately()，所以新的 Consumer 不必等 RebalanceService 的 20 s 周期。Broker 发现 cg 来了新成员，就通知 c1（NOTIFY_CONSUMER_IDS_CHANGED），所以 c1 也在 {time} 重平衡，放下 AllocateMessageQueueAveragely 现在分给 {who} 的那些队列。",
    ),
    CheckpointWhy(
        id="00.c1-back",
        answer="45000",
        why="Right: {answer}. A clean shutdown() unregisters c2 from both brokers (unregisterClient), and each broker tells the members left in cg (NOTIFY_CONSUMER_IDS_CHANGED). c1's ClientRemotingProcessor wakes its RebalanceService at once, so c1 rebalances at {time}, not at its next 20 s period.",
        zh="对：{answer}。正常的 shutdown() 会让 c2 从两个 Broker 注销（unregisterClient），每个 Broker 再通知 cg 里剩下的成员（NOTIFY_CONSUMER_IDS_CHANGED）。c1 的 ClientRemotingProcessor 立即唤醒它的 RebalanceService，所以 c1 在 {time} 就重平衡，不等下一个 20 s 周期。",
    ),
    CheckpointWhy(
        id="00.round-robin",
        answer="queue:TopicTest@broker-a:2",
        why="Right: {answer}. With no failure to avoid, the producer picks a queue round-robin: TopicPublishInfo.selectOneMessageQueue() takes the topic's next queue (sendWhichQueue.incrementAndGet() modulo the 8 queues of its route, in the name server's order), so each send goes to the queue after the previous send's, and {msg} goes to {answer}. A new producer's counter starts at a random number, which is why the first send's queue is not queue 0.",
        zh="对：{answer}。没有要避开的失败时，Producer 轮询选择队列：TopicPublishInfo.selectOneMessageQueue() 取这个 Topic 的下一个队列（sendWhichQueue.incrementAndGet() 对路由里的 8 个队列取模，按 NameServer 给出的顺序），所以每次发送都发往上一次发送之后的那个队列，{msg} 就发往 {answer}。新 Producer 的计数器从一个随机数开始，所以第一次发送的队列不是队列 0。",
    ),
    CheckpointWhy(
        id="00.who-gets-second",
        answer="c1",
        why="Right: {answer}. pg picks queues round-robin, so {msg} went to the queue after M0001's: TopicTest:{send_attempt_queue_id} · {send_attempt_broker}. Since c2 joined at 2 s, AllocateMessageQueueAveragely gives each consumer of cg four of TopicTest's 8 queues (the queues in each lane), and in CLUSTERING only a queue's owner pulls it. {answer} owns TopicTest:{send_attempt_queue_id} · {send_attempt_broker}, so {answer} gets {msg}; the other consumer never sees it.",
        zh="对：{answer}。pg 轮询选择队列，所以 {msg} 发往 M0001 所在队列的下一个：TopicTest:{send_attempt_queue_id} · {send_attempt_broker}。c2 在 2 s 加入之后，AllocateMessageQueueAveragely 把 TopicTest 的 8 个队列分给 cg 的两个 Consumer，每个 4 个（各自通道里的那些队列）；在集群模式下只有队列的持有者拉取它。TopicTest:{send_attempt_queue_id} · {send_attempt_broker} 归 {answer}，所以 {answer} 收到 {msg}；另一个 Consumer 根本看不到它。",
    ),
    # 01a
    CheckpointWhy(
        id="01a.second-try",
        answer="queue:TopicTest@broker-b:0",
        why="Right: {answer}. Try 1 went to TopicTest:{send_result_queue_id} · {send_result_broker}, which is down but still in pg's cached route, and failed at once ({send_result_outcome}). The producer tries again at once, inside the same {timeout_ms} ms budget, on a broker other than {send_result_broker}, the one that just failed: selectOneMessageQueue(lastBrokerName) skips it. So try {attempt} goes to TopicTest:{queue_id} · {broker}, where {msg} is stored.",
        zh="对：{answer}。第 1 次尝试发往 TopicTest:{send_result_queue_id} · {send_result_broker}；它已宕机，却还在 pg 缓存的路由里，于是立刻失败（{send_result_outcome}）。Producer 立即再试，仍在同一个 {timeout_ms} ms 的预算之内，换一个 Broker：selectOneMessageQueue(lastBrokerName) 跳过刚刚失败的 {send_result_broker}。所以第 {attempt} 次尝试发往 TopicTest:{queue_id} · {broker}，{msg} 存在那里。",
    ),
    CheckpointWhy(
        id="01a.async-retry",
        answer="queue:TopicTest@broker-b:2",
        why="Right: {answer}. Try 1 went to TopicTest:{send_result_queue_id} · {send_result_broker}, which is down. An ASYNC send is not retried by sendDefaultImpl's loop: MQClientAPIImpl.onExceptionImpl asks selectOneMessageQueue({send_result_broker}) for a broker to avoid the failed one, keeps only that pick's broker name and re-sends the same request (its header, queue id {queue_id} included) to {broker}.",
        zh="对：{answer}。第 1 次尝试发往 TopicTest:{send_result_queue_id} · {send_result_broker}，它已宕机。ASYNC 发送不由 sendDefaultImpl 的循环重试：MQClientAPIImpl.onExceptionImpl 调用 selectOneMessageQueue({send_result_broker}) 选一个 Broker 以避开失败的那个，只保留所选队列的 Broker 名，然后把同一个请求（请求头不变，队列 id {queue_id} 也在其中）重新发往 {broker}。",
    ),
    CheckpointWhy(
        id="01a.error-retried",
        answer="queue:TopicTest@broker-b:0",
        why="Right: {answer}. broker-a answered try 1 with an error code (SYSTEM_ERROR), so the client throws MQBrokerException. sendDefaultImpl retries it only because that code is in DefaultMQProducer.retryResponseCodes; the retry, at once and inside the same {timeout_ms} ms budget, avoids the broker that just failed (selectOneMessageQueue(lastBrokerName)), so try {attempt} goes to TopicTest:{queue_id} · {broker}, which stores {msg}.",
        zh="对：{answer}。broker-a 用一个错误码（SYSTEM_ERROR）应答了第 1 次尝试，客户端因此抛出 MQBrokerException。sendDefaultImpl 重试它，只因为这个码在 DefaultMQProducer.retryResponseCodes 里；重试立即进行，仍在同一个 {timeout_ms} ms 的预算之内，并避开刚刚失败的 Broker（selectOneMessageQueue(lastBrokerName)），所以第 {attempt} 次尝试发往 TopicTest:{queue_id} · {broker}，{msg} 存在那里。",
    ),
    # 01b
    CheckpointWhy(
        id="01b.after-flush-timeout",
        answer="queue:TopicTest@broker-a:2",
        why="Right: {answer}. M0001's FLUSH_DISK_TIMEOUT came back as its SendResult's sendStatus: the message is stored, only not flushed in time. sendDefaultImpl returns such a status to the caller with no exception; it sends again only if retryAnotherBrokerWhenNotStoreOK is on, and it keeps a broker out of the queue choice only if sendLatencyFaultEnable is on. So {msg} takes the next queue of pg's round robin: TopicTest:{queue_id} · {who}.",
        zh="对：{answer}。M0001 的 FLUSH_DISK_TIMEOUT 是作为 SendResult 的 sendStatus 返回的：消息已经存下，只是没有及时刷盘。sendDefaultImpl 把这样的状态交还调用方，不抛异常；只有 retryAnotherBrokerWhenNotStoreOK 打开时才再发，只有 sendLatencyFaultEnable 打开时才把某个 Broker 移出队列选择。所以 {msg} 取 pg 轮询的下一个队列：TopicTest:{queue_id} · {who}。",
    ),
    CheckpointWhy(
        id="01b.five-second-send",
        answer="queue:TopicTest@broker-b:0",
        why="Right: {answer}. broker-a answered M0001 in 600 ms: a success, but with sendLatencyFaultEnable on, sendDefaultImpl reports every attempt's latency to MQFaultStrategy (updateFaultItem), and 600 ms reaches latencyMax's 550 ms row, so broker-a is kept out of the queue choice for that row's notAvailableDuration, however fast it is again from 2 s. At {time} selectOneMessageQueue walks the round robin on to a queue of a broker still available: TopicTest:{queue_id} · {who}.",
        zh="对：{answer}。broker-a 用 600 ms 应答了 M0001：这是一次成功，但 sendLatencyFaultEnable 打开时，sendDefaultImpl 会把每次尝试的耗时报告给 MQFaultStrategy（updateFaultItem），600 ms 达到 latencyMax 中 550 ms 那一档，所以 broker-a 在这一档的 notAvailableDuration 内被移出队列选择，哪怕它从 2 s 起又快了。到 {time}，selectOneMessageQueue 沿轮询走到一个仍可用的 Broker 的队列：TopicTest:{queue_id} · {who}。",
    ),
    CheckpointWhy(
        id="01b.budget",
        answer="4001",
        why="Right: {answer}. sendDefaultImpl gives the attempt what is left of the {send_attempt_timeout_ms} ms sendMsgTimeout as its remoting timeout; broker-a's answer comes later than that, so invokeSync throws RemotingTimeoutException at {time}. Before another attempt sendDefaultImpl checks the budget again: it is spent, so it throws RemotingTooMuchRequestException (\"sendDefaultImpl call timeout\") to the caller.",
        zh="对：{answer}。sendDefaultImpl 把 {send_attempt_timeout_ms} ms 的 sendMsgTimeout 剩下的部分作为这次尝试的 remoting 超时；broker-a 的应答比这更晚，所以 invokeSync 在 {time} 抛出 RemotingTimeoutException。再次尝试之前 sendDefaultImpl 又检查预算：预算已经用完，于是向调用方抛出 RemotingTooMuchRequestException（\"sendDefaultImpl call timeout\"）。",
    ),
    CheckpointWhy(
        id="01b.lost",
        answer="broker-b",
        why="Right: {answer}. broker-a had stored M0001, but the connection dropped before its answer: to the producer that is a RemotingException with no response, the same as a broker that never got the message. sendDefaultImpl retries it at once on another broker (selectOneMessageQueue(lastBrokerName)), so try {attempt} stores {msg} again on {broker}: nothing tells the producer the first copy exists.",
        zh="对：{answer}。broker-a 已经存下 M0001，但连接在它应答之前断开：对 Producer 来说，这是一次没有响应的 RemotingException，和 Broker 根本没收到消息一样。sendDefaultImpl 立即在另一个 Broker 上重试（selectOneMessageQueue(lastBrokerName)），所以第 {attempt} 次尝试在 {broker} 上又存了一份 {msg}：没有任何东西告诉 Producer 第一份已经存在。",
    ),
    # 02a
    CheckpointWhy(
        id="02a.listener-throws",
        answer="delay:broker-a:3",
        why="Right: {answer}. The listener's answer ({consumed_return_type}) counts as RECONSUME_LATER, so processConsumeResult did not acknowledge {msg}: it sent it back to the broker (sendMessageBack). The broker (asyncConsumerSendMsgBack) parks the copy in SCHEDULE_TOPIC_XXXX at delay level 3 + reconsumeTimes {reconsume_times} = {scheduled_level}, due at {scheduled_due}, before it returns on %RETRY%cg.",
        zh="对：{answer}。监听器的回答（{consumed_return_type}）算作 RECONSUME_LATER，所以 processConsumeResult 没有确认 {msg}：而是把它回传给 Broker（sendMessageBack）。Broker（asyncConsumerSendMsgBack）把副本放进 SCHEDULE_TOPIC_XXXX 的延迟级别 3 + reconsumeTimes {reconsume_times} = {scheduled_level}，{scheduled_due} 到期，然后回到 %RETRY%cg。",
    ),
    CheckpointWhy(
        id="02a.unacknowledged",
        answer="delay:broker-a:3",
        why="Right: {answer}. The listener returned CONSUME_SUCCESS for the whole batch but set ackIndex: processConsumeResult counts only the acknowledged messages as consumed and sends back the rest as if they had failed, {msg} first. The broker (asyncConsumerSendMsgBack) parks the copy in SCHEDULE_TOPIC_XXXX at delay level 3 + reconsumeTimes {reconsume_times} = {scheduled_level}, due at {scheduled_due}, before it returns on %RETRY%cg.",
        zh="对：{answer}。监听器对整批消息返回了 CONSUME_SUCCESS，但设置了 ackIndex：processConsumeResult 只把确认了的消息算作消费成功，其余的都像失败一样回传，{msg} 是第一条。Broker（asyncConsumerSendMsgBack）把副本放进 SCHEDULE_TOPIC_XXXX 的延迟级别 3 + reconsumeTimes {reconsume_times} = {scheduled_level}，{scheduled_due} 到期，然后回到 %RETRY%cg。",
    ),
    CheckpointWhy(
        id="02a.count",
        answer="delay:broker-a:4",
        why="Right: {answer}. The broker wrote the retry's count into the copy it stored on %RETRY%cg (asyncConsumerSendMsgBack counts, not the client), and sendMessageBack hands it back with the failure. So the broker parks this failure at delay level 3 + {reconsume_times} = {scheduled_level}, due at {scheduled_due}: one level later than the first failure's.",
        zh="对：{answer}。重试的次数是 Broker 存进 %RETRY%cg 的副本时写进去的（计数的是 asyncConsumerSendMsgBack，不是客户端），sendMessageBack 随失败把它交回去。所以 Broker 把这次失败放在延迟级别 3 + {reconsume_times} = {scheduled_level}，{scheduled_due} 到期：比第一次失败晚一级。",
    ),
    CheckpointWhy(
        id="02a.back-on-retry",
        answer="pq:c1:%RETRY%cg@broker-a:0",
        why="Right: {answer}. The copy the broker parked at the send-back waited in SCHEDULE_TOPIC_XXXX with its real topic, %RETRY%cg, kept in a property. When its {waited} were over, ScheduleMessageService put it back on {topic}, not on TopicTest, and c1, which subscribed %RETRY%cg by itself when it started (CLUSTERING), pulled it from there.",
        zh="对：{answer}。Broker 在回传时放下的副本在 SCHEDULE_TOPIC_XXXX 里等待，它真正的 Topic %RETRY%cg 保存在一个属性里。{waited} 到了之后，ScheduleMessageService 把它放回 {topic}，而不是 TopicTest；c1 在启动时（CLUSTERING）已自动订阅 %RETRY%cg，于是从那里把它拉走。",
    ),
    # 02b
    CheckpointWhy(
        id="02b.local-retry",
        answer="7000",
        why="Right: {answer}. The partition cuts c1 off broker-a, so at {send_back_at} its sendMessageBack failed ({send_back_error}), and so did the fallback: the copy sent to %RETRY%cg by c1's inner producer. processConsumeResult then kept {msg}, raised its reconsumeTimes to {reconsume_times} and resubmitted it itself with submitConsumeRequestLater, {local_retry_retry_in} later. No delay level: the broker never got the message, so its delay table plays no part.",
        zh="对：{answer}。网络分区把 c1 和 broker-a 隔开，所以在 {send_back_at} 它的 sendMessageBack 失败了（{send_back_error}），兜底的那一步也失败了：c1 的内部 Producer 把副本发往 %RETRY%cg。processConsumeResult 于是留下 {msg}，把它的 reconsumeTimes 加到 {reconsume_times}，并用 submitConsumeRequestLater 自己重新提交，{local_retry_retry_in} 之后。没有延迟级别：Broker 根本没收到这条消息，它的延迟表不起作用。",
    ),
    CheckpointWhy(
        id="02b.expired",
        answer="delay:broker-a:3",
        why="Right: {answer}. The listener is still running, but a pass of ConsumeMessageConcurrentlyService's cleanExpireMsg (one every consumeTimeout, counted from the consumer's start) finds M0001, the lowest offset of its ProcessQueue, started more than consumeTimeout ago: ProcessQueue.cleanExpiredMsg sends it back with delay level 3 and removes it from the ProcessQueue. The listener thread is not interrupted: its late result still counts.",
        zh="对：{answer}。监听器还在运行，但 ConsumeMessageConcurrentlyService 的 cleanExpireMsg（从 Consumer 启动起每隔 consumeTimeout 执行一次）发现 M0001——它的 ProcessQueue 中位点最小的消息——开始消费已超过 consumeTimeout：ProcessQueue.cleanExpiredMsg 以延迟级别 3 把它回传，并把它从 ProcessQueue 中移除。监听器线程不会被打断：它迟到的结果照样算数。",
    ),
    CheckpointWhy(
        id="02b.hand-over",
        answer="pq:c2:%RETRY%cg@broker-a:0",
        why="Right: {answer}. c1's clean shutdown unregistered it (unregisterClient), so c2, the only instance of cg left, got every queue of the group at its rebalance (AllocateMessageQueueAveragely), %RETRY%cg's too. The copy c1 sent back waits at its delay level in the broker, not in c1: when it is due it lands on %RETRY%cg, and c2 pulls it at {time}.",
        zh="对：{answer}。c1 正常关闭时注销了自己（unregisterClient），所以 cg 里只剩下的实例 c2 在重平衡时（AllocateMessageQueueAveragely）拿到了这个消费组的全部队列，包括 %RETRY%cg 的。c1 回传的副本在 Broker 里按它的延迟级别等待，不在 c1 里：到期后它落到 %RETRY%cg，c2 在 {time} 把它拉走。",
    ),
    CheckpointWhy(
        id="02b.refused",
        answer="delay:broker-a:3",
        why="Right: {answer}. broker-a refused the send-back ({send_back_error}, code {send_back_response_code}). DefaultMQPushConsumerImpl.sendMessageBack catches it and produces the retry itself: a new message to %RETRY%cg, sent by the consumer's internal producer (CLIENT_INNER_PRODUCER), with RECONSUME_TIME = {send_back_reconsume_times} + 1 and delay level 3 + {send_back_reconsume_times} = {level}. The broker stores it like any delayed message: parked at that level, due at {due}.",
        zh="对：{answer}。broker-a 拒绝了回传（{send_back_error}，code {send_back_response_code}）。DefaultMQPushConsumerImpl.sendMessageBack 捕获它，自己生产这条重试消息：一条发往 %RETRY%cg 的新消息，由 Consumer 内部的 Producer（CLIENT_INNER_PRODUCER）发送，RECONSUME_TIME = {send_back_reconsume_times} + 1，延迟级别 3 + {send_back_reconsume_times} = {level}。Broker 像存储任何延迟消息一样存储它：放在这个级别，{due} 到期。",
    ),
    # 03
    CheckpointWhy(
        id="03.level",
        answer="delay:broker-a:3",
        why="Right: {answer}. The consumer's sendMessageBack asks for delayLevel 0, which lets the broker choose: asyncConsumerSendMsgBack takes 3 + reconsumeTimes = 3 + {delivered_reconsume_times} = level {level}. The copy waits in SCHEDULE_TOPIC_XXXX (one queue per level: queue level − 1) for that level's {due_in}, with its real topic, {real_topic}, kept in a property.",
        zh="对：{answer}。Consumer 的 sendMessageBack 请求 delayLevel 0，也就是让 Broker 来选：asyncConsumerSendMsgBack 取 3 + reconsumeTimes = 3 + {delivered_reconsume_times} = 级别 {level}。副本在 SCHEDULE_TOPIC_XXXX 里（每个级别一个队列：队列号 = 级别 − 1）等这个级别的 {due_in}，它真正的 Topic {real_topic} 保存在一个属性里。",
    ),
    CheckpointWhy(
        id="03.second-due",
        answer="40000",
        why="Right: {answer}. The second failure came at {scheduled_at} with reconsumeTimes {send_back_reconsume_times}, so the broker parked the copy at level 3 + {send_back_reconsume_times} = {level}, whose delay in messageDelayLevel (1s 5s 10s 30s 1m …) is {waited}: ScheduleMessageService's timer for that level moves it to {topic} at {scheduled_at} + {waited} = {time}.",
        zh="对：{answer}。第二次失败发生在 {scheduled_at}，reconsumeTimes 为 {send_back_reconsume_times}，所以 Broker 把副本放在级别 3 + {send_back_reconsume_times} = {level}，它在 messageDelayLevel（1s 5s 10s 30s 1m …）里的延迟是 {waited}：ScheduleMessageService 这个级别的定时器在 {scheduled_at} + {waited} = {time} 把它移到 {topic}。",
    ),
    CheckpointWhy(
        id="03.dlq-time",
        answer="17140000",
        why="Right: {answer}. The last delivery carried reconsumeTimes {delivered_reconsume_times}, which had reached maxReconsumeTimes (−1 means 16 for a concurrent consumer): when it failed too, the broker wrote the copy to {topic} instead of parking it. Until then every retry waited its level, 3 + reconsumeTimes (10 s, 30 s, 1 m … 2 h): the sum of those waits is {time}.",
        zh="对：{answer}。最后一次投递的 reconsumeTimes 是 {delivered_reconsume_times}，已经达到 maxReconsumeTimes（−1 对并发消费者表示 16）：这次也消费失败，Broker 就把副本写进 {topic}，不再放进延迟队列。在此之前，每次重试都等它的级别 3 + reconsumeTimes（10 s、30 s、1 m … 2 h）：这些等待加起来就是 {time}。",
    ),
    CheckpointWhy(
        id="03.crash",
        answer="pq:c1:TopicTest@broker-a:0",
        why="Right: {answer}. Level 2 moved M0001 to TopicTest at {delay_delivered_at}, but ScheduleMessageService writes its per-level offsets to delayOffset.json only 10 s after the store starts, then every 10 s (flushDelayOffsetInterval), and the crash came before the first write. At the restart load() reads level 2's old offset back, so at {time} the level's timer moves M0001 to TopicTest once more, and c1 gets it again.",
        zh="对：{answer}。级别 2 在 {delay_delivered_at} 把 M0001 移入 TopicTest，但 ScheduleMessageService 只在存储启动 10 s 后、之后每 10 s 把各级别的位点写入 delayOffset.json（flushDelayOffsetInterval），而崩溃发生在第一次写入之前。重启时 load() 读回级别 2 的旧位点，所以在 {time} 这个级别的定时器再次把 M0001 移入 TopicTest，c1 又收到它一次。",
    ),
    CheckpointWhy(
        id="03.past-16",
        answer="delay:broker-a:18",
        why="Right: {answer}. The 17th failure is sent back with reconsumeTimes {delivered_reconsume_times}, still below c1's maxReconsumeTimes, so the broker schedules one more retry at 3 + {delivered_reconsume_times}. There is no level past 18: asyncConsumerSendMsgBack caps the level at the table's last one (maxDelayLevel, 18), so every retry past the 16th waits the same 2 h.",
        zh="对：{answer}。第 17 次失败回传时 reconsumeTimes 为 {delivered_reconsume_times}，仍小于 c1 的 maxReconsumeTimes，所以 Broker 在 3 + {delivered_reconsume_times} 再安排一次重试。没有比 18 更高的级别：asyncConsumerSendMsgBack 把级别限制在表中最后一级（maxDelayLevel，18），所以第 16 次之后的每次重试都等同样的 2 h。",
    ),
    # 04
    CheckpointWhy(
        id="04.refund-17",
        answer="queue:%DLQ%cg@broker-a:0",
        why="Right: {answer}. {msg} failed again with reconsumeTimes {reconsume_times}, and c1 sends maxReconsumeTimes {max_reconsume_times} with its send-back. asyncConsumerSendMsgBack checks reconsumeTimes >= maxReconsumeTimes before it picks a delay level, so the broker writes the copy straight to the group's dead-letter queue, with no delay and no SCHEDULE_TOPIC_XXXX. Nothing subscribes to a DLQ: refund 17 now waits for a person.",
        zh="对：{answer}。{msg} 再次失败，reconsumeTimes 为 {reconsume_times}，c1 回传时带上 maxReconsumeTimes {max_reconsume_times}。asyncConsumerSendMsgBack 在选延迟级别之前先检查 reconsumeTimes >= maxReconsumeTimes，所以 Broker 把副本直接写进消费组的死信队列，没有延迟，也不经过 SCHEDULE_TOPIC_XXXX。没有谁订阅死信队列：退款 17 现在等人工介入。",
    ),
    CheckpointWhy(
        id="04.first-dead",
        answer="queue:%DLQ%cg@broker-a:0",
        why="Right: {answer}. c1 sends maxReconsumeTimes {max_reconsume_times} with its send-back, and the failed delivery carried reconsumeTimes {reconsume_times}: {reconsume_times} >= {max_reconsume_times}, so asyncConsumerSendMsgBack writes the copy straight to the dead-letter topic, with no delay level and no SCHEDULE_TOPIC_XXXX.",
        zh="对：{answer}。c1 在回传时带上 maxReconsumeTimes {max_reconsume_times}，而失败的这次投递带着 reconsumeTimes {reconsume_times}：{reconsume_times} >= {max_reconsume_times}，所以 asyncConsumerSendMsgBack 直接把副本写入死信 Topic，不经过延迟级别，也不进 SCHEDULE_TOPIC_XXXX。",
    ),
    CheckpointWhy(
        id="04.off",
        answer="dropped:cg",
        why="Right: {answer}. asyncConsumerSendMsgBack looks at the group's retryQueueNums before anything else: with none it answers SUCCESS and stores nothing, not in %RETRY%cg, not in the DLQ. c1 reads that SUCCESS (delay level {delay_level} asked, reconsumeTimes {reconsume_times}) as a send-back that worked and moves its offset past {msg}.",
        zh="对：{answer}。asyncConsumerSendMsgBack 最先看的是消费组的 retryQueueNums：一个重试队列都没有时，它应答 SUCCESS，却什么也不存，既不进 %RETRY%cg，也不进死信队列。c1 把这个 SUCCESS（请求的延迟级别 {delay_level}，reconsumeTimes {reconsume_times}）当作一次成功的回传，把消费位点推进到 {msg} 之后。",
    ),
    CheckpointWhy(
        id="04.broker-path-dlq",
        answer="41000",
        why="Right: {answer}. On the broker path asyncConsumerSendMsgBack compares the stored reconsumeTimes with c1's maxReconsumeTimes (2): the first failure (0) waits level 3 (10 s), the second (1) level 4 (30 s), and the third delivery's failure (2 ≥ 2) is written to {topic} at once, with no delay: 1 s + 10 s + 30 s = {time}.",
        zh="对：{answer}。在 Broker 路径上，asyncConsumerSendMsgBack 拿存储的 reconsumeTimes 与 c1 的 maxReconsumeTimes（2）比较：第一次失败（0）等级别 3（10 s），第二次（1）等级别 4（30 s），第三次投递失败时（2 ≥ 2）立即写进 {topic}，不再延迟：1 s + 10 s + 30 s = {time}。",
    ),
    CheckpointWhy(
        id="04.resend-who",
        answer="no",
        why="Right: {answer}. ops1 only reads %DLQ%cg: its tool produces a brand-new message to the topic the dead letter's RETRY_TOPIC property names, TopicTest, with a new id (M0002) and reconsumeTimes 0. TopicTest belongs to group cg, so c1, the business consumer, pulls it like any new message, and with the bug fixed it consumes it at once, at {time}. ops1 never sees the copy, and nothing in M0002 says it was once a dead letter: deduplicate on a business key (the message's keys).",
        zh="对：{answer}。ops1 只读 %DLQ%cg：它的工具向死信的 RETRY_TOPIC 属性所指的 Topic（TopicTest）生产一条全新的消息，ID 是新的（M0002），reconsumeTimes 为 0。TopicTest 属于消费组 cg，所以业务 Consumer c1 像拉取任何新消息一样拉取它；bug 已修好，它在 {time} 消费成功。ops1 从未见过这份副本，M0002 里也没有任何东西说明它曾是死信：要按业务键（消息的 keys）去重。",
    ),
    CheckpointWhy(
        id="04.dlq-kept",
        answer="273600000",
        why="Right: {answer}. Refund 17's dead letter is an ordinary CommitLog entry, stored at 1 s. CleanCommitLogService deletes a file only in the deleteWhen hour (04:00 to 04:59, every 10 s), and only once its last write is fileReservedTime (72 h) old. At 04:00 on days 0, 1 and 2 the dead letter was younger than that; it turned 72 h old just after midnight on day 3, so the next window, {time}, deletes it, refund 18's dead letter and both refunds' first copies in TopicTest: {count} entries. Order 19 is just as old but stays: the newest entry stands for the file being written, which MappedFileQueue.deleteExpiredFileByTime never deletes.",
        zh="对：{answer}。退款 17 的死信是一条普通的 CommitLog 记录，在 1 s 存储。CleanCommitLogService 只在 deleteWhen 的钟点（04:00 到 04:59，每 10 s 一次）删除文件，而且只删最后一次写入已满 fileReservedTime（72 h）的文件。第 0、1、2 天的 04:00，这条死信都还不满 72 h；它在第 3 天零点刚过时满 72 h，所以下一个窗口 {time} 把它删除，连同退款 18 的死信和两笔退款在 TopicTest 里的第一份副本：共 {count} 条。订单 19 一样老，却留了下来：最新的一条代表正在写入的文件，MappedFileQueue.deleteExpiredFileByTime 从不删除它。",
    ),
    # 04b
    CheckpointWhy(
        id="04b.retry-lands",
        answer="no",
        why="Right: {answer}. Each send-back drew a queue of %RETRY%cg at random (random % retryQueueNums, now 4) and stored it in the copy (REAL_QID); when the 10 s were over, ScheduleMessageService wrote M0001 there, unchecked. But %RETRY%cg kept the one queue it was created with at c1's first heartbeat: its route lists queue 0 only, so c1's rebalance gave it a ProcessQueue for queue 0 only. Nothing pulls the queue M0001 is in: M0001 is stranded, while M0003, which drew queue 0, is consumed at {time}.",
        zh="答对了：{answer}。每次回传都随机抽取 %RETRY%cg 的一个队列（random % retryQueueNums，现在是 4），并把它存进副本（REAL_QID）；10 s 到了，ScheduleMessageService 不加检查地把 M0001 写到那里。但 %RETRY%cg 保持着它在 c1 第一次心跳时创建的那一个队列：它的路由只列出队列 0，所以 c1 的重平衡只给了它队列 0 的 ProcessQueue。没有谁拉取 M0001 所在的队列：M0001 滞留了；而抽到队列 0 的 M0003 在 {time} 被消费。",
    ),
    CheckpointWhy(
        id="04b.freed",
        answer="100000",
        why="Right: {answer}. The name server had the new route at once; c1 read it at its next route poll, and took the new queues at its next rebalance (RebalanceService, on its own period from c1's start): only then did it pull M0001's queue.",
        zh="答对了：{answer}。NameServer 立刻就有了新路由；c1 在下一次轮询路由时读到它，又在下一次重平衡时（RebalanceService，从 c1 启动起按自己的周期）接手新队列：直到那时它才拉取 M0001 所在的队列。",
    ),
)
