"""Same seed → same trace in *another interpreter*: other ``PYTHONHASHSEED``, other memory history (issue 15).

``tests/test_determinism.py`` varies the memory history inside one process; this runs the same work in two
fresh interpreters and compares every trace byte for byte (a SHA-256 of ``Trace.to_jsonl()``):

* interpreter A: ``PYTHONHASHSEED=0``, nothing else;
* interpreter B: ``PYTHONHASHSEED=4242``, and before every job a few thousand throwaway objects (instances,
  dicts, sets of strings, bytearrays of odd sizes, some kept, some freed), so the engine's objects get other
  addresses and other hash-ordered neighbours, as in a notebook kernel with history.

The work: every example scenario in ``examples/``, every Lab each lab in ``labs/`` builds (its ``.py`` source
run as a script, which builds exactly the labs the notebook builds; each Lab's final trace, in creation order)
and 50 mixed-fault storm seeds of ``bench.fault_storms`` (short ones: 12 min of faults, 16 messages).

Anything ordered by ``id()``, by the hash of an object or a string, or by set iteration shows up here as a
different digest. Run one child by hand: ``python tests/test_determinism_interpreters.py --child storm:3``.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(p.name for p in (ROOT / "examples").iterdir() if p.suffix in {".json", ".yaml"}
                  and not p.name.endswith(".expected.json"))  # fmt: skip
LABS = sorted(p.name for p in (ROOT / "labs").glob("[0-9][0-9]*.py"))
STORM_SEEDS = range(50)
STORM = {"fault_hours": 0.2, "healed_hours": 0.05, "messages": 16, "fault_count": (4, 10)}


# ---------------------------------------------------------------------- the child (a fresh interpreter)
class _Junk:
    __slots__ = ("a", "b")

    def __init__(self, a: object, b: object) -> None:
        self.a, self.b = a, b


_KEPT: list[object] = []


def _allocate(round_: int) -> None:
    """Throwaway objects of many shapes; about a third kept alive for the rest of the child's life."""
    made: list[object] = []
    for i in range(3000 + 17 * round_):
        made.append(_Junk(i, str(i) * (i % 5)))
        made.append({f"k{i}": i, i: [i]})
        made.append({f"s{i}", f"t{i % 97}"})
        made.append(bytearray(24 + (i * 7) % 200))
    _KEPT.extend(made[::3])
    del made


def _digest(lab: object) -> str:
    return hashlib.sha256(lab.trace.to_jsonl().encode()).hexdigest()  # type: ignore[attr-defined]


def _run_job(job: str) -> list[str]:
    """The digests of one job's traces."""
    kind, _, name = job.partition(":")
    if kind == "probe":  # proof that the two interpreters differ: string hashing orders a set differently
        return [",".join({f"queue-{i}" for i in range(12)})]
    if kind == "example":
        from rmqlab import load_scenario

        return [_digest(load_scenario(ROOT / "examples" / name).run())]
    if kind == "storm":
        from bench.fault_storms import HOUR, storm_plan, storm_scenario
        from rmqlab import load_scenario

        options = dict(STORM)
        until = int((float(options.pop("fault_hours")) + float(options.pop("healed_hours"))) * HOUR)  # type: ignore[arg-type]
        plan = storm_plan(int(name), fault_hours=STORM["fault_hours"], **options)  # type: ignore[arg-type]
        return [_digest(load_scenario(storm_scenario(plan, run_until_ms=until)).run())]
    if kind == "lab":
        import runpy

        import rmqlab.lab

        made: list[object] = []
        original = rmqlab.lab.Lab.__init__

        def recording_init(self: object, *args: object, **kwargs: object) -> None:
            original(self, *args, **kwargs)  # type: ignore[arg-type]
            made.append(self)

        rmqlab.lab.Lab.__init__ = recording_init  # type: ignore[method-assign]
        cwd = os.getcwd()
        os.chdir(ROOT / "labs")  # a lab reads its files relative to its folder, as in Jupyter
        try:
            runpy.run_path(str(ROOT / "labs" / name), run_name="__main__")
        finally:
            os.chdir(cwd)
            rmqlab.lab.Lab.__init__ = original  # type: ignore[method-assign]
        return [_digest(lab) for lab in made]
    raise SystemExit(f"unknown job {job!r}")


def child(argv: list[str]) -> None:
    junk = argv[0] == "--junk"
    jobs = argv[1:] if junk else argv
    out: dict[str, list[str]] = {}
    for round_, job in enumerate(jobs):
        if junk:
            _allocate(round_)
        out[job] = _run_job(job)
    print(json.dumps(out))


# ---------------------------------------------------------------------- the tests
def _in_two_interpreters(jobs: list[str]) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Run ``jobs`` in interpreter A and B at once; return both digest maps."""
    procs = []
    for hash_seed, extra in (("0", []), ("4242", ["--junk"])):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
        procs.append(
            subprocess.Popen(
                [sys.executable, str(Path(__file__).resolve()), "--child", *extra, *jobs],
                cwd=ROOT,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    results = []
    for proc in procs:
        out, err = proc.communicate()
        assert proc.returncode == 0, err[-3000:]
        results.append(json.loads(out.strip().splitlines()[-1]))
    return results[0], results[1]


def _assert_same(jobs: list[str]) -> None:
    a, b = _in_two_interpreters(jobs)
    assert list(a) == jobs and all(a[job] for job in jobs)
    differ = [job for job in jobs if a[job] != b[job]]
    assert not differ, f"traces differ across interpreters: {differ}"


def test_every_example_scenario_gives_the_same_trace_in_another_interpreter() -> None:
    assert len(EXAMPLES) >= 10
    jobs = [f"example:{name}" for name in EXAMPLES]
    a, b = _in_two_interpreters(["probe:", *jobs])
    assert a["probe:"] != b["probe:"]  # the hash seeds really differ (a set of str iterates in another order)
    assert [job for job in jobs if a[job] != b[job] or not a[job]] == []


@pytest.mark.parametrize("part", [0, 1])
def test_every_lab_builds_the_same_traces_in_another_interpreter(part: int) -> None:
    labs = LABS[part::2]
    assert len(LABS) == 14  # 01 and 07 are two labs each (01a, 01b, 07a, 07b)
    _assert_same([f"lab:{name}" for name in labs])


@pytest.mark.parametrize("first", range(0, 50, 10))
def test_fifty_storm_seeds_give_the_same_trace_in_another_interpreter(first: int) -> None:
    _assert_same([f"storm:{seed}" for seed in STORM_SEEDS[first : first + 10]])


if __name__ == "__main__" and sys.argv[1:2] == ["--child"]:
    # Neither interpreter imports rfc3987_syntax: jsonschema (a scenario's first validation) imports it only for its
    # optional "iri" format checks, which the scenario schema never uses, and it builds ~30 Earley parsers on import
    # (~2 CPU-s a child, most of a storm child's time). The engine's work, and so every digest, is the same.
    sys.modules["rfc3987_syntax"] = None  # type: ignore[assignment]
    child(sys.argv[2:])
