"""A classroom under load (issue 15 item 6): a real JupyterHub, 20 students, labs 03 and 07 at once.

The hub (``jupyterhub`` from PyPI, ``configurable-http-proxy`` from npm) runs on 127.0.0.1 with the dummy
authenticator and the simple local-process spawner. Each student is created and logged in through the
hub's REST API (a user token of their own), starts a single-user server, and runs every code cell of lab 03
and lab 07 in two kernels of that server at the same time, over the server's kernel websocket. Every text
output must equal the saved notebook's (nbval's comparison: stream text, ``text/plain`` and ``text/html``,
widget views and images left out), no kernel may die or restart, and the hub must answer its API all along.

Too slow for the default run (about 3-6 minutes on two cores): it runs only with ``RMQLAB_HUB_LOAD=1``, which
``make hub-load`` sets, and skips with a reason when jupyterhub or the proxy is missing. The figures it
prints (time to all done, memory per student server) are recorded in bench/README.md.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from hubs import proxy_command, running_hub

ROOT = Path(__file__).resolve().parents[1]
LABS = ("03_delay_levels_schedule.ipynb", "07a_orderly_locks.ipynb")
STUDENTS = int(os.environ.get("RMQLAB_HUB_STUDENTS", "20"))
COMPARED = ("text/plain", "text/html")
"""The mime types compared, as nbval does without a sanitizer (widget views carry fresh model ids)."""

pytestmark = [
    pytest.mark.slow,
    pytest.mark.hub,
    pytest.mark.skipif(os.environ.get("RMQLAB_HUB_LOAD") != "1", reason="a 3-6 minute load test: make hub-load"),
    pytest.mark.skipif(proxy_command() is None, reason="configurable-http-proxy (npm) missing: make test installs it"),
]
jupyterhub = pytest.importorskip("jupyterhub", reason="jupyterhub is not installed (pip install jupyterhub)")
psutil = pytest.importorskip("psutil")
httpclient = pytest.importorskip("tornado.httpclient")
websocket = pytest.importorskip("tornado.websocket")


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[dict[str, Any]]:
    """A running hub (tests/hubs.py): its URL, the admin service token and the process; stopped with every server
    after. The hub's log (every server's too: the spawner's children inherit it) is kept in artifacts/hub-load/."""
    logs = ROOT / "artifacts" / "hub-load"
    logs.mkdir(parents=True, exist_ok=True)
    # Kernels over IPC: with TCP, 40 kernels starting at once on one host race for "free" ports (jupyter_client
    # picks a port, closes it, the kernel binds it later) and one dies with "Address already in use".
    args = [f"--ServerApp.root_dir={ROOT / 'labs'}", "--ServerKernelManager.transport=ipc"]
    env = {"PYTHONPATH": str(ROOT), "MPLBACKEND": "agg"}
    try:
        with running_hub(tmp_path, args=args, environment=env, log=logs / "hub.log", scopes=("read:hub",)) as running:
            yield {"url": running.url, "token": running.token, "proc": running.proc, "log": running.log}
    finally:
        for child in _servers():  # any server the hub could not stop
            child.kill()


def _servers() -> list[Any]:
    """This test's single-user server processes (their environment names a JUPYTERHUB_USER of ours)."""
    found = []
    for p in psutil.process_iter(["cmdline"]):
        cmd = p.info["cmdline"] or []
        if any(part.endswith("jupyterhub-singleuser") for part in cmd):
            try:
                if p.environ().get("JUPYTERHUB_USER", "").startswith("student"):
                    found.append(p)
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
    return found


def _rss_mib(proc: Any) -> float:
    """Resident memory of a server with its kernels (its child processes), in MiB."""
    total = 0
    for p in [proc, *proc.children(recursive=True)]:
        try:
            total += p.memory_info().rss
        except psutil.NoSuchProcess:
            continue
    return total / 2**20


