"""How ``check_invariants`` scales with the trace: one message redelivered hundreds of times.

The workload is the worst case issue 15 found: copies of *one* message pile up, each retried locally. Every
``cycle_ms`` the consumer is cut from its broker for most of the cycle and then healed: while cut, the listener's
RECONSUME_LATER cannot be sent back, so the client re-consumes the message itself every 5 s (LOCAL_RETRY); once
healed, the send-back stores a new retry copy (delay level 1, ``maxReconsumeTimes`` unbounded), which is pulled
and fails again. The trace grows linearly with the number of cycles; a checker linear in the trace must too.

    python -m bench.checker_scale --copies 150 300 600 1200      # one child process per size (peak RSS apart)
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Sequence
from typing import Any

from rmqlab import ConsumeConcurrentlyStatus, Lab, Message, after, check_invariants

CUT_MS = 11_000
"""Cut for 11 s of every 14 s cycle: the message is re-consumed locally while cut, re-stored once healed."""
CYCLE_MS = 14_000


def build(copies: int) -> Lab:
    """One message, ``copies`` cut/heal cycles (about two retry copies and two local retries per cycle)."""

    def listener(msgs: Sequence[Any], context: Any) -> Any:
        context.delay_level_when_next_consume = 1
        return after(500, ConsumeConcurrentlyStatus.RECONSUME_LATER)

    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"T": "*"}, name="c1", listener=listener, max_reconsume_times=2**31 - 1)
    lab.at(1000, producer.send, Message("T", "x"))
    for k in range(copies):
        start = 1200 + k * CYCLE_MS
        lab.at(start, lab.partition, "c1", "broker-a")
        lab.at(start + CUT_MS, lab.partition, "c1", "broker-a", heal=True)
    lab.run(until=1200 + copies * CYCLE_MS)
    return lab


def measure(copies: int) -> dict[str, Any]:
    """Build and run the workload, then time the checker and take its peak traced memory (two checks)."""
    lab = build(copies)
    keys = {(e.get("queue"), e.get("queue_offset")) for e in lab.trace.events if e.kind.value == "delivered"}
    started = time.perf_counter()
    cpu = time.process_time()
    report = check_invariants(lab)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    tracemalloc.start()
    check_invariants(lab)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {
        "copies": len(keys),
        "events": len(lab.trace),
        "local_retries": report.counts["redeliveries"],
        "check_wall_s": round(wall, 3),
        "check_cpu_s": round(cpu, 3),
        "check_peak_mib": round(peak / 2**20, 1),
        "ok": report.ok,
        "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--copies", type=int, nargs="+", default=[150, 300, 600, 1200])
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure(args.copies[0])))
        return 0
    print("| cycles | retry copies | events | redeliveries | check CPU s | check peak MiB (tracemalloc) | ok |")
    print("|---|---|---|---|---|---|---|")
    for n in args.copies:
        out = subprocess.run(
            [sys.executable, "-m", "bench.checker_scale", "--child", "--copies", str(n)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        m = json.loads(out)
        print(
            f"| {n} | {m['copies']} | {m['events']:,} | {m['local_retries']:,} | {m['check_cpu_s']} |"
            f" {m['check_peak_mib']} | {m['ok']} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
