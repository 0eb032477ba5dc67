"""A step with several rebalance results leads with the business topic's (issue 30: lab 00's steps at 2 s and 45 s
led with "c1 now reads 1 queue of %RETRY%cg (0 on broker-a)" while the TopicTest hand-over the lab is about was
"(and 1 more)"), and a consumer's queues on two brokers say which broker has which."""

from __future__ import annotations

from rmqlab import ConsumeConcurrentlyStatus as C
from rmqlab import EventKind as K
from rmqlab import Lab
from rmqlab.narrate import narrate, step_caption


def _tour() -> Lab:
    """Lab 00's run, without messages: TopicTest × 4 on two brokers, c1, c2 from 2 s to 45 s."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("TopicTest", queues=4)

    def ok(msgs: object, ctx: object) -> C:
        return C.CONSUME_SUCCESS

    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=ok, name="c1")
    lab.at("2s", lambda: lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=ok, name="c2"))
    lab.at("45s", lambda: lab.consumers["c2"].shutdown())
    return lab.run(until="50s")


def test_a_step_of_rebalances_leads_with_the_business_topic() -> None:
    captions = narrate(_tour().trace)
    for time_ms, said in (
        (2_000, "c1 now reads 4 queues of TopicTest (0, 1, 2, 3 on broker-a). (and 1 more: see the Events tab)"),
        (
            45_000,
            "c1 now reads 8 queues of TopicTest (0, 1, 2, 3 on broker-a; 0, 1, 2, 3 on broker-b). "
            "(and 1 more: see the Events tab)",
        ),
    ):
        step = [c for c in captions if c.time_ms == time_ms and c.kind is K.REBALANCED and c.actor == "consumer:c1"]
        assert [c.topic for c in step] == ["%RETRY%cg", "TopicTest"]  # the trace has the retry topic's first
        caption = step_caption(step)
        assert caption.plain == said
        assert caption.source.startswith("in the source: RebalanceImpl.rebalanceByTopic: c1 now owns TopicTest@")
