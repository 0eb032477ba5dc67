"""Property-based runs: random clusters, listeners, sends, rebalances and faults keep every invariant.

A Hypothesis state machine drives one Lab: rules send messages, let virtual time pass, add, remove,
crash and restart consumers, and inject broker faults. After every rule the full invariant checker
runs; at the end all faults heal, every consumer is running, and 40 virtual minutes pass (scripts fail at
most three times, then succeed), so every message must have reached a final fate.

The suite runs :data:`EXAMPLES` generated clusters (about 15 CPU-s); ``make nightly`` sets
``RMQLAB_FULL_PROPERTIES=1`` for the full campaign of :data:`FULL_EXAMPLES` (about a minute of CPU, 2 min of wall time
on a shared CI machine). Both runs are derandomized: the same clusters every time.
"""

from __future__ import annotations

import os
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from rmqlab import Lab, Message, ScriptedListener, SelectMessageQueueByHash, check_invariants

FULL_EXAMPLES = 300
"""Generated clusters in the full run (``make nightly``: ``RMQLAB_FULL_PROPERTIES=1``)."""
SUITE_EXAMPLES = 75
"""Generated clusters in ``make test``: a quarter of the full run, to keep the suite short; every rule, fault and
check is the same, only fewer random clusters are tried."""
EXAMPLES = FULL_EXAMPLES if os.environ.get("RMQLAB_FULL_PROPERTIES") == "1" else SUITE_EXAMPLES

CASES: dict[str, int] = {"cases": 0, "steps": 0, "messages": 0, "faults": 0, "duplicates": 0}
"""Tally across generated cases, printed by :func:`test_random_clusters_keep_every_invariant` (``-s`` to see it)."""

SETTLE_MS = 40 * 60_000
"""After healing: longer than three retries (10 s + 30 s + 1 min) plus a 2 min listener backlog."""

CONCURRENT_WORDS = ["CONSUME_SUCCESS", "CONSUME_SUCCESS", "RECONSUME_LATER", "null", "raise", {"take": "2s"}]
ORDERLY_WORDS = ["SUCCESS", "SUCCESS", "SUSPEND_CURRENT_QUEUE_A_MOMENT", "null", "raise", {"take": "2s"}]


def results(orderly: bool) -> st.SearchStrategy[list[Any]]:
    """A scripted result list; the last entry repeats, so lists end in a success to let runs settle."""
    words = ORDERLY_WORDS if orderly else CONCURRENT_WORDS
    final = "SUCCESS" if orderly else "CONSUME_SUCCESS"
    return st.lists(st.sampled_from(words), max_size=3).map(lambda xs: [*xs, final])


