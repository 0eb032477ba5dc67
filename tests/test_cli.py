"""The command line: run (timeline / --json), validate, schema, and exit codes without tracebacks."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from rmqlab.lab.cli import main

SCENARIO: dict[str, Any] = {
    "name": "cli",
    "description": "two attempts",
    "seed": 9,
    "brokers": ["broker-a", "broker-b"],
    "topics": [{"name": "TopicTest", "queues": 2}],
    "producers": [{"name": "pg"}],
    "consumers": [
        {
            "group": "cg",
            "name": "c1",
            "subscribe": {"TopicTest": "*"},
            "listener": ["RECONSUME_LATER", "CONSUME_SUCCESS"],
        }
    ],
    "sends": [{"at": "1s", "producer": "pg", "topic": "TopicTest", "body": "b{i}", "count": 3, "interval": "1s"}],
    "run_until": "1m",
}


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    json_file, yaml_file = tmp_path / "s.json", tmp_path / "s.yaml"
    json_file.write_text(json.dumps(SCENARIO, indent=2))
    yaml_file.write_text(yaml.safe_dump(SCENARIO, sort_keys=False))
    return json_file, yaml_file


def test_run_json_has_the_report_keys(files: tuple[Path, Path]):
    """--json prints one object with the report keys; six deliveries for three messages failing once."""
    code, out, err = run("run", str(files[0]), "--json")
    report = json.loads(out)
    assert (code, err) == (0, "")
    assert list(report) == ["end_time_ms", "deliveries", "send_attempts", "dlq", "offsets", "stored"]
    assert report["end_time_ms"] == 60_000
    assert sorted(d["time_ms"] for d in report["deliveries"]) == [1000, 2000, 3000, 11_000, 12_000, 13_000]


def test_yaml_and_json_give_identical_output(files: tuple[Path, Path]):
    """The same scenario as YAML and as JSON prints the same bytes; so do two runs of one file."""
    outputs = [run("run", str(f), "--json")[1] for f in (*files, files[0])]
    assert outputs[0] == outputs[1] == outputs[2]


def test_run_prints_a_timeline(files: tuple[Path, Path]):
    """Without --json: a title line, the interesting events (details wrapped under each, no line over 100
    columns), and a closing summary line: deliveries, consumed, dead letters, end time."""
    code, out, _ = run("run", str(files[1]))
    lines = out.splitlines()
    assert code == 0 and lines[0] == "# cli: two attempts"
    assert sum(" delivered " in line for line in lines) == 6
    events = [line for line in lines[1:-1] if not line.startswith(" " * 18)]
    assert events[-1].split()[:2] == ["13", "s"]
    assert lines[-1] == "# 6 deliveries · 3 consumed · no dead letters · ended at 1 m"
    assert max(len(line) for line in lines) <= 100


def test_run_filters_by_message_and_kind(files: tuple[Path, Path]):
    """--msg keeps one message's events, --kind (repeatable) keeps kinds; the summary still covers the run."""
    code, out, _ = run("run", str(files[0]), "--msg", "M0002", "--kind", "delivered", "--kind", "consumed")
    lines = out.splitlines()
    events = [line.split() for line in lines[1:-1] if not line.startswith(" " * 18)]
    assert code == 0
    assert [(e[0], e[1], e[3], e[4]) for e in events] == [
        ("2", "s", "delivered", "M0002"), ("2", "s", "consumed", "M0002"),
        ("12", "s", "delivered", "M0002"), ("12", "s", "consumed", "M0002"),
    ]  # fmt: skip
    assert lines[-1] == "# 6 deliveries · 3 consumed · no dead letters · ended at 1 m"


def test_bad_filters_exit_2(files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]):
    """An unknown kind is refused by argparse (naming the choices); filters with --json are refused."""
    assert main(["run", str(files[0]), "--kind", "pulls"]) == 2
    assert "invalid choice: 'pulls'" in capsys.readouterr().err
    code, out, err = run("run", str(files[0]), "--json", "--msg", "M0001")
    assert (code, out) == (2, "") and "--json always prints the whole report" in err


def test_validate_and_schema(files: tuple[Path, Path]):
    """validate says ok; schema prints a valid draft 2020-12 schema the example passes."""
    code, out, _ = run("validate", str(files[0]))
    assert code == 0 and out == f"ok: {files[0]}: scenario 'cli' is valid\n"
    code, out, _ = run("schema")
    schema = json.loads(out)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert code == 0 and jsonschema.Draft202012Validator(schema).is_valid(SCENARIO)


@pytest.mark.parametrize("command", ["run", "validate"])
def test_bad_scenario_exits_2_naming_the_path(tmp_path: Path, command: str):
    """A bad field: exit 2, one stderr line with the file and the field path, nothing on stdout."""
    bad = dict(SCENARIO, consumers=[dict(SCENARIO["consumers"][0], max_reconsume_times=-5)])
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    code, out, err = run(command, str(path))
    assert (code, out) == (2, "")
    assert err == (
        f"rmqlab: error: {path}: consumers[0].max_reconsume_times=-5 is not allowed: "
        "expected an int >= -1 (-1: 16 concurrently, unlimited orderly)\n"
    )


def test_missing_file_and_bad_arguments_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """A missing file and unknown arguments are bad input too (argparse prints its usage)."""
    code, _, err = run("run", str(tmp_path / "nope.yaml"))
    assert code == 2 and "file=" in err and "readable" in err
    assert main(["frobnicate"]) == 2
    assert main([]) == 2
    assert "usage: rmqlab" in capsys.readouterr().err


def test_python_dash_m_has_no_traceback(tmp_path: Path):
    """The real ``python -m rmqlab`` process: exit 2 on bad YAML, the error on stderr, no traceback."""
    path = tmp_path / "bad.yaml"
    path.write_text("name: x\nbrokers: [broker-a]\ntopics: [{name: T, brokers: [broker-q]}]\nrun_until: 1s\n")
    proc = subprocess.run([sys.executable, "-m", "rmqlab", "run", str(path)], capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "topics[0].brokers[0]='broker-q'" in proc.stderr and "Traceback" not in proc.stderr
    ok = subprocess.run([sys.executable, "-m", "rmqlab", "schema"], capture_output=True, text=True)
    assert ok.returncode == 0 and json.loads(ok.stdout)["title"] == "rmqlab scenario"