# ---------------------------------------------------------------------- talking to the hub and the servers
class Api:
    def __init__(self, base: str) -> None:
        self.base = base
        self.http = httpclient.AsyncHTTPClient(max_clients=200)

    async def call(self, method: str, path: str, token: str, body: Any = None, timeout: float = 60) -> Any:
        response = await self.http.fetch(
            self.base + path,
            method=method,
            headers={"Authorization": f"token {token}"},
            body=None if body is None and method == "GET" else json.dumps(body or {}),
            allow_nonstandard_methods=True,
            request_timeout=timeout,
            raise_error=True,
        )
        return json.loads(response.body) if response.body else None


def _expected(cell: Any) -> list[tuple[str, str]]:
    return _texts(cell.get("outputs", []))


def _texts(outputs: list[Any]) -> list[tuple[str, str]]:
    """nbval's view of a cell's outputs: (kind, text) for streams, the compared mime types and errors."""
    texts: list[tuple[str, str]] = []
    for out in outputs:
        kind = out["output_type"]
        if kind == "stream":
            text = "".join(out["text"]) if isinstance(out["text"], list) else out["text"]
            if texts and texts[-1][0] == f"stream:{out['name']}":  # nbval merges adjacent streams too
                texts[-1] = (texts[-1][0], texts[-1][1] + text)
            else:
                texts.append((f"stream:{out['name']}", text))
        elif kind in ("execute_result", "display_data"):
            for mime in COMPARED:
                if mime in out["data"]:
                    value = out["data"][mime]
                    texts.append((mime, "".join(value) if isinstance(value, list) else value))
        elif kind == "error":
            texts.append(("error", f"{out['ename']}: {out['evalue']}"))
    return texts


async def _run_notebook(api: Api, user: str, token: str, name: str) -> dict[str, Any]:
    """Run every code cell of ``name`` in a fresh kernel of ``user``'s server; compare with the saved outputs."""
    nb = nbformat.read(ROOT / "labs" / name, as_version=4)
    kernel = await api.call("POST", f"/user/{user}/api/kernels", token, {"name": "python3", "path": name})
    url = api.base.replace("http", "ws", 1) + f"/user/{user}/api/kernels/{kernel['id']}/channels"
    request = httpclient.HTTPRequest(url, headers={"Authorization": f"token {token}"}, request_timeout=120)
    conn = await websocket.websocket_connect(request)
    session, mismatches, states = uuid.uuid4().hex, [], set()
    cells = compared = 0
    try:
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code" or "NBVAL_SKIP" in cell.source:
                continue
            cells += 1
            msg_id = uuid.uuid4().hex
            await conn.write_message(
                json.dumps(
                    {
                        "header": {
                            "msg_id": msg_id,
                            "msg_type": "execute_request",
                            "username": user,
                            "session": session,
                            "date": "",
                            "version": "5.3",
                        },
                        "parent_header": {},
                        "metadata": {},
                        "content": {
                            "code": cell.source,
                            "silent": False,
                            "store_history": True,
                            "user_expressions": {},
                            "allow_stdin": False,
                            "stop_on_error": True,
                        },
                        "channel": "shell",
                        "buffers": [],
                    }
                )
            )
            outputs: list[Any] = []
            idle = replied = False
            while not (idle and replied):
                raw = await asyncio.wait_for(conn.read_message(), timeout=300)
                if raw is None:
                    raise AssertionError(
                        f"{user} {name}: the kernel websocket closed at cell {index}"
                        f" (code {conn.close_code}, reason {conn.close_reason!r})"
                    )
                if isinstance(raw, bytes):
                    continue  # a binary (widget buffer) frame: never compared
                msg = json.loads(raw)
                kind = msg["header"]["msg_type"]
                if kind == "status":
                    states.add(msg["content"]["execution_state"])
                if msg.get("parent_header", {}).get("msg_id") != msg_id:
                    continue
                if kind == "status" and msg["content"]["execution_state"] == "idle":
                    idle = True
                elif kind == "execute_reply":
                    replied = True
                elif kind in ("stream", "execute_result", "display_data", "error"):
                    outputs.append({"output_type": kind, **msg["content"]})
                elif kind == "clear_output":
                    outputs.clear()
            if "NBVAL_IGNORE_OUTPUT" not in cell.source:
                compared += len(_expected(cell))
                if _texts(outputs) != _expected(cell):
                    mismatches.append(index)
        status = await api.call("GET", f"/user/{user}/api/kernels/{kernel['id']}", token)
    finally:
        conn.close()
    return {
        "cells": cells,
        "compared": compared,
        "mismatches": mismatches,
        "states": states,
        "final": status["execution_state"],
    }