class ClusterMachine(RuleBasedStateMachine):
    """One cluster, one producer, one consumer group whose members come and go."""

    @initialize(
        brokers=st.integers(1, 3),
        queues=st.integers(1, 8),
        orderly=st.booleans(),
        seed=st.integers(0, 2**16),
        data=st.data(),
    )
    def build(self, brokers: int, queues: int, orderly: bool, seed: int, data: st.DataObject) -> None:
        self.lab = Lab(seed=seed)
        self.broker_names = [f"broker-{'abc'[i]}" for i in range(brokers)]
        for name in self.broker_names:
            self.lab.add_broker(name)
        self.lab.create_topic("T", queues=queues)
        self.producer = self.lab.add_producer("pg")
        self.orderly = orderly
        self.script = data.draw(results(orderly), label="listener results")
        self.members: list[str] = []
        self.crashed: list[str] = []
        self.stopped: list[str] = []
        self.sent = 0
        self.faulted = False
        self.membership_changes = 0
        self._add()
        CASES["cases"] += 1

    # ------------------------------------------------------------------ helpers
    def _add(self) -> None:
        name = f"c{len(self.lab.consumers) + 1}"
        self.lab.add_consumer(
            "cg",
            subscribe={"T": "*"},
            listener=ScriptedListener(self.script, orderly=self.orderly),
            orderly=self.orderly,
            name=name,
        )
        self.members.append(name)

    def _step(self) -> None:
        CASES["steps"] += 1

    # ------------------------------------------------------------------ rules
    @rule(count=st.integers(1, 6), keyed=st.booleans())
    def send(self, count: int, keyed: bool) -> None:
        """SYNC sends now; keyed ones go through the hash selector (one queue per key, for orderly)."""
        for _ in range(count):
            self.sent += 1
            msg = Message("T", f"m{self.sent}", tags="TagA", keys=f"k{self.sent}")
            if keyed:
                self.producer.send_with_selector(msg, SelectMessageQueueByHash, self.sent % 3)
            else:
                self.producer.send(msg)
        CASES["messages"] += count
        self._step()

    @rule(ms=st.sampled_from([10, 500, 3_000, 15_000, 45_000, 120_000]))
    def advance(self, ms: int) -> None:
        """Let virtual time pass."""
        self.lab.run(until=self.lab.now + ms)
        self._step()

    @precondition(lambda self: len(self.lab.consumers) < 4)
    @rule()
    def add_consumer(self) -> None:
        """A new member joins: every member rebalances."""
        self._add()
        self.membership_changes += 1
        self._step()

    @precondition(lambda self: len(self.members) > 1)
    @rule(index=st.integers(0, 3))
    def remove_consumer(self, index: int) -> None:
        """A clean shutdown: offsets persisted, locks released, the others rebalance."""
        name = self.members.pop(index % len(self.members))
        self.lab.consumers[name].shutdown()
        self.stopped.append(name)
        self.membership_changes += 1
        self._step()

    @precondition(lambda self: len(self.members) > 0)
    @rule(index=st.integers(0, 3))
    def crash_consumer(self, index: int) -> None:
        """Kill a member: nothing persisted, its locks stay until they expire."""
        name = self.members.pop(index % len(self.members))
        self.lab.consumers[name].crash()
        self.crashed.append(name)
        self.membership_changes += 1
        self._step()

    def _ended(self) -> list[str]:
        """Crashed or stopped members whose stop has ended (an orderly shutdown may still await an unlock answer)."""
        return [name for name in self.crashed + self.stopped if not self.lab.consumers[name].running]

    @precondition(lambda self: bool(self._ended()))
    @rule()
    def restart_consumer(self) -> None:
        """Start a crashed or stopped member again."""
        name = self._ended()[0]
        (self.crashed if name in self.crashed else self.stopped).remove(name)
        self.lab.consumers[name].start()
        self.members.append(name)
        self.membership_changes += 1
        self._step()

    @rule(index=st.integers(0, 2), down=st.booleans())
    def broker_down_or_up(self, index: int, down: bool) -> None:
        """A broker process stops or comes back."""
        name = self.broker_names[index % len(self.broker_names)]
        (self.lab.broker_down if down else self.lab.broker_up)(name)
        self.faulted = True
        CASES["faults"] += 1
        self._step()

    @rule(
        index=st.integers(0, 2),
        delay=st.sampled_from([0, 1_000, 4_000, 6_000]),
        reject=st.booleans(),
        lose=st.sampled_from([False, False, True]),
    )
    def broker_fault(self, index: int, delay: int, reject: bool, lose: bool) -> None:
        """Slow responses (past the 3 s send / 5 s send-back timeouts), failing send-back and lost responses.

        A lost response resets the client's connection: the broker forgets the pulls it held for it, and the
        client's pull is expired by its response table 31 s after it was sent, then pulled again.
        """
        name = self.broker_names[index % len(self.broker_names)]
        self.lab.set_broker_fault(name, response_delay_ms=delay, reject_send_back=reject, lose_responses=lose)
        self.faulted = True
        CASES["faults"] += 1
        self._step()

    @precondition(lambda self: len(self.members) > 0)
    @rule(index=st.integers(0, 3), broker=st.integers(0, 2), heal=st.booleans())
    def partition(self, index: int, broker: int, heal: bool) -> None:
        """Cut (or heal) one consumer's link to one broker."""
        client = self.members[index % len(self.members)]
        self.lab.partition(client, self.broker_names[broker % len(self.broker_names)], heal=heal)
        self.faulted = True
        CASES["faults"] += 1
        self._step()

    # ------------------------------------------------------------------ checks
    @invariant()
    def invariants_hold(self) -> None:
        """Every invariant holds at every step, mid-fault included."""
        if hasattr(self, "lab"):
            report = check_invariants(self.lab)
            assert report.ok, str(report)

    def teardown(self) -> None:
        """Heal everything, run 40 min, then nothing may still be in flight and nothing lost."""
        if not hasattr(self, "lab"):
            return
        lab = self.lab
        for name in self.broker_names:
            lab.broker_up(name)
            lab.set_broker_fault(name, response_delay_ms=0, reject_send_back=False, lose_responses=False)
        lab.remoting.faults.partitions.clear()
        shutdowns_asked_ms = lab.now
        while len(self._ended()) < len(self.crashed + self.stopped):  # answers already on their way still come
            assert lab.step() and lab.now <= shutdowns_asked_ms + 10_000, "a shutdown never ended"
        for name in self.crashed + self.stopped:
            lab.consumers[name].start()
        lab.run(until=lab.now + SETTLE_MS)
        report = check_invariants(lab)
        assert report.ok, str(report)
        counts = report.counts
        assert counts["lost"] == 0
        assert counts["in_flight"] == 0, str(report)
        assert counts["consumed"] + counts["dlq"] == counts["produced"], str(report)
        CASES["duplicates"] += counts["duplicate_consumptions"]
        if not self.faulted and self.membership_changes == 0:
            # with no fault and no membership change RocketMQ has no reason to deliver anything twice
            assert counts["duplicate_consumptions"] == 0, str(report)
            assert counts["producer_duplicates"] == 0, str(report)


CLUSTER_SETTINGS = settings(
    max_examples=EXAMPLES,
    stateful_step_count=16,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


def test_random_clusters_keep_every_invariant() -> None:
    """The state machine above, :data:`EXAMPLES` generated cases; then the tally shows they really ran (sends,
    faults). The tally is reset first and read in the same test, so the test means the same run alone or beside any
    other."""
    for key in CASES:
        CASES[key] = 0
    run_state_machine_as_test(ClusterMachine, settings=CLUSTER_SETTINGS)
    print(f"\nproperty tally: {CASES}")
    assert CASES["cases"] >= EXAMPLES
    assert CASES["messages"] > 0
    assert CASES["faults"] > 0


def test_lost_pull_responses_do_not_fork_the_pull_loop() -> None:
    """With ``lose_responses`` the client retries a pull in 1 s, but the broker still holds the lost
    request and answers it 15 s later into the same PullRequest: each lost response forks the pull
    loop (16 held pulls at 15 s, 1191 at 45 s). At most one pull per queue should be held."""
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=ScriptedListener(), name="c1")
    lab.set_broker_fault("broker-a", lose_responses=True)
    lab.run(until=45_000)
    assert len(lab.brokers["broker-a"].pull_request_hold_service.held_pulls("T", 0)) <= 1
