"""Random-interrupt campaign (issue 34 item 2): Ctrl-C at random points of storms, then resume; same end?

For each seed, one mixed-fault storm (:mod:`bench.fault_storms`: 1 h of faults, 6 h healed, 40 messages) runs
twice: once straight through, once with real SIGINTs (``signal.raise_signal``) raised at random scheduler steps and
at a random depth of Python calls within each step (a profile hook counts the calls), never inside a listener (a
Ctrl-C there is a failed consume, by design). After each ``KeyboardInterrupt`` the interrupted run simply goes on
(``lab.step()`` to the next target, ``lab.run(until)`` through it). A storm is *clean* when every interrupt stopped
``run()`` exactly once, the resumed run's trace, clock, invariant counts and message fates equal the straight run's,
and the storm drained (``check_invariants``: ok, settled, nothing in flight or lost).

    python -m bench.interrupt_campaign --seeds 0:50 --interrupts 30
"""

from __future__ import annotations

import argparse
import random
import signal
import sys
import time
from collections.abc import Sequence
from types import FrameType
from typing import Any

from bench.fault_storms import HOUR, build_storm, is_drained
from rmqlab import Lab, check_invariants

FAULT_HOURS = 1
HEALED_HOURS = 6
UNTIL = (FAULT_HOURS + HEALED_HOURS) * HOUR


class SigintInjector:
    """A ``sys.setprofile`` hook raising one real SIGINT at the ``call``-th Python call of step ``step`` (or, if that
    step makes fewer calls or is in a listener then, at the first call outside a listener after it)."""

    def __init__(self, lab: Lab, step: int, call: int) -> None:
        self.lab = lab
        self.step = step
        self.call = call
        self.calls = 0
        self.sent = False

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call" or self.sent:
            return
        scheduler = self.lab.scheduler
        if scheduler.steps < self.step:
            return
        self.calls += 1
        if (self.calls >= self.call or scheduler.steps > self.step) and not scheduler.in_user_code:
            self.sent = True
            signal.raise_signal(signal.SIGINT)


def run_interrupted(lab: Lab, until: int, targets: dict[int, int]) -> tuple[int, int]:
    """Run ``lab`` to ``until``, with a SIGINT in each targeted step (step number → call index), resuming after each
    interrupt; returns (SIGINTs raised, KeyboardInterrupts caught).

    ``lab.step()`` brings the run to the step before each target (the profile hook slows every call it sees), then
    ``lab.run(until)`` goes on under the hook until the interrupt stops it; the last ``lab.run(until)`` ends the run.
    """
    sent = caught = 0
    for step in sorted(targets):
        while lab.scheduler.steps < step - 1:
            lab.step()
        injector = SigintInjector(lab, step, targets[step])
        sys.setprofile(injector)
        try:
            lab.run(until=until)
        except KeyboardInterrupt:
            caught += 1
        finally:
            sys.setprofile(None)
        sent += injector.sent
    lab.run(until=until)
    return sent, caught


def fingerprint(lab: Lab) -> tuple[Any, ...]:
    """What must not change: the clock, every trace event, the checker's counts, violations and fates."""
    report = check_invariants(lab)
    return (
        lab.now,
        [(e.time_ms, e.kind, e.actor, e.msg_id, sorted(e.data.items(), key=str)) for e in lab.trace],
        dict(report.counts),
        sorted(str(v) for v in report.violations),
        report.fates,
        {name: c.running for name, c in lab.consumers.items()},
    )


def storm(seed: int) -> Lab:
    return build_storm(seed, fault_hours=FAULT_HOURS, healed_hours=HEALED_HOURS, messages=40)


def run_seed(seed: int, interrupts: int) -> dict[str, Any]:
    """One seed: the straight run, the interrupted run, and the comparison."""
    started = time.perf_counter()
    straight = storm(seed).run(until=UNTIL)
    steps = straight.scheduler.steps
    rng = random.Random(f"interrupts:{seed}")
    targets = {rng.randrange(1, steps): rng.randrange(1, 40) for _ in range(interrupts)}
    lab = storm(seed)
    sent, caught = run_interrupted(lab, UNTIL, targets)
    same = fingerprint(lab) == fingerprint(straight)
    drained = is_drained(check_invariants(lab))
    return {
        "seed": seed,
        "steps": steps,
        "sent": sent,
        "caught": caught,
        "same": same,
        "drained": drained,
        "clean": same and drained and sent == caught,
        "wall_s": round(time.perf_counter() - started, 1),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seeds", default="0:50", help="first:end (end excluded)")
    parser.add_argument("--interrupts", type=int, default=30, help="SIGINTs aimed at each storm")
    args = parser.parse_args(argv)
    # a background job (``cmd &``, nohup) starts with SIGINT ignored, and the engine leaves an ignored SIGINT alone:
    # give the campaign Python's own Ctrl-C handler, as a terminal or a Jupyter kernel has
    signal.signal(signal.SIGINT, signal.default_int_handler)
    first, end = (int(x) for x in args.seeds.split(":"))
    records = []
    for seed in range(first, end):
        record = run_seed(seed, args.interrupts)
        records.append(record)
        print(record, flush=True)
    clean = sum(r["clean"] for r in records)
    print(
        f"interrupt campaign: {clean} / {len(records)} storms clean; {sum(r['caught'] for r in records)} interrupts "
        f"caught of {sum(r['sent'] for r in records)} raised; {sum(r['wall_s'] for r in records):.0f} s wall"
    )
    return 0 if clean == len(records) else 1


if __name__ == "__main__":
    sys.exit(main())
