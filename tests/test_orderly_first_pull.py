"""An orderly consumer's first pull of a queue, pinned to RocketMQ 4.9.7's ``DefaultMQPushConsumerImpl.pullMessage``:
when the offset cannot be computed it pulls again 1 s later, and a pull at offset −1 is fixed by OFFSET_MOVED."""

from __future__ import annotations

from rmqlab import ConsumeOrderlyStatus as O
from rmqlab import EventKind as K
from rmqlab import Lab, Message
from rmqlab.client.producer.default_mq_producer import DefaultMQProducer

# ---------------------------------------------------------------------------------------------------------------
# Orderly first pull: DefaultMQPushConsumerImpl.pullMessage, `!pullRequest.isPreviouslyLocked()` (4.9.7 l. 278-297):
# computePullFromWhereWithException again; if it throws, executePullRequestLater(1000) and return (nothing pulled);
# otherwise previouslyLocked = true and nextOffset = the result *as it is* — RebalancePushImpl turns a failed offset
# query (readOffset −2) into −1 without throwing, so the pull goes out at offset −1.

DAY_MS = 86_400_000


def _orderly(start: int) -> tuple[Lab, DefaultMQProducer]:
    lab = Lab(seed=3)
    lab.add_broker("broker-a")
    lab.create_topic("ORD", queues=1)
    producer = lab.add_producer("pg")
    lab.add_consumer(
        "og", subscribe={"ORD": "*"}, listener=lambda m, c: O.SUCCESS, orderly=True, name="c1", start=start
    )
    return lab, producer


def _warnings(lab: Lab, about: str) -> list[tuple[int, str]]:
    return [(e.time_ms, e.get("message")) for e in lab.trace.of_kind(K.WARNING) if about in e.get("message")]


def test_orderly_first_pull_whose_max_offset_query_fails_is_retried_1000_ms_later() -> None:
    """No committed offset and offset 0 gone (retention), CONSUME_FROM_LAST_OFFSET: the first pull asks for the
    max offset again; that request times out, so the pull waits 1 s, and then starts from the max offset *then*,
    past a message stored meanwhile (it used to pull from the rebalance's offset and deliver it)."""
    # offsets 0 and 1 of the 3 messages sent at 0 were deleted at day 3, 04:00; offset 2, the newest, stands for
    # the file being written, which retention keeps (MappedFileQueue.deleteExpiredFileByTime)
    t0 = 3 * DAY_MS + 5 * 3_600_000
    lab, producer = _orderly(start=t0)
    for i in range(3):
        lab.at(0, producer.send, Message("ORD", f"old-{i}"))
    lab.at(t0 - 50, lab.set_broker_fault, "broker-a", response_delay_ms=100)
    # ORD's rebalance: lock 500-600, query 600-700 (-1), max offset 700-800 (3); first pull: query 800-900 (-1),
    # max offset sent at 900 under a 7 s delay: GET_MAX_OFFSET (MQAdminImpl.timeoutMillis 6000) times out at 6901
    lab.at(t0 + 850, lab.set_broker_fault, "broker-a", response_delay_ms=7000)
    lab.at(t0 + 2000, producer.send, Message("ORD", "meanwhile"))  # offset 3 (the SYNC send itself times out)
    lab.at(t0 + 4000, lab.set_broker_fault, "broker-a", response_delay_ms=100)
    lab.at(t0 + 10_000, producer.send, Message("ORD", "after"))  # offset 4
    lab.run(until=t0 + 14_000)
    assert _warnings(lab, "compute pull offset") == [
        (t0 + 6901, "Failed to compute pull offset of ORD@broker-a:0; pull again in 1000 ms")
    ]
    pulled = [
        (e.time_ms - t0, e.get("offsets")) for e in lab.trace.of_kind(K.PULLED) if e.get("queue") == "ORD@broker-a:0"
    ]
    assert pulled == [(10_000, [4])]  # retried at 7901: query, max offset 4 (8101), held pull answered at 10 000
    assert [(e.time_ms - t0, e.get("queue_offset")) for e in lab.trace.of_kind(K.DELIVERED)] == [(10_000, 4)]
    assert [(e.time_ms, e.get("count")) for e in lab.trace.of_kind(K.RETENTION_DELETED)] == [(t0 - 3_600_000, 2)]


def test_orderly_first_pull_after_a_failed_offset_query_goes_out_at_offset_minus_1() -> None:
    """The first pull's QUERY_CONSUMER_OFFSET times out (readOffset −2 → −1): 4.9.7 pulls at −1, the broker answers
    OFFSET_MOVED, the queue is dropped and re-added by the next rebalance (it used to pull from the rebalance's
    offset 0 and deliver at once)."""
    lab, producer = _orderly(start=100)
    for i in range(2):
        lab.at(0, producer.send, Message("ORD", f"m{i}"))
    lab.at(50, lab.set_broker_fault, "broker-a", response_delay_ms=100)
    # ORD's rebalance: lock 600-700, query 700-800 (offset 0); first pull's query at 800 under a 6 s delay
    lab.at(750, lab.set_broker_fault, "broker-a", response_delay_ms=6000)
    lab.at(5000, lab.set_broker_fault, "broker-a", response_delay_ms=100)
    lab.run(until=30_000)
    # query times out at 800 + 5000 + 1; the pull at -1 is answered at 5901. The start-up rebalance ended at 800,
    # so RebalanceService's next one starts 20 s later (20 800) and re-adds the queue: delivered 600 ms on
    assert _warnings(lab, "OFFSET_ILLEGAL") == [(5901, "OFFSET_ILLEGAL on ORD@broker-a:0; fixing offset to 0")]
    assert [(e.time_ms, e.get("queue_offset")) for e in lab.trace.of_kind(K.DELIVERED)] == [(21400, 0), (21400, 1)]


