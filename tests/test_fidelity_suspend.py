"""``suspendCurrentQueueTimeMillis``: any long is accepted by the setter, clamped to 10..30000 ms where it is used.

4.9.7 ``DefaultMQPushConsumer.setSuspendCurrentQueueTimeMillis`` stores the value as given (``checkConfig`` does not
look at it); ``ConsumeMessageOrderlyService.submitConsumeRequestLater`` replaces −1 by the consumer's value and
then clamps: ``< 10 → 10``, ``> 30000 → 30000``.
"""

from __future__ import annotations

import pytest

from rmqlab import ConsumeOrderlyStatus as O
from rmqlab import EventKind as K
from rmqlab import Lab, Message
from rmqlab.lab.scenario import load_scenario

SUSPEND = "SUSPEND_CURRENT_QUEUE_A_MOMENT"


def _suspend_twice(consumer_ms: int, context_ms: int = -1) -> list[tuple[int, int]]:
    lab = Lab(seed=3)
    lab.add_broker("broker-a")
    lab.create_topic("ORD", queues=1)
    producer = lab.add_producer("pg")

    def listener(msgs, ctx):  # type: ignore[no-untyped-def]
        ctx.suspend_current_queue_time_millis = context_ms
        return O.SUSPEND_CURRENT_QUEUE_A_MOMENT if msgs[0].reconsume_times < 2 else O.SUCCESS

    lab.add_consumer(
        "og", subscribe={"ORD": "*"}, listener=listener, orderly=True, suspend_current_queue_time_millis=consumer_ms
    )
    lab.at("2s", producer.send, Message("ORD", "a"))
    lab.run(until="2m")
    return [(e.time_ms, e.get("reconsume_times")) for e in lab.trace.of_kind(K.DELIVERED)]


@pytest.mark.parametrize(
    ("consumer_ms", "times"),
    [(0, [2000, 2010, 2020]), (-5, [2000, 2010, 2020]), (60_000, [2000, 32_000, 62_000]), (250, [2000, 2250, 2500])],
    ids=["0 → 10 ms", "negative → 10 ms", "60 s → 30 s", "250 ms as is"],
)
def test_the_consumer_setting_is_clamped_when_used(consumer_ms: int, times: list[int]) -> None:
    assert _suspend_twice(consumer_ms) == [(t, rt) for t, rt in zip(times, (0, 1, 2), strict=True)]


def test_a_context_value_of_0_is_clamped_too() -> None:
    assert _suspend_twice(1000, context_ms=0) == [(2000, 0), (2010, 1), (2020, 2)]


def test_a_scenario_accepts_a_suspend_time_of_0() -> None:
    scenario = {
        "name": "suspend_0",
        "brokers": ["broker-a"],
        "topics": [{"name": "ORD", "queues": 1}],
        "producers": [{"name": "pg"}],
        "consumers": [
            {
                "group": "og",
                "orderly": True,
                "subscribe": {"ORD": "*"},
                "suspend_current_queue_time_millis": 0,
                "listener": {"default": [SUSPEND, SUSPEND, "SUCCESS"]},
            }
        ],
        "sends": [{"at": "2s", "producer": "pg", "topic": "ORD", "body": "a"}],
        "run_until": "1m",
    }
    lab = load_scenario(scenario).run()
    assert [e.time_ms for e in lab.trace.of_kind(K.DELIVERED)] == [2000, 2010, 2020]
