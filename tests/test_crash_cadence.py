"""After a broker crash the consumer retries each pull every second, no faster (issue 34 item 6, checked).

A lab dashboard's "Crash broker" on Lab 03's one-broker lab grows a 14 h run to ~100,000 events: each of the two
queues (TopicTest and %RETRY%cg) retries its pull once a second for 50,400 s. That is 4.9.7's cadence, confirmed
in the source: the namesrv drops the dead broker's route, so ``getTopicRouteInfoFromNameServer`` throws
TOPIC_NOT_EXIST and ``updateTopicRouteInfoFromNameServer`` keeps the last route (the broker stays in
``brokerAddrTable``); each pull's connect is refused at once (``RemotingConnectException``); and
``pullMessage``'s catch calls ``executePullRequestLater(pullRequest, pullTimeDelayMillsWhenException)``, which is
``ClientConfig``'s 1000 ms (the impl's own field says 3000, but its constructor copies the ClientConfig value).
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

from rmqlab import ConsumeConcurrentlyStatus, EventKind, Lab, Message


def _fails(msgs: Any, ctx: Any) -> ConsumeConcurrentlyStatus:
    return ConsumeConcurrentlyStatus.RECONSUME_LATER


def test_pulls_to_a_crashed_broker_retry_every_1000_ms_and_nothing_else_repeats() -> None:
    lab = Lab(seed=3)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=_fails, name="c1")
    lab.at(0, producer.send, Message("TopicTest", "poison"))
    lab.at(5000, lab.broker_down, "broker-a")
    lab.run(until="1h")
    after = [e for e in lab.trace if e.time_ms > 5000]
    deferred = [e for e in after if e.kind is EventKind.PULL_DEFERRED]
    for queue in ("TopicTest@broker-a:0", "%RETRY%cg@broker-a:0"):
        times = [e.time_ms for e in deferred if e.get("queue") == queue]
        assert {b - a for a, b in itertools.pairwise(times)} == {1000}
        assert len(times) == 3595
    assert {(e.get("reason"), e.get("delay_ms"), e.get("error")) for e in deferred} == {
        ("exception", 1000, "RemotingConnectException")
    }
    others = Counter(e.kind for e in after if e.kind is not EventKind.PULL_DEFERRED)
    assert sum(others.values()) < 10  # no heartbeat or rebalance WARNING per attempt: the pulls are the bulk
