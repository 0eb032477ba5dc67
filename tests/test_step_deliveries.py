"""A Step never passes over a delivery: each of a message's deliveries lands on its own step, also when it repeats
an earlier one (an orderly message delivered again after each suspension, one reconsumeTimes higher), up to
``DELIVERY_STEPS`` of them in a row.

revB's review (defect 5): lab 07a's tiny run stepped from 4 s to 6 s with bad's 5 s delivery inside "(and 8 more)",
lab 09's fixed run from 5 s to 8 s, lab 07b's batch from 2 s to 4 s, while their questions ask the student to count
those deliveries. The narrator folds repeats into one caption group (``Caption.fresh``), and a Step landed only on a
fresh event; a failing pull repeated every second still folds into one step.
"""

from __future__ import annotations

from rmqlab.widgets.replay import Replay
from rmqlab.widgets.stepper import DELIVERY_STEPS, Stepper

from rmqlab import ConsumeOrderlyStatus, Lab, Message


def _suspending_lab(max_reconsume_times: int) -> Lab:
    """a, bad, c on one queue of an orderly consumer; bad always suspends (the queue pauses 1 s each time)."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg", send_which_queue_start=0)

    def listener(msgs, ctx):  # type: ignore[no-untyped-def]
        bad = msgs[0].body == "bad"
        return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT if bad else ConsumeOrderlyStatus.SUCCESS

    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=listener, orderly=True, name="c1",
                     max_reconsume_times=max_reconsume_times)
    for i, body in enumerate(("a", "bad", "c")):
        lab.at(f"{2 + i}s", p.send, Message("TopicTest", body))
    return lab


def _deliveries_per_step(max_reconsume_times: int, horizon: str) -> list[list[int]]:
    """Per Step from the start: the times (ms) of the deliveries of bad (M0002) it appended."""
    stepper = Stepper(Replay(lambda: _suspending_lab(max_reconsume_times), horizon=horizon))
    steps = []
    before = stepper.replay.position
    while stepper.step():
        trace = stepper.replay.lab.trace
        steps.append([trace[k].time_ms for k in range(before, stepper.replay.position)
                      if trace[k].kind.value == "delivered" and trace[k].msg_id == "M0002"])
        before = stepper.replay.position
    return steps


def test_each_repeated_delivery_of_a_message_is_its_own_step() -> None:
    """bad is delivered at 3, 4, 5 and 6 s (max_reconsume_times 3): four steps, one delivery each, none of them
    inside another step's count."""
    steps = _deliveries_per_step(3, "20s")
    assert [s for s in steps if s] == [[3000], [4000], [5000], [6000]]


def test_past_the_limit_the_repeats_fold_into_one_step() -> None:
    """Unlimited local retries (the default): bad is delivered every second; the first ``DELIVERY_STEPS`` are a step
    each, the ones after them share steps (a run of hours stays a few steps, not thousands)."""
    steps = [s for s in _deliveries_per_step(-1, f"{DELIVERY_STEPS + 20}s") if s]
    assert [len(s) for s in steps[:DELIVERY_STEPS]] == [1] * DELIVERY_STEPS
    assert len(steps) < DELIVERY_STEPS + 20 and sum(len(s) for s in steps) >= DELIVERY_STEPS + 15