async def _classroom(hub: dict[str, Any]) -> dict[str, Any]:
    api, admin = Api(hub["url"]), hub["token"]
    deadline = time.monotonic() + 120
    while True:  # the hub is up when its API answers
        try:
            await api.call("GET", "/hub/api/", admin, timeout=5)
            break
        except Exception:
            if time.monotonic() > deadline or hub["proc"].poll() is not None:
                raise AssertionError("the hub did not start:\n" + hub["log"].read_text()[-3000:]) from None
            await asyncio.sleep(0.5)

    latencies: list[float] = []
    failures: list[str] = []
    done = asyncio.Event()

    async def watch_hub() -> None:
        while not done.is_set():
            started = time.monotonic()
            try:
                await api.call("GET", "/hub/api/", admin, timeout=10)
                latencies.append(time.monotonic() - started)
            except Exception as exc:
                failures.append(f"{type(exc).__name__}: {exc}")
            await asyncio.sleep(1)

    async def student(i: int) -> dict[str, Any]:
        user = f"student{i:02d}"
        await api.call("POST", f"/hub/api/users/{user}", admin)
        token = (await api.call("POST", f"/hub/api/users/{user}/tokens", admin, {"note": "load test"}))["token"]
        await api.call("POST", f"/hub/api/users/{user}/server", admin, timeout=300)
        while not (await api.call("GET", f"/hub/api/users/{user}", admin))["servers"].get("", {}).get("ready"):
            await asyncio.sleep(1)
        runs = await asyncio.gather(*(_run_notebook(api, user, token, lab) for lab in LABS))
        return {"user": user, "runs": dict(zip(LABS, runs, strict=True))}

    started = time.monotonic()
    watcher = asyncio.ensure_future(watch_hub())
    results = await asyncio.gather(*(student(i) for i in range(1, STUDENTS + 1)))
    elapsed = time.monotonic() - started
    memory = sorted(_rss_mib(p) for p in _servers())  # kernels still running: the server at its fullest
    done.set()
    await watcher
    return {"results": results, "elapsed_s": elapsed, "latencies": latencies, "failures": failures, "mib": memory}


def test_twenty_students_run_labs_03_and_07_at_once(hub: dict[str, Any]) -> None:
    """Every output equals the saved notebook's, no kernel dies, the hub answers every second throughout."""
    report = asyncio.run(_classroom(hub))
    latencies, memory = report["latencies"], report["mib"]
    print(
        f"\nhub load: {STUDENTS} students x {len(LABS)} labs, all done in {report['elapsed_s']:.1f} s; "
        f"hub API latency median {statistics.median(latencies) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms "
        f"({len(latencies)} polls); memory per student server (server + 2 kernels) "
        f"median {statistics.median(memory):.0f} MiB, max {max(memory):.0f} MiB, total {sum(memory):.0f} MiB"
    )
    assert report["failures"] == []
    assert len(memory) == STUDENTS
    for result in report["results"]:
        for lab, run in result["runs"].items():
            assert (result["user"], lab, run["mismatches"]) == (result["user"], lab, [])
            assert run["cells"] > 5 and run["compared"] > 5  # the saved notebooks have outputs to compare
            assert run["final"] != "dead" and not run["states"] & {"restarting", "dead"}
