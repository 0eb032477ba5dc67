"""``Lab``: one simulated RocketMQ cluster — clock, trace, name server, brokers and clients.

Everything a notebook does goes through a Lab::

    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=4)
    producer = lab.add_producer("pg")
    consumer = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=my_listener)
    lab.at("1s", producer.send, Message("TopicTest", "hello"))
    lab.run(until="5h")

Same seed, same calls → the same trace, byte for byte.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from ..broker.broker_controller import PERM_RW, Broker, TopicConfig
from ..client.consumer.default_mq_push_consumer import DefaultMQPushConsumer
from ..client.producer.default_mq_producer import DefaultMQProducer, SendFuture
from ..common.message_queue import MessageQueue
from ..core.context import Context
from ..core.duration import parse_duration
from ..core.errors import ConfigError
from ..core.scheduler import Scheduler, TimerKind, TimerLabel
from ..core.trace import CountingTrace, Trace
from ..core.validation import check_horizon, check_int, check_name, check_topic_name
from ..namesrv.route_info_manager import NameServer
from ..remoting.remoting import Remoting
from ..store.schedule_message_service import DelayLevelTable
from . import admin as lab_admin
from . import admin_consumers, topology
from . import fault_injection as lab_faults
from .lab_checks import check_action, check_fault_targets

if TYPE_CHECKING:
    from ..snapshot import LabSnapshot, TraceIndex

__all__ = ["Lab"]


class Lab:
    """A deterministic RocketMQ cluster in virtual time."""

    def __init__(
        self,
        seed: int = 0,
        *,
        trace: bool = True,
        message_delay_level: str | list[int | str] | None = None,
        dlq_readable: bool = True,
    ) -> None:
        self.seed = check_int("seed", seed, 0, 2**63 - 1)
        self.rng = random.Random(seed)
        self.scheduler = Scheduler()
        self.trace: Trace = Trace() if trace else CountingTrace()
        self.namesrv = NameServer()
        self.brokers: dict[str, Broker] = {}
        self.remoting = Remoting(self.scheduler, self.brokers)
        self.context = Context(self.scheduler, self.trace, self.remoting, self.namesrv, self.rng)
        """What every client of this lab is handed: the clock, the trace, the network, the name server, the rng."""
        self.producers: dict[str, DefaultMQProducer] = {}
        self.consumers: dict[str, DefaultMQPushConsumer] = {}
        self.sends: list[SendFuture] = self.context.sends
        self.local_offset_files: dict[tuple[str, str], dict[MessageQueue, int]] = self.context.local_offset_files
        self.delay_levels = DelayLevelTable() if message_delay_level is None else DelayLevelTable(message_delay_level)
        self.dlq_readable = dlq_readable
        self.errors: list[str] = self.context.errors

    def __repr__(self) -> str:
        from ..core.duration import format_duration

        return (
            f"Lab(seed={self.seed}, now={format_duration(self.now)}, brokers={sorted(self.brokers)}, "
            f"consumers={sorted(self.consumers)}, events={len(self.trace)})"
        )

    # ------------------------------------------------------------------ time
    @property
    def now(self) -> int:
        """Virtual time in ms."""
        return self.scheduler.now

    def at(self, time: int | str, action: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        """Run ``action(*args, **kwargs)`` at absolute virtual ``time`` (errors are caught and traced).

        A fault of the registry (``lab.broker_down``, ``lab.set_broker_fault``, ``lab.partition``,
        ``consumer.crash`` … see :mod:`rmqlab.lab.faults`) runs at ``Priority.FAULT``: before the ordinary work of
        its millisecond, exactly as the same fault in a scenario file (the rule in :mod:`rmqlab.core.scheduler`); its
        arguments are checked against the method's signature now, not when its time comes.
        """
        from ..core.scheduler import Priority
        from .faults import check_arguments, priority_of

        when = check_horizon("time", time, parse_duration(time, "time"))
        if when < self.now:
            raise ConfigError("time", time, f"a time >= now ({self.now} ms)")
        check_action(action)
        priority = priority_of(action)
        if priority is Priority.FAULT:
            check_arguments(action, args, kwargs)  # not a WARNING when its time comes
            check_fault_targets(self, action, args, kwargs)
        where = getattr(action, "__qualname__", "action")
        self.scheduler.schedule_at(
            when,
            lambda: self.safely(action, *args, where=where, **kwargs),
            priority=priority,
            label=TimerLabel(TimerKind.ACTION, "lab", detail=where),
        )

    def run(self, until: int | str | None = None) -> Lab:
        """Run events up to and including ``until``, then set the clock to it; returns ``self`` for chaining.

        ``until`` is required as soon as the lab has a broker or a client: their periodic timers (rebalance,
        heartbeat, the broker's channel scan …) re-arm themselves, so "until nothing is left" never comes. Only a
        lab with nothing but one-shot ``lab.at`` actions may leave it out and run until the heap is empty.
        Calling ``run`` (or ``step``) from a listener or a ``lab.at`` action is refused with
        :class:`~rmqlab.core.scheduler.ReentrantRunError`. ``until`` is at most
        :data:`~rmqlab.core.validation.MAX_HORIZON_MS` (7 virtual days): ``until=10**30`` would never return.
        A ``KeyboardInterrupt`` raised in a listener stops the run
        after that event, with the engine's state consistent (see ``run_listener``); ``run`` again continues. A
        Ctrl-C anywhere else is put off until the current event has returned (``Scheduler._on_sigint``), so ``run``
        again ends exactly as a run never interrupted would.
        """
        if until is None:
            if self.scheduler.has_periodic_timers():
                raise ConfigError(
                    "until",
                    None,
                    "a time such as '10m' or 600000: this lab's periodic timers (rebalance, heartbeats, the "
                    "broker's channel scan …) re-arm forever, so run() without until would never return",
                )
            self.scheduler.run(None)
        else:
            self.scheduler.run(check_horizon("until", until, parse_duration(until, "until")))
        return self

    def step(self) -> bool:
        """Run one heap event; ``False`` when nothing is scheduled."""
        return self.scheduler.step()

    def stepping(self) -> AbstractContextManager[None]:
        """``with lab.stepping(): while lab.step(): ...``: a Ctrl-C is handled as in :meth:`run` for the whole walk,
        set up once instead of at every step (a dashboard's frames take tens of thousands of steps)."""
        return self.scheduler.handling_interrupts()

    def snapshot(self, index: TraceIndex | None = None) -> LabSnapshot:
        """Everything a view may show at ``now``, as frozen plain data (see :mod:`rmqlab.snapshot`).

        Pass the same :class:`~rmqlab.snapshot.TraceIndex` at every call to fold only the new trace
        events; without one the whole trace is folded again. Changes nothing in the Lab.
        """
        from ..snapshot import take_snapshot  # here, not at the top: `rmqlab run` never takes one (bench/cli_start.py)

        return take_snapshot(self, index)

    def safely(self, action: Callable[..., Any], *args: Any, where: str = "callback", **kwargs: Any) -> Any:
        """Call user code; an exception becomes a WARNING event instead of killing the run."""
        return self.context.safely(action, *args, where=where, **kwargs)

    # ------------------------------------------------------------------ topology
    def add_broker(self, name: str) -> Broker:
        """Add a broker master (``broker-a``, ``broker-b`` …)."""
        return topology.add_broker(self, name)

    def create_topic(
        self, topic: str, *, brokers: list[str] | None = None, queues: int = 4, perm: int = PERM_RW
    ) -> list[MessageQueue]:
        """Create ``topic`` with ``queues`` queues on each of ``brokers`` (default: every broker).

        Creating a topic again with the same queues and perm is a no-op; with different ones it is refused
        (:meth:`update_topic` changes a topic), so the returned queue list is always the topic's real one.
        ``%DLQ%<group>`` may be created ahead of its first dead letter, as with ``mqadmin updateTopic``: a consumer
        can then subscribe to it from the start, and dead letters still go to its queue 0 (``DLQ_NUMS_PER_GROUP``).
        """
        check_topic_name("topic", topic, dead_letter=True)  # 4.9.7's updateAndCreateTopic: TopicValidator's rules
        queues = check_int("queues", queues, 1, 1024)
        perm = lab_admin.check_perm(perm)
        names = lab_admin.broker_names(self, brokers, sorted(self.brokers))
        lab_admin.check_new_topic(self, topic, queues, perm, names)
        for name in names:
            self.brokers[name].topic_config_manager.create_topic(topic, queues, perm)
        return [MessageQueue(topic, name, q) for name in sorted(names) for q in range(queues)]

    def update_topic(
        self,
        topic: str,
        *,
        queues: int | None = None,
        read_queues: int | None = None,
        write_queues: int | None = None,
        perm: int | None = None,
        brokers: list[str] | None = None,
    ) -> dict[str, TopicConfig]:
        """``mqadmin updateTopic``: change an existing topic's queue counts or permission on its brokers.

        ``queues`` sets both counts; ``read_queues`` / ``write_queues`` set one (read > write is how an operator
        shrinks a topic without stranding messages: producers stop writing to the high queues while consumers
        drain them). ``%RETRY%`` and ``%DLQ%`` topics can be updated too, as with ``mqadmin``. ``None`` keeps a
        setting as it is (the real ``mqadmin`` resets options you leave out to 8 / 8 / 6).

        The broker registers the new route with the name server at once; producers and consumers see it on
        their next route poll (every 30 s) and the consumers' next rebalance. Stored messages never move: a
        queue dropped from the route keeps its messages, unread. ``brokers`` defaults to every broker that has
        the topic. Everything is checked before any broker changes; each change is traced as an ADMIN event.
        Returns each broker's new config.
        """
        return lab_admin.update_topic(
            self, topic, queues=queues, read_queues=read_queues, write_queues=write_queues, perm=perm, brokers=brokers
        )

    def update_consumer_offset(self, group: str, mq: MessageQueue, offset: int) -> None:
        """Set ``group``'s committed offset of ``mq`` at its broker, as ``DefaultMQAdminExtImpl.updateConsumeOffset``
        does (UPDATE_CONSUMER_OFFSET → ``ConsumerOffsetManager.commitOffset``, which overwrites). A new or restarted
        instance starts there; a running one keeps its in-memory offset and overwrites it at its next persist (5 s)."""
        lab_admin.update_consumer_offset(self, group, mq, offset)

    def clone_group_offset(self, src_group: str, dest_group: str, topic: str) -> None:
        """``mqadmin cloneGroupOffset``: ``dest_group``'s committed offsets of ``topic`` become a copy of
        ``src_group``'s, broker by broker (see :mod:`rmqlab.lab.admin_consumers`)."""
        admin_consumers.clone_group_offset(self, src_group, dest_group, topic)

    def consume_message_directly(self, consumer: str, broker: str, topic: str, msg_id: str) -> str:
        """``consumeMessageDirectly``: ``consumer``'s listener is called with the message ``msg_id`` stored on
        ``broker`` in ``topic`` (a DLQ message: ``%DLQ%<group>``); returns the ``CMResult`` (``CR_SUCCESS`` …). No
        offset moves, nothing is sent back: the message stays where it is (see :mod:`rmqlab.lab.admin_consumers`)."""
        return admin_consumers.consume_message_directly(self, self.consumer(consumer), broker, topic, msg_id)

    def update_broker_config(self, broker: str, *, broker_permission: int) -> None:
        """``mqadmin updateBrokerConfig -k brokerPermission``: 6 read+write, 4 read only, 2 write only, 0 neither.

        A broker that is not read+write re-registers every topic with its own permission, so producers drop it
        from their routes on their next poll (≤ 30 s) while consumers keep reading; a send-back to it answers
        NO_PERMISSION and the consumer falls back to sending the retry itself (4.9.7
        ``SendMessageProcessor.asyncConsumerSendMsgBack``, then ``DefaultMQPushConsumerImpl.sendMessageBack``).
        """
        lab_admin.update_broker_config(self, self._broker(broker).name, broker_permission)

    def update_subscription_group(
        self,
        group: str,
        *,
        retry_queue_nums: int | None = None,
        retry_max_times: int | None = None,
        brokers: list[str] | None = None,
    ) -> dict[str, Any]:
        """``mqadmin updateSubGroup``: set a consumer group's broker-side ``SubscriptionGroupConfig``.

        ``retry_queue_nums`` (default 1) is how many queues ``%RETRY%<group>`` gets when the group's first
        consumer heartbeats; each send-back goes to queue ``random % retry_queue_nums``. 0 makes every
        send-back answer SUCCESS and store nothing: the failed message is silently dropped. Raising it once
        the topic exists strands retries, as in 4.9.7: the topic is never resized, so a retry stored in a
        queue the route does not list is never pulled (``update_topic("%RETRY%<group>", queues=n)`` frees
        them). ``retry_max_times`` (default 16) only decides for a message sent to ``%RETRY%<group>``
        *without* a ``maxReconsumeTimes`` header; push consumers always send one (``max_reconsume_times``,
        −1 → 16), so for them it changes nothing.

        ``None`` keeps a setting as it is (the real ``mqadmin`` resets options you leave out to their
        defaults). ``brokers`` defaults to every broker. Everything is checked before any broker changes.
        Each broker's new config is traced as an ADMIN event. Returns a copy of the resulting config per
        broker name.
        """
        return lab_admin.update_subscription_group(
            self, group, retry_queue_nums=retry_queue_nums, retry_max_times=retry_max_times, brokers=brokers
        )

    def add_producer(self, producer_group: str, **options: Any) -> DefaultMQProducer:
        """Add a ``DefaultMQProducer`` (options: ``send_msg_timeout``, ``retry_times_when_send_failed`` …)."""
        check_name("producer_group", producer_group)
        producer = DefaultMQProducer(self.context, producer_group, **options)
        if producer.name in self.producers:
            raise ConfigError("name", producer.name, f"a new producer name (have {sorted(self.producers)})")
        self.producers[producer.name] = producer
        return producer

    def add_consumer(
        self,
        consumer_group: str,
        *,
        subscribe: Mapping[str, str] | None = None,
        listener: Callable[..., Any] | None = None,
        orderly: bool = False,
        start: bool | int | str = True,
        **options: Any,
    ) -> DefaultMQPushConsumer:
        """Add a push consumer; it starts now (``start=True``), at a time, or later by hand."""
        return topology.add_consumer(
            self, consumer_group, subscribe=subscribe, listener=listener, orderly=orderly, start=start, options=options
        )

    # ------------------------------------------------------------------ faults
    def broker_down(self, name: str) -> None:
        """The broker process stops: connections refused, held pulls broken, routes withdrawn."""
        lab_faults.broker_down(self, self._broker(name))

    def broker_up(self, name: str) -> None:
        """The broker is back; clients see it again at their next route refresh / heartbeat."""
        lab_faults.broker_up(self, self._broker(name))

    def set_broker_fault(self, name: str, **faults: Any) -> None:
        """Set ``response_delay_ms``, ``lose_responses``, ``put_status`` (what the store answers every put: a failing
        status fails a send with ``handlePutMessageResult``'s code and remark, a send-back with SYSTEM_ERROR and the
        status's name, and holds delayed messages back), ``reject_send_back``, ``send_error``,
        ``send_responses`` (one scripted answer per send: code names or ``{"code", "remark"}``, e.g.
        ``["SYSTEM_ERROR", "SYSTEM_ERROR", "SUCCESS"]``), ``send_back_error`` (a code name, or None to clear)
        and ``send_back_remark`` (its remark), ``query_offset_error`` and ``query_offset_remark`` (the answer to
        QUERY_CONSUMER_OFFSET, which the consumer's ``readOffset`` takes as "no offset": −1), ``pull_error`` and
        ``pull_remark`` (the answer to every PULL_MESSAGE: FLOW_CONTROL has the consumer pull again after 20 ms, any
        other code after 1000 ms)."""
        lab_faults.set_broker_fault(self, self._broker(name), faults)

    def partition(self, client: str, broker: str, *, heal: bool = False) -> None:
        """Cut (or heal) the link between a client process (a consumer or producer name) and a broker."""
        self._broker(broker)
        lab_faults.partition(self, client, broker, heal=heal)

    def _broker(self, name: str) -> Broker:
        if name not in self.brokers:
            raise ConfigError("broker", name, f"one of {sorted(self.brokers)}")
        return self.brokers[name]

    def consumer(self, name: str) -> DefaultMQPushConsumer:
        if name not in self.consumers:
            raise ConfigError("consumer", name, f"one of {sorted(self.consumers)}")
        return self.consumers[name]
