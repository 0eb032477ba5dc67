# ruff: noqa: E501 — explanations are prose, one per line as the student reads them.
"""The exercises' texts in Simplified Chinese (简体中文): each explanation, general hint, near-miss hint and revealed
box of :mod:`teacher.bank_retry`, :mod:`teacher.bank_queues` and :mod:`teacher.after`, translated with the terms of
RocketMQ's Chinese community (重试队列, 死信队列, 延迟级别, 消费位点, 重平衡 …; RocketMQ's identifiers kept as they are).

Teacher-only, like the English: ``python -m teacher.compile`` seals each text under the same predictions as its
English (with a stream of its own) into ``rmqlab/course/bank.json``. ``hints`` follow the order of the English
exercise's ``hints``; the compile step refuses a translation whose texts do not match the English ones in number.
"""

from __future__ import annotations

from .declare import Translated

ZH: dict[str, Translated] = {
    # 00 · the tour
    "00.1": Translated(
        "AVG 把排好序的队列列表分成大小相等的块：8 个队列 / 2 个消费者 = 每个 4 个。",
        hint="AllocateMessageQueueAveragely 给每个消费者分配排好序的队列列表中连续的一块。",
        hints=("数一数两个 Broker 上 TopicTest 的队列，再把它们平均分给两个消费者。",),
    ),
    "00.2": Translated(
        "c2 的 shutdown 会在每个 Broker 上注销它；ConsumerManager.unregisterConsumer 通知消费组，c1 立即重平衡，而不是等它 20 s 的定时器：全部 8 个队列。",
        hint="看一看正常关闭（shutdown）在 Broker 上做了什么，以及 Broker 随后告诉了消费组的其他成员什么。",
        hints=("这是 c1 等到下一次 20 s 重平衡时才会拥有的队列。有没有什么更早地告诉 c1：c2 已经离开？",),
        after="c1 没有等它的定时器。shutdown() 在每个 Broker 上注销 c2，Broker 的 ConsumerManager 告诉组内其他消费者：消费者 id 列表变了；每个消费者立即重平衡，它的 20 s 等待从那一刻重新开始计算。并没有固定的 20 s 网格：每一次消费组变化都会推移之后的重平衡。",
    ),
    # 01a · producer send: which failures are retried, and where; 01b · statuses, the shared timeout, duplicates, slow brokers
    "01a.1": Translated(
        "ONEWAY（单向发送）以 timesTotal = 1 运行 sendDefaultImpl：没有重试，异常就此结束发送。",
        hint="比较 sendDefaultImpl 中 SYNC 与其他发送方式的 timesTotal。",
        hints=("ONEWAY 没有 retryTimesWhenSend… 这样的设置：算一算这种方式的 timesTotal 是多少。",),
                 after="要点：SYNC 共做 1 + retryTimesWhenSendFailed 次尝试，中间不退避；ONEWAY 只尝试一次。",
    ),
    "01a.2": Translated(
        "MQClientAPIImpl.onExceptionImpl 调用 selectOneMessageQueue(broker-a) 选一个 Broker 以避开失败的那个，只保留所选队列的 Broker 名，然后把同一个 RemotingCommand（新的 opaque，相同的请求头）重新发往 broker-b 的地址：第一次尝试选中的队列 id（3）随重试一起发出。",
        hint="读一读 MQClientAPIImpl.onExceptionImpl 重新发送了什么，以及它从 selectOneMessageQueue 的返回值里取了什么。",
        hints=(
            "SYNC 的重试经过 sendDefaultImpl 的循环，会选一个新队列。ASYNC 的重试是在 MQClientAPIImpl.onExceptionImpl 中发起的：它从 selectOneMessageQueue 的返回值里取了什么，又重新发送了什么？",
            "那是图上那次运行。这个 Producer 的轮询从后一个队列开始：m1 的第一次尝试用了哪个队列？ASYNC 的重试保留了它的什么？",
        ),
                 after="要点：ASYNC 只重试没有收到应答的失败，重新发送的是同一个请求。",
    ),
    "01a.3": Translated(
        "在 4.9.x 中 SYSTEM_BUSY（code 2）不在 retryResponseCodes 中：第一次尝试之后 sendDefaultImpl 就把 MQBrokerException 重新抛出，即使 broker-b 是健康的。",
        hint="看一看 DefaultMQProducer.retryResponseCodes 列出了哪些 Broker 应答。",
        hints=("只有错误应答的 code 在 DefaultMQProducer.retryResponseCodes 中时才会重试。SYSTEM_BUSY 在上面的列表里吗？",),
        after="常见说法与源码对照：“Broker 繁忙时生产者会重试。”——在 4.9.7 中 DefaultMQProducer.retryResponseCodes 不包含 SYSTEM_BUSY，所以 sendDefaultImpl 在一次尝试后就把 MQBrokerException 原样抛出（5.3.0 才把 SYSTEM_BUSY 加入这个集合）。请在自己的代码里稍等片刻再重试，或用 addRetryResponseCode 加上这个 code。\n\n要点：只有连接失败、预算之内的超时以及 retryResponseCodes 中的应答码会被重试：SYSTEM_BUSY 不会（4.9.x）。",
    ),
    "01b.1": Translated(
        "每个 Broker 都在刷盘超时之前存储了消息；retryAnotherBrokerWhenNotStoreOK 让循环走完全部 1 + retryTimesWhenSendFailed 次尝试（a → b → a），并返回最后一个 FLUSH_DISK_TIMEOUT 结果：三份副本。",
        hint="FLUSH_DISK_TIMEOUT 是在 Broker 存储消息之后才应答的；数一数循环做了几次尝试。",
        hints=(
            "retry_another_broker_when_not_store_ok=True 时，非 OK 的状态不会结束循环。",
            "数一数循环做了几次尝试（1 + retryTimesWhenSendFailed），并记住每一次都存储了消息：超时的只是刷盘。",
        ),
        after="常见说法与源码对照：“FLUSH_DISK_TIMEOUT 是一个 Broker 会重试的错误。”——它是一条已存储消息的状态。Broker 什么也不重试；重试是客户端的（DefaultMQProducer 的 retryAnotherBrokerWhenNotStoreOK），每次重试都多存一份副本，最后一次尝试之后调用方拿到的仍是最后一个非 OK 的 SendResult，而不是异常。\n\n要点：FLUSH_DISK_TIMEOUT 等是已存储消息的状态；retryAnotherBrokerWhenNotStoreOK（生产者的一个设置）会重试它们，每次都多存一份副本。",
    ),
    "01b.2": Translated(
        "第一次尝试用掉了全部 3000 ms；预算检查（timeout < costTime）结束了循环。",
        hint="sendMsgTimeout 是整个发送共用的一份预算，在每次尝试之前检查。",
        after="常见说法与源码对照：“同步发送会再重试 2 次，每次 3 s。”——预算是共享的（sendDefaultImpl 在每次尝试之前检查 timeout < costTime）；第一次尝试超时后什么也不剩，调用方得到 'sendDefaultImpl call timeout'。重试只对快速失败有帮助。\n\n要点：所有尝试共用一份 3000 ms 的预算：超时不会被重试。",
    ),
    "01b.3": Translated(
        "生产者分不清“没有存储”和“应答丢失”，所以它在 broker-b 上重试：至少一次（at-least-once）。",
        hint="Broker 在连接断开之前已经存储了消息；没有收到应答的生产者会怎么做？",
        after="两份副本带着同一个 id M0001（UNIQ_KEY）：消费者据此（或根据业务键）去重，做到幂等。\n\n要点：应答丢失之后的重试会存下一条重复消息。",
    ),
    "01b.4": Translated(
        "1 200 ms 的应答在 2 200 ms 时返回；1 200 ms 落在 latencyMax 的 1000 那一行，所以 notAvailableDuration 是从那时起的 60 000 ms：62 200 ms。这次运行中 5–35 s 的每次发送都绕过了 broker-a 的队列。",
        hint="在 latencyMax 中查 1 200 ms（不超过它的最大条目），把那一行的 notAvailableDuration 加到这次尝试结束的时刻上。",
        hints=(
            "这是 broker-a 被规避的时长，而不是规避到何时：它从哪一刻开始计算？",
            "updateFaultItem 在尝试结束时运行，也就是 1 200 ms 的应答之后，而不是发送开始时。",
            "1 200 ms 大于 latencyMax 中的 1000：不超过它的最大条目是表中的哪一行？",
            "这是图中 600 ms 应答的结果：用新的延迟去查表。",
            "成功的发送也会被评估：决定时长的是这次尝试的延迟，而不是它的结果。",
        ),
                 after="要点：最后一次尝试的延迟决定 sendLatencyFaultEnable 规避这个 Broker 多久：成功但耗时 550 ms 及以上：30 s；失败：600 s。",
    ),
    # 02a · the consumer's send-back; 02b · when the send-back fails or the listener is slow
    "02a.1": Translated(
        "processConsumeResult 把下标 ackIndex+1 .. size-1 视为失败。",
        hint="processConsumeResult 把 msgs[0..ackIndex] 算作消费成功，其余算作失败。",
        hints=("ack_index 是最后一条确认消息的下标，从 0 开始计数。",),
    ),
    "02a.2": Translated(
        "第一次失败（存储的 rt 为 0）等待级别 3 = 10 s，第二次（rt 1）等待级别 4 = 30 s，第三次（rt 2）等待级别 5 = 1 m："
        "1 + 10 + 30 + 60 = 101 s。",
        hint="每次失败都以级别 3 + 它存储的 reconsumeTimes 存储；从 1 s 的发送开始把等待时间加起来。",
        hints=(
            "级别随每次重试增长：Broker 选的是 3 + *存储的* reconsumeTimes。",
            "第一次重试不用级别 1：Broker 在存储的 reconsumeTimes 上加 3。",
            "那是第三次投递。三次失败意味着第四次投递之前有三段等待。",
        ),
    ),
    "02a.3": Translated(
        "reconsumeTimes 是存储记录中的一个字段，由 asyncConsumerSendMsgBack 设为 rt + 1；副本的属性来自原消息，而原消息从来没有 RECONSUME_TIME 属性。",
        hint="asyncConsumerSendMsgBack 复制原消息的属性，并设置新副本的 reconsumeTimes 字段。",
        hints=("次数是对的。Broker 把它保存在哪里：消息的属性里，还是 CommitLog 记录自己的字段里？",),
                 after="要点：reconsumeTimes 是已存储消息的一个字段，由 Broker 在每次回传时计数。",
    ),
    "02b.1": Translated(
        "本地的 +1 只在客户端内存里；Broker 根据存储的 rt（0）判断 → rt 1，级别 3。",
        hint="本地重试只计在客户端内存里；之后的 CONSUMER_SEND_MSG_BACK 只带着 CommitLog 偏移量。",
                 after="要点：回传失败时，客户端自己把消息发到 %RETRY% 主题；如果这也失败，它在 5 s 后本地重试，消费位点保持不动：内存里的次数并不是 Broker 判断的依据。",
    ),
    "02b.2": Translated(
        "cleanExpireMsg 在消费者启动后第 15、30、45 … 分钟运行。第 15 分钟时这条消息已经消费了 14 min 59 s（不超过 15 min）；第 30 分钟时它以延迟级别 3（10 s）被回传：1800 + 10 = 1810 s，而第一次调用仍在运行。",
        hint="cleanExpireMsg 从消费者启动起每 consumeTimeout 分钟运行一次，并使用延迟级别 3。",
        hints=(
            "第一次检查时（消费者启动 15 分钟后），这条消息已经消费了 14 min 59 s：cleanExpiredMsg 要求的是 *超过* consumeTimeout。",
            "cleanExpiredMsg 以延迟级别 3 把它回传：重试要先等待，才会被投递。",
            "慢的监听器不会被打断，重试也不会等它返回。",
        ),
                 after="要点：运行超过 consumeTimeout 的监听器，会在它仍在运行时被 cleanExpiredMsg 回传：消费两次。",
    ),
    "02b.3": Translated(
        "Broker 按 *那一个* 请求头中的 maxReconsumeTimes 判断每次回传（SendMessageProcessor.asyncConsumerSendMsgBack：存储的 reconsumeTimes >= maxReconsumeTimes → %DLQ%）。c1 以 max 5 回传了 rt 0 和 rt 1（两次重试）；c2 接管队列后以 max 1 回传了 rt 2：2 >= 1，所以第三次投递就是最后一次。",
        hint="跟着 reconsumeTimes 走过每一次回传，并看清每次带的是哪个实例的 maxReconsumeTimes。",
        hints=(
            "这是按 c1 的上限计算了消息的一生。20 s 之后，Broker 读的是谁的 ConsumerSendMsgBackRequestHeader？",
            "reconsumeTimes 随消息存储，而不是按实例计数：c2 第一次拿到这条消息时，它已经重试过几次了？",
        ),
                 after="要点：maxReconsumeTimes 随每次回传一起发出：取值不同的实例会在不同的次数进入死信队列。",
    ),
    # 03 · delay levels and the schedule
    "03.1": Translated(
        "级别 3..7（10 s、30 s、1 m、2 m、3 m）的延迟之和为 400 s；第 6 次失败（rt 5 ≥ 5）进入 %DLQ%cg。",
        hint="把 5 次重试用到的各延迟级别的延迟加起来，从级别 3 开始。",
        hints=(
            "第一次重试不用级别 1：Broker 以级别 3 + reconsumeTimes 存储它。",
            "差了一个延迟级别：5 次重试在 5 个级别上等待，第一个是级别 3。",
            "这是默认值的时间表（−1 → 16 次重试）。这个 Consumer 只允许 5 次。",
        ),
        after="常见说法与源码对照：“重试总共约 4 h 46 min。”——那是默认的 16 次重试（17 140 s）。maxReconsumeTimes 为 5 时，同一条规则给出级别 3 到 7 上的 5 次重试：恰好 400 s，共投递 6 次。\n\n要点：N 次重试 = N + 1 次投递，最后一次在依次经过级别 3 到 N + 2 的延迟之后；默认的 16 次重试 = 17 次投递。",
    ),
    "03.2": Translated(
        "消费者的 18 随每个回传请求头发出（从不被截到 16）：投递 19 次。第 1–16 次重试等待级别 3..18（17 140 s）；第 17–18 次重试本需要级别 19–20，但 CommitLog 把级别截到 maxDelayLevel 18（2 h）：17 140 + 2 × 7 200 = 31 540 s。",
        hint="消费者的 maxReconsumeTimes 随每次回传发出；CommitLog 截断的只是延迟级别。",
        hints=(
            "这是默认的重试时间表。maxReconsumeTimes 不会被截到 16：消费者的值随每次回传发出，Broker 就用它。",
            "差了一次 2 h 的等待：数一数第 16 次重试之后失败的投递——reconsume_times 为 16 和 17 的两次都等待被截断后的级别。",
        ),
        after="常见说法与源码对照：“maxReconsumeTimes > 16 会被当作 16。”——配置的值随每个回传请求头发出；被截断的只有延迟级别，由 CommitLog 截到 maxDelayLevel。max 18 → 投递 19 次，从第 16 次起每次重试间隔 2 h。\n\n要点：延迟级别最高截到 18（2 h）：更多的重试每次都等 2 h。",
    ),
    "03.3": Translated(
        "delayOffset.json 第一次写入是在存储启动后 10 s（ScheduleMessageService.start：按 flushDelayOffsetInterval 固定频率持久化，10 000 ms）。10 s 的那次写入已经记下级别 2 越过“late”（5 s 时投递）的位点，所以重启时的 load() 读回它，“late”不会再次投递：一次。只有最后一次写入之后的进度会被重放。",
        hint="找出 delayOffset.json 何时写入（flushDelayOffsetInterval），再与崩溃时刻比较。",
        hints=(
            "两次是 9.999 s 那次崩溃的结果，那时还没有任何写入。在 9.999 s 与 10.5 s 之间，ScheduleMessageService 写了一次 delayOffset.json：它为级别 2 记下了什么？",
            "停在延迟级别上或已投递的消息不会在这次崩溃中丢失：它在 CommitLog 里。",
        ),
                after="要点：Broker 崩溃会重新投递自上次写 delayOffset.json 以来推进过的消息。",
    ),
    # 04 · the dead-letter queue; 04b · stranded retry queues
    "04.1": Translated(
        "MixAll.getDLQTopic = '%DLQ%' + group，这里是 %DLQ%invoices；DLQ_NUMS_PER_GROUP = 1，与失败消息所在 Topic 的队列数无关。",
        hint="MixAll.getDLQTopic 构造这个名字；DLQ_NUMS_PER_GROUP 是队列数。",
        hints=(
            "名字由消费组构造，而不是由消息原来的 Topic 构造。",
            "死信 Topic 的队列数是每个消费组的常量（DLQ_NUMS_PER_GROUP），不是失败消息所在 Topic 的队列数。",
        ),
        after="常见说法与源码对照：“死信队列是 %DLQ%group@group。”——topic@group 是 Broker 统计键的格式；Topic 是 MixAll.getDLQTopic(group)。而“死信消息不能被消费（perm 2）”只在 4.9.1 及以前成立：4.9.2+ 创建的死信队列可读可写（perm 6）。\n\n要点：死信 Topic 是 %DLQ%<group>，只有一个队列。",
    ),
    "04.2": Translated(
        "死信 Topic 只以消费组命名：%DLQ%billing 和 %DLQ%audit，各自由本组两个 Topic 的死信共用，靠 RETRY_TOPIC 属性区分。",
        hint="MixAll.getDLQTopic 构造的是哪个名字，用什么构造？",
        hints=(
            "看看传给 MixAll.getDLQTopic 的是什么：一个 Topic，还是一个消费组？数一数它们。",
            "一个死信 Topic 服务一个消费组的所有 Topic，但每个消费组都有自己的。",
        ),
        after="常见说法与源码对照：“每个 Topic 都有自己的死信队列。”——名字只由消费组构造，而且只有一个队列：这个消费组消费的所有 Topic 共用它。\n\n要点：一个死信 Topic，由消费组的所有 Topic 共用。",
    ),
    "04.3": Translated(
        "在回退路径上，客户端发送 RECONSUME_TIME = rt + 1，handleRetryAndDLQ 用 >= 检查它：第二次失败（rt 1 → 请求头 2 ≥ 2）就进入死信，比 Broker 路径早一次投递。",
        hint="比较两条路径各自拿哪个次数与 maxReconsumeTimes 比较：存储的次数，还是客户端已经 + 1 的次数。",
        hints=("这是 Broker 路径的次数。在回退路径上，Broker 拿哪个数与 max 比较：存储的次数，还是客户端已经加过 1 的次数？",),
        after="4.9.7 源码怎么说：在 Broker 路径上，asyncConsumerSendMsgBack 对存储的次数检查 msgExt.getReconsumeTimes() >= maxReconsumeTimes，然后以次数 + 1 存储新副本。在回退路径上，DefaultMQPushConsumerImpl.sendMessageBack 以 RECONSUME_TIME = 次数 + 1 构造重试消息，sendKernelImpl 把它放进请求头，handleRetryAndDLQ 对请求头中的值检查 reconsumeTimes >= maxReconsumeTimes，存储时不再 + 1。同样是 >=，但一边已经加过了：回退路径早一次投递进入死信，次数也少一。trace 还显示了 4.9.x 的第二个细节：handleRetryAndDLQ 把延迟级别设为 0，但请求自己的属性（带着客户端的 DELAY = 3 + 次数）之后又被放回消息上，所以这条死信先在 SCHEDULE_TOPIC_XXXX 中等待（真实 Topic 为 %DLQ%cg）。RocketMQ 5.0 把检查改为 >，并把延迟改为 −1。\n\n要点：客户端回退路径比 Broker 路径早一次投递进入死信队列（4.9.x）。",
    ),
    "04.4": Translated(
        "5 s 之前放下的副本在 11 s 回到 %RETRY%cg，再次失败，重试次数已经用完。但那时 retryQueueNums 已是 0，asyncConsumerSendMsgBack 在查看死信规则之前就对这次回传应答 SUCCESS，却什么也不存：没有重试，也没有死信。",
        hint="asyncConsumerSendMsgBack 在查看死信规则之前先检查 retryQueueNums。",
        hints=(
            "它的重试次数用完了，所以死信规则会把它送进死信队列。asyncConsumerSendMsgBack 先检查哪一个：消费组的重试队列，还是死信规则？",
            "放下的副本确实在 11 s 回到了 %RETRY%cg。跟着它的第二次回传看。",
        ),
        after="消费者看到 ok=True，便推进了消费位点；客户端里没有任何迹象表明消息丢了。\n\n常见说法与源码对照：“retryQueueNums 为 0 可以安全地关闭重试。”——asyncConsumerSendMsgBack 还没看死信规则就返回了 SUCCESS，所以每条失败的消息都被悄悄丢弃。要立即进入死信，请保留一个重试队列，并让监听器设置 ctx.delay_level_when_next_consume = -1（或给消费者设置 max_reconsume_times=0）。\n\n要点：retryQueueNums 为 0 不会进入死信队列：失败的消息被丢弃，客户端里没有任何痕迹。",
    ),
    "04b.1": Translated(
        "%RETRY%cg 在 c1 第一次心跳时以 2 个队列创建，用的是那一刻的 retryQueueNums；createTopicInSendMessageBackMethod 原样返回已有的 Topic，所以之后的 updateSubGroup 从不改变它的大小。",
        hint="createTopicInSendMessageBackMethod 原样返回已存在的 Topic。",
        hints=(
            "updateSubGroup 改的是消费组的配置，而不是一个已经存在的 Topic。",
            "图中的 Topic 只有 1 个队列，因为 c1 第一次发心跳时消费组的设置就是 1。这里那时的设置是多少？",
        ),
                 after="要点：%RETRY%<group> 只在消费组第一次发心跳时创建一次，用的是那一刻的 retryQueueNums；回传用的是当前的设置，所以超出该 Topic 队列数的队列会被存储，却永远不会被拉取。",
    ),
    "04b.2": Translated(
        "路由在 125 s 时变了；c1 下一次轮询 NameServer（从 10 ms 起每 30 s 一次）在 150 s 时看到它，而它的下一次重平衡（从 0 s 起每 20 s 一次）在 160 s 时接管新队列。",
        hint="消费者每 30 s 重新读取路由，并在重平衡时分配队列，每 20 s 一次。",
        hints=(
            "Broker 立即就变了，但消费者从 NameServer 获知路由，每 30 s 一次。",
            "到 150 s 消费者已知道新路由，但它只在重平衡时分配队列，每 20 s 一次。",
        ),
                 after="要点：对 %RETRY%<group> 执行 updateTopic 后，搁浅的队列会在消费者下一次拉取路由并重平衡之后被释放。",
    ),
    # 05 · offsets and the process queue
    "05.1": Translated(
        "removeMessage 返回 msgTreeMap 中仍在的最小的 Key：一个低水位，ok4 完成了，它仍被位点 3 上的那条慢消息钉住。",
        hint="看一看当 msgTreeMap 中仍有消息时 ProcessQueue.removeMessage 返回什么。",
        hints=(
            "这是“最后消费的消息 + 1”。哪个位点还在 msgTreeMap 中？",
            "那是图中那次运行里 slow 的位点。这一次 slow 的位点是多少？",
        ),
                after="常见说法与源码对照：“消费位点就是最后一条被消费的消息。”——ProcessQueue.removeMessage 返回 msgTreeMap 中仍在的最小 Key（TreeMap 为空时返回最大位点 + 1）：一个低水位线。\n\n要点：消费位点是 msgTreeMap 中最小的 Key：一条慢消息就能把它钉住。",
    ),
    "05.2": Translated(
        "已提交的消费位点停在 slow 的位点 2，拉取请求和持久化定时器把它带到了 Broker；重启从那里开始：slow、ok3 和 ok4 被再次消费。",
        hint="重启的消费者从 Broker 保存的消费位点开始；从那里起的一切都会被再次投递。",
        hints=(
            "Broker 的消费位点就是重启开始的地方，而那条慢消息钉住了它；从那里数每一个位点，slow 自己的也算。",
            "这是从位点 1 数起的，和图中那次运行一样。这一次 slow 在哪个位点？",
        ),
                after="要点：两种方式下，重启都会重新消费：监听器必须幂等。",
    ),
    "05.3": Translated(
        "62 s 时客户端内存里的位点跳到了 5，但持久化定时器（10 s，之后每 5 s）最后一次运行是在 60 s，那时是 1；也没有哪次拉取带上 5。重启从 Broker 读到 1。",
        hint="有两份副本：客户端内存里的和 Broker 的。哪一份能在崩溃后留下，它又是何时写入的？",
        hints=("这是客户端内存中的消费位点。重启的消费者读的是哪一份，它最后一次写入是在何时？",),
        after="slow 运行期间，两份副本都是 1。它在 62 s 结束时 TreeMap 清空，客户端跳到 5——但 Broker 一直保持 1，直到下一次持久化。这个间隙是崩溃造成消息重复的第二种方式。\n\n要点：Broker 只从拉取请求和定时持久化中得知消费位点：崩溃会丢掉它尚未收到的部分。",
    ),
    # 06 · ordered send
    "06.1": Translated(
        "不管 retryTimesWhenSendFailed 是多少，sendSelectImpl 都只尝试一次：没有重试循环，连接错误直接到达调用方。",
        hint="比较 sendSelectImpl 与 sendDefaultImpl：哪一个有重试循环？",
        hints=("retryTimesWhenSendFailed 属于 sendDefaultImpl 的循环。选择器这条路径有这个循环吗？",),
                after="要点：选择器发送只在选择器选中的队列上尝试一次；选择器的异常、null 和超时都会交给调用方。",
    ),
    "06.2": Translated(
        "选择器对当前的列表取模：在 broker-b 的四个队列上 9 % 4 = 1，所以订单 9 从 a1（9 % 8）移到了 b1。",
        hint="每次发送都会重新运行选择器，用的是那一刻路由中的队列列表。",
        hints=(
            "调用选择器时传入的是路由现在的队列列表，而不是 1 s 时的。",
            "那是订单 3 去的地方。用 9 对路由现在列出的队列数取模。",
        ),
    ),
    "06.3": Translated(
        "每个请求都到达了 broker-a 并被存储；迟到的只是应答。超时说明不了是否存储：两次重发就是两条重复消息，2 个事件存了 4 条消息。",
        hint="超时是生产者放弃等待；它不会回到 Broker 里去撤销什么。",
        hints=("数一数 Broker 存下了什么，而不是生产者收到了什么应答：每个超时的请求都被存储了吗？",),
                after="要点：超时的发送可能已经被存储：再次发送就是一条重复消息。",
    ),
    "06.4": Translated(
        "一条也没有：pg 第一次读取路由（在它第一次发送时，1 s）之前 broker-a 就宕机了，NameServer 已经去掉了宕机 Broker 的队列，所以路由从未列出 a3；严格的选择器对三次发送都返回 null，什么也没有发出去。严格顺序以可用性换取顺序。",
        hint="严格的选择器从不选别的队列：只有订单 3 自己的队列可达时才会发送。",
        hints=(
            "严格的选择器从不把订单 3 移到别的队列。三次发送中哪几次在路由里找到了 a3？",
            "这是图中的数目，那里 1 s 发送时 broker-a 还在运行。这里 1 s 时路由列出了什么？",
        ),
                after="要点：严格顺序保持有序，但在队列消失期间不可用。",
    ),
    # 07a · orderly consumption: local retries, suspension, the three locks; 07b · failover
    "07a.1": Translated(
        "rt 0 和 1 是本地重试；到 rt 1 ≥ 1 时客户端把它发往 %RETRY%cg，Broker 把它转到 %DLQ%cg。",
        hint="max_reconsume_times 计的是重新投递的次数；rt 达到 max 时消息被回传。",
        hints=("差了一次投递：max_reconsume_times 计的是重新投递，第一次投递不算在内。",),
        after="超过 max 后，checkReconsumeTimes 以 delayLevel = 3 + reconsumeTimes 把消息发往 %RETRY%cg，Broker 看到请求头中 reconsumeTimes ≥ max，把它转到 %DLQ%cg。它要等那段延迟之后才到达（这里是级别 4 = 30 s）：在 4.9.7 中 SendMessageProcessor.asyncSendMessage 为死信队列设置延迟级别 0，然后又用请求的属性替换消息的属性，而请求的属性仍带着客户端的级别（5.0 修复了这一点）。",
    ),
    "07a.2": Translated(
        "submitConsumeRequestLater 把请求的 120 000 ms 截到 30 000 ms：投递发生在 3、33、63、93、123 和 153 s（rt 0 … 5），到 rt 5 ≥ 5 时 checkReconsumeTimes 把它回传。",
        hint="先算出队列实际暂停的时长，再数到 rt 达到 max 需要暂停几次。",
        hints=(
            "监听器的 2 分钟不会照原样使用：submitConsumeRequestLater 会限制它。",
            "监听器给的值会在那次暂停中取代消费者的 1000 ms。",
            "差了一次暂停：max_reconsume_times=5 意味着六次投递，也就是五次暂停。",
        ),
    ),
    "07a.3": Translated(
        "Broker 消息队列锁只在集群模式下存在（广播模式下从不调用 lockAll 和 lock(mq)，每个实例都消费每个队列）；MessageQueueLock 和消费锁照常持有。",
        hint="逐一看看三把锁：哪一把涉及 Broker，它在广播模式下用到了吗？",
        hints=(
            "广播模式下每个实例都消费每个队列。还有什么需要 Broker 来仲裁吗？",
            "两把本地锁不依赖消息模式：有一个监听器正在运行。",
        ),
        after="没有租约，而“c1 信任它：否”也无关紧要：广播模式下每个实例都消费每个队列，所以 ConsumeRequest.run 根本不看 pq.locked。两把本地锁仍然保证每个队列只有一个线程。\n\n要点：Broker 租约只用于集群模式；两把本地锁在两种模式下都会加。",
    ),
    "07a.4": Translated(
        "客户端在最后一次成功加锁（21 s）之后的 30 s 内信任它的锁：循环在每条消息之前检查，所以 50 s 的投递照常运行，而 52 s 到期的那次发现锁已过期。",
        hint="客户端一直消费到 isLockExpired()：最后一次成功加锁后的 30 s，在每条消息之前检查。",
        hints=(
            "从最后一次成功续锁算起，而不是从链路被切断的那一刻。",
            "60 s 是 Broker 的租约。客户端自己信任它的副本多久？",
        ),
    ),
    "07a.5": Translated(
        "每批消息之前，循环检查从开始到现在的时间：0 和 40 s 都没超过 60 s；到 80 s 超过了，于是这个请求在 10 ms 后重新提交自己，另一个队列正在等待的请求得到线程。",
        hint="每条消息之前，循环把从开始到现在的时间与 MAX_TIME_CONSUME_CONTINUOUSLY（60 s）比较。",
        hints=(
            "60 s 的检查在取每条消息之前运行，而 40 s 并不超过 60 s。",
            "只有一个线程且不让出时，第一个队列会一直占着它；MAX_TIME_CONSUME_CONTINUOUSLY 是 60 s。",
            "这是图中 25 s 一条消息时的条数。用 40 s 一条的消息，在每条消息之前再检查一遍。",
        ),
    ),
    "07b.1": Translated(
        "c1 最后一次续锁在 1 s，所以 Broker 上的锁在 61 s 后过期；c2 在它的重平衡时重试（25 + 20 k s）：65 s。",
        hint="Broker 保留 c1 的锁直到它最后一次续锁后 60 s，而 c2 只在它自己的重平衡时请求加锁。",
        hints=(
            "Broker 在最后一次续锁后保留锁 60 s，而不是 30 s（那是客户端自己的过期时间）。",
            "租约是对的，但 c2 只在重平衡时请求加锁：间隔 20 s，从它 25 s 启动时算起。",
        ),
        after="常见说法与源码对照：“Broker 的锁 30 s 后过期。”——RebalanceLockManager 在最后一次续锁后保留锁 60 s；30 s 是 ProcessQueue 对客户端信任自己副本多久的限制。\n\n要点：崩溃的持有者在 Broker 上的租约在最后一次续锁后持续 60 s；下一个所有者在那之后的第一次重平衡时拿到这个队列。",
    ),
    "07b.2": Translated(
        "c1 在 7 s、c2 加入之前就处理完了 M0001：processConsumeResult 在尚未被丢弃的 ProcessQueue 中提交了它，10 s 的重平衡在放下队列之前持久化了这个消费位点。c2 从 M0001 之后开始。投递一次：图中的重复消费来自队列迁移时仍在运行的监听器。",
        hint="processConsumeResult 只在 ProcessQueue 没有被丢弃时才提交。c2 从哪里开始读？",
        hints=("这是图中的次数，那里 10 s 时 M0001 还在 c1 25 s 的监听器里。这里 10 s 时它在哪里？",),
        after="顺序消费保持一个队列内的顺序；它并不让一个队列的迁移变成恰好一次。\n\n要点：它正在处理的消息可能被下一个所有者再消费一次。",
    ),
    "07b.3": Translated(
        "关闭 autoCommit 时，SUCCESS 什么也不提交；COMMIT 提交到目前为止取出的全部（直到 d，位点 3）：3 + 1 = 4。e 留在 consumingMsgOrderlyTreeMap 中，未提交。",
        hint="关闭自动提交时只有 COMMIT 推进消费位点，commit() 返回最后提交的偏移量 + 1。",
        hints=(
            "关闭自动提交时，SUCCESS 不推进消费位点。哪个状态会？",
            "提交的消费位点是下一条要消费的：最后提交的偏移量 + 1。",
        ),
    ),
    "07b.4": Translated(
        "a、bad 这一批整体失败：两条消息的 rt 都 + 1，到 rt 2 ≥ 2 时 checkReconsumeTimes 把两条都发往 %RETRY%cg，Broker 再把它们转到 %DLQ%cg。下一批 c 和 d 消费成功。",
        hint="整批消息得到这一批的状态，checkReconsumeTimes 逐条判断其中的每条消息。",
        hints=(
            "监听器为整批消息返回一个状态。哪些消息和 bad 在同一批？",
            "这是图中每批 3 条时的数目。每批 2 条时，哪些消息和 bad 在同一批？",
        ),
        after="a 和 c 自己从没失败过，却和 bad 一起被重试，又和它一起进入死信。批量消费时，一条毒消息会拖垮它的邻居。\n\n要点：失败的一批消息作为一个整体被重试——也作为一个整体进入死信队列。",
    ),
    # 08 · broadcasting vs clustering
    "08.1": Translated(
        "每个实例都收到每条消息一次，3 个实例 3 份副本；失败只会被记录并丢弃，从不重试。",
        hint="每个实例都得到自己的副本。广播模式下 processConsumeResult 如何处理失败？",
        hints=(
            "每个实例都得到自己的副本；那么，广播模式下失败的副本会重试吗？",
            "广播模式下消费组不分摊消息：有几个实例各自得到一份副本？",
        ),
                after="要点：广播模式把每条消息投递给每一个实例。",
    ),
    "08.2": Translated(
        "丢弃和成功一样经过 removeMessage：map 是空的，所以消费位点是失败消息的偏移量 + 1。",
        hint="被丢弃的消息和消费成功的一样经过 removeMessage。",
        hints=("被丢弃的消息不会留下等待重试。它还会钉住消费位点吗？",),
        after="消费位点越过失败的消息，和越过消费成功的消息完全一样：重启后不会再看到它。这就是“丢弃”的含义。\n\n常见说法与源码对照：“失败的消息总会被重试。”——只在集群模式下如此。广播模式下 ConsumeMessageConcurrentlyService.processConsumeResult 丢弃失败。\n\n要点：广播模式下，失败的消息被丢弃，消费位点越过它。",
    ),
    "08.3": Translated(
        "copySubscription 在 Consumer 启动时只按消息模式订阅重试 Topic：集群模式的 Consumer 都订阅它，不管有没有消息失败过；广播模式根本没有重试。",
        hint="看一看 DefaultMQPushConsumerImpl.copySubscription 对消息模式的 switch。",
                after="要点：只有集群模式会把失败的消息发往 %RETRY%<group>；广播模式把消费位点保存在每个实例的本地文件里。",
    ),
    # 09 · the capstone
    "09.1": Translated(
        "顺序消费的 commit() 是最后一个成功批次的偏移量 + 1：p2（偏移量 1）之后是 2，而偏移量 2 上的 bad-card 从不成功，所以消费位点永远越不过它。",
        hint="顺序提交是最后一个成功批次的偏移量 + 1，而队列按顺序消费。",
        hints=(
            "要提交的偏移量是下一条要消费的，而不是最后消费的那一条。",
            "p4 和 p5 在同一个队列中排在 bad-card 之后。顺序提交能跳过一条消息吗？",
        ),
                after="要点：卡在被重试消息前面的消费位点，证实了本地重试循环。",
    ),
    "09.2": Translated(
        "顺序消费 max 为 N 时投递 N + 1 次，然后 %RETRY% → %DLQ%pay-cg，队列继续前进。",
        hint="顺序消费 max 为 N：消息在被回传之前投递几次？",
        hints=("差了一次：max_reconsume_times 计的是重新投递，第一次投递不是重新投递。",),
    ),
    "09.3": Translated(
        "每个 bad-card 都把队列堵住 6 次投递，然后超过 max 被回传，队列越过它提交：第一个之后 p3 运行，第二个之后 p5 运行，有序的流程缺了第二和第四笔支付继续进行。",
        hint="bad-card 一旦被回传，就没有什么再挡住这个队列。",
        hints=("进入死信并不会挡住队列：bad-card 离开的那一刻，它后面的支付会怎样？",),
                after="要点：max_reconsume_times 让队列不再阻塞，代价是顺序：进入死信队列的消息离开了这条消息流。",
    ),
}
"""By exercise id: the Chinese of every text the English declares."""
