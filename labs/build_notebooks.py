# ruff: noqa: E501 — the notebook text below keeps cell lines as students read them; nbval, not ruff, checks it.
"""Write the lab notebooks from the cell lists below, then execute them so the saved outputs are real.

Usage::

    .venv/bin/python labs/build_notebooks.py            # write + execute every notebook
    .venv/bin/python labs/build_notebooks.py 03 04      # only notebooks whose name starts with 03 / 04
    .venv/bin/python labs/build_notebooks.py --no-execute

Why a generator: the cells live in reviewable Python text (one string per notebook, jupytext-like
``# %%`` markers), every notebook gets the same Index/Back/Next header, cell ids are stable, and
``tests/test_notebooks.py`` can tell a stale ``.ipynb`` (edited here, not rebuilt) from a fresh one.

Cell markers: ``# %% md`` (markdown), ``# %%`` (code), ``# %% exercise`` (the student's answer cell:
tagged ``exercise`` + ``solution``; ``labs/make_student.py`` replaces each ``answer… = value`` line
with ``answer… = ...``).
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

LABS = Path(__file__).resolve().parent
ANSWER_LINE = re.compile(r"^(answer\w*)\s*=\s*.+$", re.MULTILINE)
STUDENT_KEY = "rmqlab_student_source"


def student_source(source: str) -> str:
    """The answer cell as a student gets it: every ``answer… = value`` becomes ``answer… = ...``."""
    return ANSWER_LINE.sub(lambda m: f"{m.group(1)} = ...  # ← your prediction", source)


def parse_cells(text: str) -> list[dict]:
    """Split a ``# %%``-marked string into (kind, source) cell dicts."""
    cells: list[dict] = []
    kind, lines = None, []
    for line in text.strip("\n").splitlines():
        if line.startswith("# %%"):
            if kind is not None:
                cells.append({"kind": kind, "source": "\n".join(lines).strip("\n")})
            kind, lines = (line[4:].strip() or "code"), []
        else:
            lines.append(line)
    if kind is not None:
        cells.append({"kind": kind, "source": "\n".join(lines).strip("\n")})
    for cell in cells:
        if cell["kind"] not in {"md", "code", "exercise"}:
            raise ValueError(f"unknown cell marker {cell['kind']!r}")
    return cells


def header(names: list[str], index: int) -> str:
    """The Index / Back / Next line at the top of every notebook."""
    links = ["[Index](README.md)"]
    if index > 0:
        links.append(f"[← Back]({names[index - 1]})")
    if index + 1 < len(names):
        links.append(f"[Next →]({names[index + 1]})")
    return " · ".join(links)


def build(name: str) -> nbformat.NotebookNode:
    """The unexecuted notebook ``name`` (stable cell ids, tags, student sources, a content hash)."""
    names = list(NOTEBOOKS)
    text = NOTEBOOKS[name].replace("@SETUP@", SETUP)
    cells = [{"kind": "md", "source": header(names, names.index(name))}, *parse_cells(text)]
    nb = new_notebook()
    stem = name.split("_", 1)[0]
    for i, cell in enumerate(cells):
        if cell["kind"] == "md":
            node = new_markdown_cell(cell["source"])
        else:
            node = new_code_cell(cell["source"])
            if cell["kind"] == "exercise":
                node.metadata["tags"] = ["exercise", "solution"]
                node.metadata[STUDENT_KEY] = student_source(cell["source"])
        node["id"] = f"nb{stem}-{i:02d}"
        nb.cells.append(node)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    nb.metadata["rmqlab"] = {"generator": "labs/build_notebooks.py", "cells_sha256": cells_hash(nb)}
    return nb


def cells_hash(nb: nbformat.NotebookNode) -> str:
    """Hash of every cell's type, source and tags: what "this notebook is up to date" means."""
    data = [[c.cell_type, c.source, c.metadata.get("tags", [])] for c in nb.cells]
    return hashlib.sha256(json.dumps(data).encode()).hexdigest()


def execute(nb: nbformat.NotebookNode) -> None:
    """Run the notebook top to bottom in a fresh python3 kernel (as "Restart and run all" does)."""
    from nbclient import NotebookClient

    # No widget state in the file: a Dashboard's plotly figures would add megabytes; a live kernel redraws them.
    client = NotebookClient(
        nb, kernel_name="python3", timeout=300, store_widget_state=False, resources={"metadata": {"path": str(LABS)}}
    )
    client.execute()
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            text = output.get("text", "") + str(output.get("data", {}).get("text/plain", ""))
            if " at 0x" in text:  # an object address: differs on every run, so nbval would fail
                raise ValueError(f"cell {cell.id} shows an object address: {text[:80]!r}")
    nb.metadata["language_info"] = {"name": "python"}  # drop the kernel's exact version: not ours to pin


def main(argv: list[str]) -> int:
    run = "--no-execute" not in argv
    wanted = [a for a in argv if not a.startswith("--")]
    for name in NOTEBOOKS:
        if wanted and not any(name.startswith(w) for w in wanted):
            continue
        nb = build(name)
        if run:
            execute(nb)
        nbformat.write(nb, LABS / name)
        print(f"wrote {name}{' (executed)' if run else ''}")
    return 0


# ====================================================================== notebook text
# Shared first code cell: seed and imports. Every notebook fixes its seed so nbval sees the same text.
SETUP = """
# %%
from rmqlab import ConsumeConcurrentlyStatus, ConsumeOrderlyStatus, Lab, Message, after, format_duration
from rmqlab.exercises import check, show_trace, table

CONSUME_SUCCESS = ConsumeConcurrentlyStatus.CONSUME_SUCCESS
RECONSUME_LATER = ConsumeConcurrentlyStatus.RECONSUME_LATER
SEED = 7
"""

NOTEBOOKS: dict[str, str] = {}

NOTEBOOKS["00_tour.ipynb"] = r'''
# %% md
# 00 · A tour of rmqlab

**Goal:** build a two-broker cluster, send one message, consume it, and read what happened from the trace.
# %% md
rmqlab runs RocketMQ 4.9.7's client and broker logic in **virtual milliseconds**: a 5-hour retry schedule
runs in a few ms of wall time, and the same seed always gives the same trace.
@SETUP@
# %% md
## `Lab`: the cluster
A `Lab` holds the clock, the name server, the brokers and the clients (`rmqlab/lab.py`).
# %%
lab = Lab(seed=SEED)
lab.add_broker("broker-a")
lab.add_broker("broker-b")
queues = lab.create_topic("TopicTest", queues=4)
# %% md
The topology as text: each broker, its topics, read/write queue counts and `perm` (6 = read+write).
# %%
def topology(lab):
    """One row per (broker, topic): queue counts and permission bits."""
    rows = []
    for name, broker in sorted(lab.brokers.items()):
        for topic, cfg in sorted(broker.topic_config.items()):
            rows.append([name, topic, cfg.read_queue_nums, cfg.write_queue_nums, cfg.perm])
    return table(rows, ["broker", "topic", "read", "write", "perm"])
# %%
print(topology(lab))
# %% md
The producer sees the route as a flat list of `MessageQueue(topic, brokerName, queueId)` —
`TopicPublishInfo.messageQueueList` in `client/.../impl/producer/TopicPublishInfo.java`.
# %%
print([str(mq) for mq in queues])
# %% md
## A tiny run: one message
A consumer's listener returns a status, exactly like `MessageListenerConcurrently.consumeMessage`.
# %%
def always_ok(msgs, ctx):
    """Consume successfully."""
    return CONSUME_SUCCESS
# %%
producer = lab.add_producer("pg")
consumer = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=always_ok, name="c1")
lab.at("1s", producer.send, Message("TopicTest", "hello", tags="TagA", keys="k1"))
_ = lab.run(until="2s")
# %% md
Every observable step is one `TraceEvent(time_ms, kind, actor, msg_id, data)`. Here is the message's life:
# %%
show_trace(lab.trace, msg_id="M0001")
# %% md
Message ids are `M0001`, `M0002`, … in send order; the id (RocketMQ's `UNIQ_KEY`) is kept across retries.
# %% md
## Starting the consumer made the consumer subscribe a second topic
In CLUSTERING mode a consumer also subscribes `%RETRY%<group>` (`RebalanceImpl.copySubscription`).
# %%
show_trace(lab.trace, "rebalanced", fields=("topic", "added"))
# %% md
### Exercise 1 — predict, then run
Two consumers of group `cg` share the 8 queues of `TopicTest` (4 on each broker) with the default
`AllocateMessageQueueAveragely`. How many `TopicTest` queues does the new consumer `c2` get?
# %% exercise
answer_1 = 4
# %%
c2 = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=always_ok, name="c2")
lab.run(until="30s")
mine = [mq for mq in c2.process_queue_table if mq.topic == "TopicTest"]
print(sorted(str(mq) for mq in mine))
# %%
check(answer_1, len(mine), "AVG splits the sorted queue list into equal blocks: 8 queues / 2 consumers = 4 each.")
# %% md
## Driving a run
`lab.at(time, action, *args)` schedules an action; `lab.run(until=...)` advances virtual time;
`lab.step()` runs one event and `lab.scheduler.peek()` shows the next one.
# %%
lab.at("31s", producer.send, Message("TopicTest", "second"))
lab.run(until="32s")
print(format_duration(lab.now), "—", len(lab.trace), "events so far")
# %% md
### Exercise 2 — predict, then run
The trace is deterministic. If we rebuild the same lab with the same seed and the same calls,
will `to_jsonl()` give the same string? (`True` / `False`)
# %% exercise
answer_2 = True
# %%
def replay(seed):
    """Build the tiny scenario again and return its trace as JSON lines."""
    again = Lab(seed=seed)
    again.add_broker("broker-a")
    again.create_topic("TopicTest", queues=2)
    p = again.add_producer("pg")
    again.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=always_ok, name="c1")
    again.at("1s", p.send, Message("TopicTest", "hello"))
    return again.run(until="5s").trace.to_jsonl()
# %%
check(answer_2, replay(SEED) == replay(SEED), "One virtual clock, a seeded RNG and a sequence number per event: no wall time.")
# %% md
## Watch it step by step
That determinism is what the `Dashboard` is built on: it calls a factory for a fresh Lab, and Step / Step back /
Jump replay it to any trace position. The tabs draw the queues, the ProcessQueue TreeMaps, the retry timeline,
the topology, the locks and the event log. Every button has a method twin; below, the controller jumps to the
first `consumed` event and the Queues and Events tabs print as text.
# %%
# NBVAL_IGNORE_OUTPUT — widget repr/model ids change every run
from widgets.dashboard import Dashboard

def tour_lab():
    """The tiny run as a factory: two brokers, TopicTest × 4 queues each, c1, one message at 1 s."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("TopicTest", queues=4)
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=always_ok, name="c1")
    lab.at("1s", producer.send, Message("TopicTest", "hello", tags="TagA", keys="k1"))
    return lab

dash = Dashboard(tour_lab, horizon="10s")
dash
# %%
dash.controller.jump_to_next("consumed")
tabs = {view.title: view.text for view in dash.views}
print(dash.controller.clock_text)
print(tabs["Queues"])
print(tabs["Events"])
# %% md
## Key points
- `Lab` = clock + brokers + clients; everything happens at `lab.at(...)` times.
- The trace is the single source of truth; every table in these labs is printed from it.
- The names (`%RETRY%cg`, `MessageQueue`, `CONSUME_SUCCESS`) are RocketMQ's own.
'''

NOTEBOOKS["01_producer_send_retry.ipynb"] = r'''
# %% md
# 01 · Producer send and its retries

**Goal:** see which sends retry, where the retry goes, and why a timed-out send is *not* retried.
Source: `client/.../impl/producer/DefaultMQProducerImpl.java` (`sendDefaultImpl`), `DefaultMQProducer.java`.
# %% md
Defaults: `sendMsgTimeout` = 3000 ms, `retryTimesWhenSendFailed` = 2 (SYNC: 3 attempts),
`retryTimesWhenSendAsyncFailed` = 2, ONEWAY: 1 attempt.
@SETUP@
# %%
def cluster(**producer_options):
    """Two brokers, TopicTest with 4 queues each, a producer whose round robin starts at 0."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("TopicTest")
    return lab, lab.add_producer("pg", send_which_queue_start=0, **producer_options)
# %%
SEND = ("send_attempt", "send_result", "send_failed")
# %% md
## A tiny run: broker-a dies after the route was cached
# %%
def broker_a_dies():
    """The route is cached by a warm-up send at 1 s, broker-a dies at 2 s, m1 is sent at 3 s."""
    lab, p = cluster()
    lab.at("1s", p.send, Message("TopicTest", "warm-up"))
    lab.at("2s", lab.broker_down, "broker-a")
    lab.at("3s", p.send, Message("TopicTest", "m1"))
    return lab
# %%
lab = broker_a_dies()
lab.run(until="5s")
show_trace(lab.trace, *SEND)
# %% md
Attempt 2 went to **broker-b**: `selectOneMessageQueue(lastBrokerName)` skips queues of the broker that just failed.
No sleep between attempts ("resend at once").
# %% md
### Exercise 1 — predict, then run
Same failure, but the message is sent with `send_oneway`. How many attempts does it get?
# %% exercise
answer_1 = 1
# %%
lab, p = cluster()
lab.at("1s", p.send, Message("TopicTest", "warm-up"))
lab.at("2s", lab.broker_down, "broker-a")
lab.at("3s", p.send_oneway, Message("TopicTest", "fire-and-forget"))
lab.run(until="5s")
show_trace(lab.trace, *SEND, msg_id="M0002")
# %%
check(answer_1, lab.sends[1].attempts, "ONEWAY runs sendDefaultImpl with timesTotal = 1: no retry, the exception ends it.")
# %% md
ASYNC (`send(msg, callback)`) retries only *no-response* failures, re-selecting with last-broker avoidance:
# %%
lab, p = cluster()
lab.at("1s", p.send, Message("TopicTest", "warm-up"))
lab.at("2s", lab.broker_down, "broker-a")
lab.at("3s", p.send_async, Message("TopicTest", "async"))
lab.run(until="5s")
show_trace(lab.trace, *SEND, msg_id="M0002")
# %% md
> **Common belief vs. the source.** "Async send retries on the same broker." — For `send(msg, callback)` the retry
> re-selects a queue avoiding the failed broker (`MQClientAPIImpl.onExceptionImpl`); only `send(msg, mq, cb)` and
> selector sends stay on the same broker. An *error response* is not retried at all.
# %% md
## The shared send timeout
`sendMsgTimeout` is **one budget for all attempts**, checked before each attempt. broker-a now answers after 4 s.
# %% md
### Exercise 2 — predict, then run
How many attempts does a SYNC send to slow broker-a make before the caller sees an error?
# %% exercise
answer_2 = 1
# %%
lab, p = cluster()
lab.set_broker_fault("broker-a", response_delay_ms=4000)
lab.at("1s", p.send, Message("TopicTest", "slow"))
lab.run(until="10s")
show_trace(lab.trace, *SEND, "stored")
# %%
check(answer_2, lab.sends[0].attempts, "The first attempt used the whole 3000 ms; the budget check (timeout < costTime) stops the loop.")
# %% md
> **Common belief vs. the source.** "Sync send retries 2 more times, each with 3 s." — The budget is shared; a timed-out
> first attempt leaves nothing, so the caller gets `sendDefaultImpl call timeout`. Retries help against *fast* failures.
# %% md
Notice the `stored` row: the broker **did** store the message; only the response was late.
## A lost response after the store makes a duplicate
# %% md
### Exercise 3 — predict, then run
broker-a stores the message but the connection drops before the response (`lose_responses=True`).
How many copies of `M0001` end up stored in the cluster?
# %% exercise
answer_3 = 2
# %%
lab, p = cluster()
lab.set_broker_fault("broker-a", lose_responses=True)
lab.at("1s", p.send, Message("TopicTest", "pay order 42"))
lab.run(until="5s")
show_trace(lab.trace, *SEND, "stored")
stored = lab.trace.of_kind("stored")
# %%
check(answer_3, len(stored), "The producer cannot tell 'not stored' from 'response lost', so it retries on broker-b: at-least-once.")
# %% md
Both copies carry the same id `M0001` (`UNIQ_KEY`): consumers deduplicate on it (or on business keys).
# %% md
## Watch it step by step
The tiny run again, in a `Dashboard` (a replay of `broker_a_dies()`; Step / Step back / Jump move through the trace).
Below, the controller seeks to the end of the run and the queue and event tabs print as text: M0002's attempt on
broker-a fails, its retry is stored on broker-b.
# %%
# NBVAL_IGNORE_OUTPUT — widget repr/model ids change every run
from widgets.dashboard import Dashboard

dash = Dashboard(broker_a_dies, horizon="5s")
dash
# %%
dash.controller.seek(dash.controller.end)
tabs = {view.title: view.text for view in dash.views}
print(dash.controller.clock_text)
print(tabs["Queues"])
print(tabs["Events"])
# %% md
## Key points
- SYNC: 1 + `retryTimesWhenSendFailed` attempts, another broker each time, no back-off.
- One 3000 ms budget for all attempts: a timeout is not retried.
- A retry after a lost response stores a duplicate.
'''

NOTEBOOKS["02_concurrent_consumption_retry.ipynb"] = r'''
# %% md
# 02 · Concurrent consumption and retry

**Goal:** learn what counts as a failure, what happens to a failed message, and the 5 s local retry.
Source: `client/.../impl/consumer/ConsumeMessageConcurrentlyService.java`, `DefaultMQPushConsumerImpl.sendMessageBack`.
@SETUP@
# %%
def one_queue_lab(listener, **consumer_options):
    """One broker, a one-queue TopicTest, one consumer c1 of group cg."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    c = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=listener, name="c1", **consumer_options)
    return lab, p, c
# %% md
## A tiny run: four listeners, four answers
# %%
def returns_null(msgs, ctx):
    """Forget to return a status."""
    return None

def raises(msgs, ctx):
    """Throw, like a NullPointerException in business code."""
    raise RuntimeError("db down")

def slow_success(msgs, ctx):
    """Succeed, but after 20 minutes (consumeTimeout is 15 minutes)."""
    return after("20m", CONSUME_SUCCESS)
# %%
rows = []
def reconsume_later(msgs, ctx):
    """Ask for a retry."""
    return RECONSUME_LATER

for listener in (reconsume_later, returns_null, raises, slow_success):
    lab, p, c = one_queue_lab(listener)
    lab.at("1s", p.send, Message("TopicTest", "x"))
    lab.run(until="30m")
    e = lab.trace.of_kind("consumed")[0]
    sent_back = any(b.time_ms == e.time_ms for b in lab.trace.of_kind("send_back"))
    rows.append([getattr(listener, "__name__", "?"), e.get("status"), e.get("return_type"), e.get("took_ms"), sent_back])
print(table(rows, ["listener", "effective status", "ConsumeReturnType", "took_ms", "sent back"]))
# %% md
null and exceptions become `RECONSUME_LATER`. A slow `CONSUME_SUCCESS` stays a success: `TIME_OUT` is a stats label.
> **Common belief vs. the source.** "A consume timeout counts as a failure and is retried." — The listener's status is
> kept; only `cleanExpiredMsg` (every `consumeTimeout` minutes) sends back a *stuck* lowest-offset message.
# %% md
## ackIndex: partial success of a batch
# %%
def first_two_ok(msgs, ctx):
    """Acknowledge msgs[0..1] of the batch; the rest count as failed."""
    ctx.ack_index = 1
    return CONSUME_SUCCESS
# %% md
### Exercise 1 — predict, then run
A batch of 4 messages (`consume_message_batch_max_size=4`) returns `CONSUME_SUCCESS` with `ack_index = 1`.
How many messages are sent back for retry?
# %% exercise
answer_1 = 2
# %%
lab, p, c = one_queue_lab(first_two_ok, consume_message_batch_max_size=4, start="10s")
for i in range(4):
    lab.at("1s", p.send, Message("TopicTest", f"m{i}"))
lab.run(until="11s")
show_trace(lab.trace, "send_back")
# %%
check(answer_1, len(lab.trace.of_kind("send_back")), "processConsumeResult treats indices ackIndex+1 .. size-1 as failed.")
# %% md
## Where a failed message goes: `%RETRY%<group>`
`sendMessageBack` asks the broker (`CONSUMER_SEND_MSG_BACK`) to re-store it under `%RETRY%cg`, delayed.
# %%
def fails_once_lab():
    """One message at 1 s; its first delivery fails, the retry succeeds."""
    lab, p, c = one_queue_lab(lambda m, ctx: RECONSUME_LATER if m[0].reconsume_times == 0 else CONSUME_SUCCESS)
    lab.at("1s", p.send, Message("TopicTest", "x"))
    return lab
# %%
lab = fails_once_lab()
lab.run(until="20s")
show_trace(lab.trace, "delivered", "consumed", "send_back", "scheduled", "stored", msg_id="M0001")
# %% md
The retry is consumed from `%RETRY%cg@broker-a:0`, but the listener sees `topic=TopicTest` (`resetRetryAndNamespace`).
## When send-back fails: the fallback, then the 5 s local retry
First, the broker rejects `CONSUMER_SEND_MSG_BACK` (`reject_send_back=True`): the client produces the retry itself.
# %%
lab, p, c = one_queue_lab(lambda m, ctx: RECONSUME_LATER if m[0].reconsume_times == 0 else CONSUME_SUCCESS)
lab.set_broker_fault("broker-a", reject_send_back=True)
lab.at("1s", p.send, Message("TopicTest", "x"))
lab.run(until="20s")
show_trace(lab.trace, "send_back", "send_back_fallback", "scheduled", msg_id="M0001")
# %% md
Now the link c1 ↔ broker-a breaks while the listener runs: the send-back **and** the fallback (a SYNC send of
`CLIENT_INNER_PRODUCER`, 3 attempts) fail. The message stays in the ProcessQueue and is re-consumed locally.
# %%
def fails_until_20s(msgs, ctx):
    """Take 1 s and fail, until virtual time 20 s."""
    return after("1s", RECONSUME_LATER) if lab.now < 20_000 else CONSUME_SUCCESS
# %% md
### Exercise 2 — predict, then run
The partition heals at 12 s. When the send-back finally succeeds, which `reconsume_times` does the broker store
on the retry copy? (The listener has seen 0, 1, 2.)
# %% exercise
answer_2 = 1
# %%
lab, p, c = one_queue_lab(fails_until_20s)
lab.at("1s", p.send, Message("TopicTest", "x"))
lab.at("1500ms", lab.partition, "c1", "broker-a")
lab.at("12s", lab.partition, "c1", "broker-a", heal=True)
lab.run(until="40s")
show_trace(lab.trace, "delivered", "send_back", "send_back_fallback", "local_retry", "scheduled", "fault")
retry_copy = lab.trace.of_kind("scheduled")[0]
# %%
check(answer_2, retry_copy.get("reconsume_times"), "The local +1s are in client memory only; the broker judges the stored rt (0) → rt 1, level 3.")
# %% md
> **Common belief vs. the source.** "A failed send-back loses the message." — The client falls back to producing a
> `%RETRY%` message; if that fails too it re-consumes locally every 5000 ms, keeping the offset pinned.
# %% md
## More retry queues? Only before the first heartbeat
The broker puts each retry in queue `random % retryQueueNums` of `%RETRY%<group>`, a topic it creates when the
group's first consumer heartbeats. Here an operator raises the group's `retryQueueNums` from 1 to 4 *after* c1
started (`mqadmin updateSubGroup -g cg -q 4`), to spread the retries over four queues.
### Exercise 3 — predict, then run
Four messages fail once, then succeed. How many of them are redelivered in the minute after they fail?
# %% exercise
answer_3 = 1
# %%
lab, p, c = one_queue_lab(lambda m, ctx: RECONSUME_LATER if m[0].reconsume_times == 0 else CONSUME_SUCCESS)
lab.update_subscription_group("cg", retry_queue_nums=4)
for i in range(4):
    lab.at("1s", p.send, Message("TopicTest", f"x{i}"))
lab.run(until="61s")
retries = [e for e in lab.trace.of_kind("stored") if e.get("topic") == "%RETRY%cg"]
redelivered = [e for e in lab.trace.of_kind("delivered") if e.get("reconsume_times") == 1]
print(table([[e.msg_id, e.get("queue_id")] for e in retries], ["retry of", "stored in %RETRY%cg queue"]))
print("redelivered:", [e.msg_id for e in redelivered])
# %%
check(answer_3, len(redelivered), "%RETRY%cg was made with 1 queue at c1's first heartbeat and is never resized: only queue 0 is in its route.")
# %% md
The other retries sit in queues the route does not list. The queue view says so, and the invariant checker
would report them as *stranded*:
# %%
from widgets import take_snapshot
from widgets.queue_view import queue_view_model, queue_view_text

print(queue_view_text(queue_view_model(take_snapshot(lab), kinds=("retry",))))
# %% md
`mqadmin updateTopic -t %RETRY%cg -r 4 -w 4` lists the four queues. The consumer sees the new route on its next
name-server poll (every 30 s) and takes the queues at its next rebalance (every 20 s):
# %%
lab.update_topic("%RETRY%cg", queues=4)
lab.run(until="3m")
show_trace([e for e in lab.trace.of_kind("delivered") if e.get("reconsume_times") == 1], fields=["queue"])
# %% md
> **Common belief vs. the source.** "Raising `retryQueueNums` spreads retries over more queues." — `%RETRY%<group>`
> keeps the queue count it got at the first heartbeat (`createTopicInSendMessageBackMethod` returns an existing topic
> as is), and nothing checks the random queue id against it: the retry is stored in a queue no consumer reads.
> Set it before the group first starts, or run `updateTopic` on the retry topic too.
# %% md
## Watch it step by step
`fails_once_lab()` in a `Dashboard`: Step / Play / Jump replay it. Below, the controller jumps to the moment the
retry copy leaves `SCHEDULE_TOPIC_XXXX` (`delay_delivered`) and three tabs print as text.
# %%
# NBVAL_IGNORE_OUTPUT — widget repr/model ids change every run
from widgets.dashboard import Dashboard

dash = Dashboard(fails_once_lab, horizon="30s")
dash
# %%
dash.controller.jump_to_next("delay_delivered")
tabs = {view.title: view.text for view in dash.views}
print(dash.controller.clock_text)
print(tabs["Queues"])
print(tabs["ProcessQueues"])
print(tabs["Retry timeline"])
# %% md
## Key points
- Failure = `RECONSUME_LATER`, null, an exception, or `ackIndex` < size−1. Slowness is not a failure.
- Failed → `%RETRY%<group>` via the broker, else via the client fallback, else a local retry after 5 s.
- `%RETRY%<group>` keeps the queue count of its creation: raising `retryQueueNums` later strands retries.
'''

NOTEBOOKS["03_delay_levels_schedule.ipynb"] = r'''
# %% md
# 03 · Delay levels and the ScheduleMessageService

**Goal:** derive the whole 16-retry schedule (17 140 s) and see what happens past 16 retries.
Source: `store/.../config/MessageStoreConfig.java` (`messageDelayLevel`), `store/.../schedule/ScheduleMessageService.java`,
`store/.../CommitLog.java` (the level cap).
@SETUP@
# %% md
## The 18 levels
`messageDelayLevel = "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h"`; level = position + 1.
# %%
from rmqlab import DelayLevelTable

levels = DelayLevelTable()
print(table([[lv, format_duration(levels.delay_ms(lv))] for lv in range(1, levels.max_level + 1)], ["level", "delay"]))
# %% md
A failed message with stored `reconsumeTimes` = k is re-stored with level **3 + k** (broker, `SendMessageProcessor`),
parked in `SCHEDULE_TOPIC_XXXX` queue `level − 1`, and moved to `%RETRY%<group>` when due.
# %%
def always_fails(msgs, ctx):
    """Never succeed."""
    return RECONSUME_LATER

def failing_lab(**consumer_options):
    """One broker, one queue, one always-failing consumer; one message sent at t = 0."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=always_fails, name="c1", **consumer_options)
    lab.at(0, p.send, Message("TopicTest", "poison"))
    return lab
# %% md
## A tiny run: the first two retries
# %%
lab = failing_lab()
lab.run(until="45s")
show_trace(lab.trace, "delivered", "scheduled", "delay_delivered")
# %% md
> **Common belief vs. the source.** "The retry interval is 1 s, 5 s, 10 s, 30 s …" — the first retry uses level 3 (10 s):
> `3 + reconsumeTimes`. Levels 1–2 are only used if the listener sets `delayLevelWhenNextConsume`.
# %% md
### Exercise 1 — predict, then run
With the default `maxReconsumeTimes` (−1 → 16 for concurrent consumers), at which virtual second does the
message reach the DLQ?
# %% exercise
answer_1 = 17140
# %%
lab = failing_lab()
lab.run(until="6h")
deliveries = lab.trace.of_kind("delivered")
print(table([[d.get("reconsume_times"), d.time_ms // 1000] for d in deliveries], ["reconsume_times", "delivered at (s)"]))
dlq = lab.trace.of_kind("dead_lettered")[0]
# %%
check(answer_1, dlq.time_ms // 1000, "Levels 3..18 sum to 17 140 s = 4 h 45 min 40 s; the 17th failure (rt 16 ≥ 16) goes to %DLQ%cg.")
# %% md
> **Common belief vs. the source.** "Retries total ≈ 4 h 46 min." — exactly 17 140 s of delay, 17 deliveries, and the
> DLQ copy carries `reconsumeTimes` 17.
# %%
print(len(deliveries), "deliveries; DLQ copy reconsume_times =", dlq.get("reconsume_times"))
# %% md
## Past 16: `max_reconsume_times=20`
### Exercise 2 — predict, then run
The retry scheduled with `reconsume_times` 18 would need level 3 + 17 = 20. Which level does it actually use?
# %% exercise
answer_2 = 18
# %%
lab = failing_lab(max_reconsume_times=20)
lab.run(until="14h")
late = [e for e in lab.trace.of_kind("scheduled") if e.get("reconsume_times") >= 16]
print(table([[e.get("reconsume_times"), e.get("level"), format_duration(e.time_ms)] for e in late], ["rt", "level", "scheduled at"]))
# %%
check(answer_2, next(e for e in late if e.get("reconsume_times") == 18).get("level"), "CommitLog caps the level at maxDelayLevel (18 = 2 h); the max itself is NOT capped at 16.")
# %%
print(len(lab.trace.of_kind("delivered")), "deliveries; DLQ at", lab.trace.of_kind("dead_lettered")[0].time_ms // 1000, "s")
# %% md
> **Common belief vs. the source.** "maxReconsumeTimes > 16 is treated as 16." — the configured value travels in every
> send-back header; only the *delay level* is capped. max 20 → 21 deliveries, DLQ at 45 940 s ≈ 12 h 46 min.
# %% md
## Watch it step by step
`failing_lab` in a `Dashboard` with a `max_reconsume_times` knob (set it, then Rebuild). Below, the controller
jumps to the `dead_lettered` event and the retry timeline prints as text (one delivery per line): 17 deliveries,
16 waits of levels 3..18.
# %%
# NBVAL_IGNORE_OUTPUT — widget repr/model ids change every run
from widgets.dashboard import Dashboard

dash = Dashboard(failing_lab, knobs={"max_reconsume_times": -1}, horizon="14h")
dash
# %%
dash.controller.jump_to_next("dead_lettered")
tabs = {view.title: view.text for view in dash.views}
print(dash.controller.clock_text)
print(tabs["Retry timeline"].replace(" D@", "\n  D@"))
print(tabs["Queues"])
# %% md
## Key points
- Level = 3 + reconsumeTimes; the cap is 18 (2 h); the schedule runs in virtual time.
- 16 retries = 17 deliveries over 17 140 s; more retries each wait 2 h.
'''

NOTEBOOKS["04_dead_letter_queue.ipynb"] = r'''
# %% md
# 04 · The dead-letter queue

**Goal:** know when a message is dead-lettered, where it lands, and how an operator gets it back.
Source: `broker/.../processor/SendMessageProcessor.java`, `common/.../MixAll.java` (`getDLQTopic`),
`broker/.../processor/AbstractSendMessageProcessor.java` (`DLQ_NUMS_PER_GROUP`).
@SETUP@
# %%
bug_fixed = False

def business(msgs, ctx):
    """Fails until the bug is fixed."""
    return CONSUME_SUCCESS if bug_fixed else RECONSUME_LATER

def refund_lab(listener, max_reconsume_times=1):
    """One broker, a one-queue TopicTest, producer pg, consumer c1 of group cg."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    c = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=listener, name="c1", max_reconsume_times=max_reconsume_times)
    return lab, p, c

lab, p, c = refund_lab(business)
# %% md
## A tiny run: `max_reconsume_times=1`
# %%
lab.at("1s", p.send, Message("TopicTest", "refund 17", keys="order-17"))
lab.run(until="1m")
show_trace(lab.trace, "delivered", "send_back", "dead_lettered", msg_id="M0001")
# %% md
The broker's rule (`asyncConsumerSendMsgBack`): **`rt >= max` or `delayLevel < 0` → `%DLQ%<group>`**, no delay.
### Exercise 1 — predict, then run
What is the DLQ topic's exact name, and how many queues does it have? Answer as `("name", queues)`.
# %% exercise
answer_1 = ("%DLQ%cg", 1)
# %%
broker = lab.brokers["broker-a"]
dlq_name = lab.trace.of_kind("dead_lettered")[0].get("topic")
cfg = broker.topic_config[dlq_name]
print(dlq_name, "read/write queues:", cfg.read_queue_nums, cfg.write_queue_nums, "perm:", cfg.perm)
# %%
check(answer_1, (dlq_name, cfg.read_queue_nums), "MixAll.getDLQTopic = '%DLQ%' + group; DLQ_NUMS_PER_GROUP = 1.")
# %% md
> **Common belief vs. the source.** "The DLQ is `%DLQ%group@group`." — `topic@group` is the broker *stats* key format.
> And "DLQ messages cannot be consumed (perm 2)" is true only up to 4.9.1: 4.9.2+ creates it read+write (perm 6).
# %% md
Nobody subscribes to a DLQ by default: it just sits there, and it **expires like any message**
(`fileReservedTime` = 72 h in `MessageStoreConfig`). Check within three days. Watch it happen in a
fresh copy of the tiny run, left alone for 80 virtual hours (the CleanCommitLogService deletes in the 04:00 window):
# %%
old, old_p, _ = refund_lab(lambda msgs, ctx: RECONSUME_LATER, 1)
old.at("1s", old_p.send, Message("TopicTest", "refund 17", keys="order-17"))
old.run(until="80h")
show_trace(old.trace, "dead_lettered", "retention_deleted")
# %% md
## The operator's re-send
Fix the bug, then subscribe a consumer (own group) to `%DLQ%cg` and produce each message again to its real topic.
# %%
def resend(msgs, ctx):
    """Re-produce a dead letter to its original topic (the RETRY_TOPIC property)."""
    for m in msgs:
        p.send(Message(m.properties["RETRY_TOPIC"], m.body, keys=m.keys))
    return CONSUME_SUCCESS
# %% md
### Exercise 2 — predict, then run
The re-sent copy gets a new client id. Which one?
# %% exercise
answer_2 = "M0002"
# %%
bug_fixed = True
ops = lab.add_consumer("dlq-ops", subscribe={"%DLQ%cg": "*"}, listener=resend, name="ops1",
                       consume_from_where="CONSUME_FROM_FIRST_OFFSET")
lab.run(until="2m")
show_trace(lab.trace, "delivered", "consumed", "stored")
resent = [e for e in lab.trace.of_kind("delivered") if e.actor == "consumer:c1" and e.msg_id != "M0001"]
# %%
check(answer_2, resent[0].msg_id, "A re-send is a brand-new message (new UNIQ_KEY); keep business keys to deduplicate.")
# %% md
Fix first, re-send second: re-sending while the bug is still there just makes a new message that dies again.
# %% md
## "Retries off" is not "straight to the DLQ": `retryQueueNums` = 0
An operator wants failed refunds parked in the DLQ at once, without the retry schedule, and runs
`mqadmin updateSubGroup -g cg -q 0` (0 retry queues; here `lab.update_subscription_group("cg", retry_queue_nums=0)`).
Same tiny run, a listener that always fails.
### Exercise 3 — predict, then run
Where does the failed message end up? Answer with a topic name, or `None` for nowhere.
# %% exercise
answer_3 = None
# %%
off, off_p, _ = refund_lab(lambda msgs, ctx: RECONSUME_LATER)
off.update_subscription_group("cg", retry_queue_nums=0)
off.at("1s", off_p.send, Message("TopicTest", "refund 18", keys="order-18"))
off.run(until="1h")
show_trace(off.trace, "admin", "delivered", "send_back", "stored", "dead_lettered")
stored = [m.topic for m in off.brokers["broker-a"].commit_log.live()]
ended_in = next((topic for topic in stored if topic != "TopicTest"), None)
print("topics stored on broker-a:", stored)
# %%
check(answer_3, ended_in, "With retryQueueNums <= 0 the broker answers the send-back SUCCESS and stores nothing: no retry, no DLQ.")
# %% md
The consumer saw `ok=True` and moved its offset on; nothing in the client hints at the loss. The lab's invariant
checker follows every produced message to its fate, and names the cause:
# %%
from rmqlab import check_invariants

print(check_invariants(off))
# %% md
> **Common belief vs. the source.** "`retryQueueNums` 0 disables retry safely." — `asyncConsumerSendMsgBack` returns
> SUCCESS before it even looks at the DLQ rule, so every failed message is silently dropped. To dead-letter at once,
> keep one retry queue and have the listener set `ctx.delay_level_when_next_consume = -1` (or give the consumer
> `max_reconsume_times=0`).
# %% md
## Watch it step by step
The tiny run (bug still in) as a `Dashboard` factory with a `max_reconsume_times` knob. Below, the controller
jumps to the `dead_lettered` event; the queues and the retry timeline print as text.
# %%
# NBVAL_IGNORE_OUTPUT — widget repr/model ids change every run
from widgets.dashboard import Dashboard

def refund_fails(max_reconsume_times=1):
    """The tiny run as a factory: `refund 17` at 1 s, and a listener that always fails."""
    lab, p, _ = refund_lab(lambda msgs, ctx: RECONSUME_LATER, max_reconsume_times)
    lab.at("1s", p.send, Message("TopicTest", "refund 17", keys="order-17"))
    return lab

dash = Dashboard(refund_fails, knobs={"max_reconsume_times": 1}, horizon="2m")
dash
# %%
dash.controller.jump_to_next("dead_lettered")
tabs = {view.title: view.text for view in dash.views}
print(dash.controller.clock_text)
print(tabs["Queues"])
print(tabs["Retry timeline"])
# %% md
## Key points
- DLQ when rt ≥ max (16 by default) or the listener sets delay level −1; name `%DLQ%<group>`, one queue.
- Readable since 4.9.2, unsubscribed by default, deleted after 72 h like everything else.
- `retryQueueNums` 0 does not dead-letter: the failed message is dropped without a trace in the client.
'''

NOTEBOOKS["05_offsets_process_queue.ipynb"] = r'''
# %% md
# 05 · Offsets and the ProcessQueue TreeMap

**Goal:** see why the committed offset is the *smallest* offset still in flight, and what a crash then costs.
Source: `client/.../impl/consumer/ProcessQueue.java` (`removeMessage`), `client/.../consumer/store/RemoteBrokerOffsetStore.java`.
@SETUP@
# %%
def listener(msgs, ctx):
    """Message 'slow' takes 60 s; every other one is instant."""
    return after("60s", CONSUME_SUCCESS) if msgs[0].body == "slow" else CONSUME_SUCCESS

def five_messages():
    """One queue; ok0, slow, ok2, ok3, ok4 sent at 1..5 s."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    c = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=listener, name="c1")
    for i, body in enumerate(["ok0", "slow", "ok2", "ok3", "ok4"]):
        lab.at(f"{1 + i}s", p.send, Message("TopicTest", body))
    return lab, c
# %% md
## A tiny run: look inside the TreeMap at 10 s
# %%
lab, c = five_messages()
lab.run(until="10s")
(mq, pq), = [(mq, pq) for mq, pq in c.process_queue_table.items() if mq.topic == "TopicTest"]
print("msg_tree_map keys:", list(pq.msg_tree_map.keys()))
# %% md
Offsets 2, 3, 4 are done, yet offset 1 is still in the map (its listener is running).
### Exercise 1 — predict, then run
Which offset does the consumer commit for this queue at 10 s?
# %% exercise
answer_1 = 1
# %%
committed = c.offset_store.offset_table[mq]
print("committed:", committed)
# %%
check(answer_1, committed, "removeMessage returns the smallest key still in msgTreeMap: a low-water mark, pinned by the slow message.")
# %% md
> **Common belief vs. the source.** "The committed offset is the last consumed message." — it is the smallest offset still
> in the ProcessQueue (or last + 1 when empty).
## Crash → duplicates
The consumer crashes at 30 s (nothing persisted since) and restarts at 40 s from the broker's offset.
### Exercise 2 — predict, then run
How many messages are delivered a **second** time after the restart?
# %% exercise
answer_2 = 4
# %%
lab, c = five_messages()
lab.at("30s", c.crash)
lab.at("40s", c.start)
lab.run(until="2m")
show_trace(lab.trace, "delivered", "lifecycle", "offset_persisted", fields=("queue_offset", "event", "offset"))
again = [e for e in lab.trace.of_kind("delivered") if e.time_ms >= 40_000]
# %%
check(answer_2, len(again), "Restart from the persisted low-water mark 1: slow, ok2, ok3 and ok4 are consumed again.")
# %% md
At-least-once, never at-most-once: make listeners idempotent.
# %% md
## Watch it step by step
`five_messages()` in a `Dashboard`: scrub through the run and watch offset 1 pin the commit. Below, the controller
steps until the virtual clock reaches 10 s (the tiny run's moment) and the TreeMap and queue tabs print as text.
# %%
# NBVAL_IGNORE_OUTPUT — widget repr/model ids change every run
from widgets.dashboard import Dashboard

dash = Dashboard(lambda: five_messages()[0], horizon="2m")
dash
# %%
while dash.controller.snapshot.now_ms < 10_000 and dash.controller.step_once():
    pass
tabs = {view.title: view.text for view in dash.views}
print(dash.controller.clock_text)
print(tabs["ProcessQueues"])
print(tabs["Queues"])
# %% md
## Key points
- Committed offset = smallest key in `msgTreeMap`; one slow message pins it (`consumeConcurrentlyMaxSpan` 2000 limits the damage).
- Offsets reach the broker every 5 s (`persistConsumerOffsetInterval`) and on pulls; a crash loses the rest.
'''

NOTEBOOKS["06_ordered_send.ipynb"] = r'''
# %% md
# 06 · Ordered send with a MessageQueueSelector

**Goal:** pin each order to one queue, and see what a broker outage does to that mapping.
Source: `DefaultMQProducerImpl.sendSelectImpl`, `client/.../producer/selector/SelectMessageQueueByHash.java`.
@SETUP@
# %%
def by_order_id(mqs, msg, order_id):
    """The classic selector: order_id % len(mqs)."""
    return mqs[order_id % len(mqs)]

def ordered_lab():
    """Two brokers × 4 queues; orders 3 and 5 send one event each at the given seconds."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("TopicTest")
    return lab, lab.add_producer("pg")
# %% md
## A tiny run: two orders, two queues
# %%
lab, p = ordered_lab()
for order_id in (3, 5):
    lab.at("1s", p.send_with_selector, Message("TopicTest", f"order {order_id} created"), by_order_id, order_id)
_ = lab.run(until="2s")
show_trace(lab.trace, "send_attempt", "send_result")
# %% md
The selector sees the route's 8 queues `[a0..a3, b0..b3]`: order 3 → a3, order 5 → b1.
### Exercise 1 — predict, then run
broker-a goes down at 5 s. Order 3's next event is sent at 10 s. How many attempts does that send make?
# %% exercise
answer_1 = 1
# %%
def outage_lab():
    """Orders 3 and 5 send at 1 s, 10 s and 45 s; broker-a goes down at 5 s."""
    lab, p = ordered_lab()
    for t in ("1s", "10s", "45s"):
        for order_id in (3, 5):
            lab.at(t, p.send_with_selector, Message("TopicTest", f"order {order_id} @ {t}"), by_order_id, order_id)
    lab.at("5s", lab.broker_down, "broker-a")
    return lab

lab = outage_lab()
lab.run(until="50s")
show_trace(lab.trace, "send_attempt", "send_failed")
# %%
check(answer_1, lab.sends[2].attempts, "sendSelectImpl makes a single attempt: no retry loop, the error reaches the caller.")
# %% md
That is what makes ordered sending "stick": a retry elsewhere would break the order.
### Exercise 2 — predict, then run
After the producer's route refresh (every 30 s, `pollNameServerInterval`), the list has only broker-b's 4 queues.
Which queue does order 3 use at 45 s? Answer like `"TopicTest@broker-b:3"`.
# %% exercise
answer_2 = "TopicTest@broker-b:3"
# %%
late = [e for e in lab.trace.of_kind("send_attempt") if e.time_ms == 45_000]
where = {e.msg_id: f"TopicTest@{e.get('broker')}:{e.get('queue_id')}" for e in late}
print(where)
# %%
check(answer_2, where["M0005"], "3 % 4 = 3 on the shrunken list: order 3 moved queues, so events before and after the outage may interleave.")
# %% md
## Watch it step by step
`outage_lab()` in a `Dashboard`. Below, the controller seeks to the end of the run (50 s) and the queue tab prints
as text: order 3's events are split between `broker-a:3` and `broker-b:3`.
# %%
# NBVAL_IGNORE_OUTPUT — widget repr/model ids change every run
from widgets.dashboard import Dashboard

dash = Dashboard(outage_lab, horizon="50s")
dash
# %%
dash.controller.seek(dash.controller.end)
tabs = {view.title: view.text for view in dash.views}
print(dash.controller.clock_text)
print(tabs["Queues"])
# %% md
## Key points
- Selector sends: one attempt, same queue; a down broker means failed sends until the route changes.
- `order_id % len(mqs)` depends on the queue count: when the route changes the mapping shifts.
'''

NOTEBOOKS["07_orderly_consumption_locks.ipynb"] = r'''
# %% md
# 07 · Orderly consumption and the three locks

**Goal:** see local retries with `SUSPEND_CURRENT_QUEUE_A_MOMENT`, the DLQ only past an explicit max, and lock timing.
Source: `client/.../impl/consumer/ConsumeMessageOrderlyService.java`, `ProcessQueue.java`,
`broker/.../client/rebalance/RebalanceLockManager.java`.
@SETUP@
# %%
SUSPEND = ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT

def listener(msgs, ctx):
    """Message 'bad' always asks to suspend; others succeed."""
    return SUSPEND if msgs[0].body == "bad" else ConsumeOrderlyStatus.SUCCESS

def orderly_lab(**consumer_options):
    """One queue, an orderly consumer c1; a, bad, c sent at 2, 3, 4 s."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    c = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=listener, orderly=True, name="c1", **consumer_options)
    for i, body in enumerate(["a", "bad", "c"]):
        lab.at(f"{2 + i}s", p.send, Message("TopicTest", body))
    return lab, c
# %% md
## A tiny run: default settings
# %%
lab, c = orderly_lab()
lab.run(until="10s")
show_trace(lab.trace, "delivered", "suspended", fields=("queue_offset", "reconsume_times", "retry_in_ms"))
# %% md
Retries are **local**: same queue, same consumer, every `suspendCurrentQueueTimeMillis` = 1000 ms. `c` waits behind `bad`.
> **Common belief vs. the source.** "Orderly consumers retry 16 times then DLQ." — orderly max −1 means
> `Integer.MAX_VALUE`: the queue retries every second forever. No `%RETRY%` round trip, no 10 s / 30 s schedule.
### Exercise 1 — predict, then run
With `max_reconsume_times=3`, how many times is `bad` delivered before the queue moves on?
# %% exercise
answer_1 = 4
# %%
lab, c = orderly_lab(max_reconsume_times=3)
lab.run(until="3m")
show_trace(lab.trace, "delivered", "scheduled", "dead_lettered", "stored", fields=("queue_offset", "reconsume_times", "level", "real_topic", "topic"))
bad = [e for e in lab.trace.of_kind("delivered") if e.msg_id == "M0002"]
# %%
check(answer_1, len(bad), "rt 0..3 are local tries; at rt 3 ≥ 3 the client sends it to %RETRY%cg and the broker diverts it to %DLQ%cg.")
# %% md
In 4.9.x the DLQ copy keeps `DELAY = 3 + rt` (level 6 = 2 min here) and reaches `%DLQ%cg` only after it (spec §4.3 quirk).
## The three locks
1. the **broker queue lock** (`lockBatchMQ`, CLUSTERING only), 2. the local per-queue lock (`MessageQueueLock`),
3. the ProcessQueue consume lock held around each listener call.
# %%
lab, c = orderly_lab()
lab.run(until="65s")
show_trace(lab.trace, "lock_acquired", "lock_renewed", fields=("queue",))
# %% md
`lockAll` runs 1 s after start, then every 20 s (`REBALANCE_LOCK_INTERVAL`). The client trusts its lock for 30 s
(`REBALANCE_LOCK_MAX_LIVE_TIME`), the broker keeps it for **60 s**.
### Exercise 2 — predict, then run
c1 crashes at 10 s (no unlock). A second consumer c2 of the group started at 11 s. At which second does c2
first acquire the `TopicTest` queue lock?
# %% exercise
answer_2 = 71
# %%
lab, c = orderly_lab()
lab.at("10s", c.crash)
c2 = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=listener, orderly=True, name="c2", start="11s")
lab.run(until="90s")
show_trace(lab.trace, "lock_acquired", "lock_refused", "lifecycle", fields=("queue", "event"))
got = [e for e in lab.trace.of_kind("lock_acquired") if e.actor == "consumer:c2" and e.get("queue") == "TopicTest@broker-a:0"]
# %%
check(answer_2, got[0].time_ms // 1000, "c1 last renewed at 1 s, so the broker entry is expired after 61 s; c2 retries at its rebalances (11 + 20 k s): 71 s.")
# %% md
> **Common belief vs. the source.** "The broker lock expires after 30 s." — broker 60 s; 30 s is the client's own expiry.
# %% md
## Watch it step by step
`orderly_lab` in a `Dashboard` with a `max_reconsume_times` knob. Below, the controller jumps to the second
`suspended` event: `bad` (offset 1) is back in the TreeMap with `c` behind it, and the locks tab shows the broker
lease and the client's own view of it.
# %%
# NBVAL_IGNORE_OUTPUT — widget repr/model ids change every run
from widgets.dashboard import Dashboard

def orderly_run(max_reconsume_times=3):
    """orderly_lab as a zero-argument (knob-only) factory: the Lab alone."""
    return orderly_lab(max_reconsume_times=max_reconsume_times)[0]

dash = Dashboard(orderly_run, knobs={"max_reconsume_times": 3}, horizon="3m")
dash
# %%
for _ in range(2):
    dash.controller.jump_to_next("suspended")
tabs = {view.title: view.text for view in dash.views}
print(dash.controller.clock_text)
print(tabs["ProcessQueues"])
print(tabs["Locks"])
# %% md
## Key points
- Orderly failure = local retry after `suspendCurrentQueueTimeMillis`; unlimited by default; DLQ only with an explicit max.
- Locks: broker lease 60 s, renewed every 20 s, client trusts it for 30 s.
'''

NOTEBOOKS["08_broadcasting_vs_clustering.ipynb"] = r'''
# %% md
# 08 · Broadcasting vs. clustering

**Goal:** compare who gets a message, who retries it, and where offsets live in the two message models.
Source: `DefaultMQPushConsumer.messageModel`, `ConsumeMessageConcurrentlyService.processConsumeResult`,
`client/.../consumer/store/LocalFileOffsetStore.java`.
@SETUP@
# %%
def fails_once(msgs, ctx):
    """Fail the first delivery, succeed on a retry."""
    return RECONSUME_LATER if msgs[0].reconsume_times == 0 else CONSUME_SUCCESS

def two_consumers_lab(model="CLUSTERING"):
    """One broker, 2 queues, consumers c1 and c2 of group cg in the given message model; one message at 1 s."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=2)
    p = lab.add_producer("pg")
    for name in ("c1", "c2"):
        lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=fails_once, name=name, message_model=model)
    lab.at("1s", p.send, Message("TopicTest", "config changed"))
    return lab

def two_consumers(model):
    """two_consumers_lab(model) run for its first minute."""
    return two_consumers_lab(model).run(until="1m")
# %% md
## A tiny run: CLUSTERING (the default)
# %%
show_trace(two_consumers("CLUSTERING").trace, "delivered", "send_back", "broadcast_dropped")
# %% md
### Exercise 1 — predict, then run
In BROADCASTING, how many deliveries of `M0001` happen in total (both consumers, first minute)?
# %% exercise
answer_1 = 2
# %%
lab = two_consumers("BROADCASTING")
show_trace(lab.trace, "delivered", "send_back", "broadcast_dropped", fields=("queue", "reconsume_times"))
# %%
check(answer_1, len(lab.trace.of_kind("delivered")), "Every instance gets every message once; a failure is logged and dropped, never retried.")
# %% md
### Exercise 2 — predict, then run
Does a BROADCASTING consumer subscribe `%RETRY%cg`? (`True` / `False`)
# %% exercise
answer_2 = False
# %%
topics = sorted({e.get("topic") for e in lab.trace.of_kind("rebalanced")})
print(topics)
# %%
check(answer_2, "%RETRY%cg" in topics, "copySubscription adds the retry topic only in CLUSTERING; BROADCASTING has no retry at all.")
# %% md
Offsets: CLUSTERING → on the broker (`RemoteBrokerOffsetStore`); BROADCASTING → a local file per client
(`LocalFileOffsetStore`, `~/.rocketmq_offsets/<clientId>/<group>/offsets.json`).
# %% md
## Watch it step by step
`two_consumers_lab` in a `Dashboard`; the `model` knob switches CLUSTERING / BROADCASTING (then Rebuild). Below,
in BROADCASTING, the controller jumps to the first `broadcast_dropped` event and two tabs print as text.
# %%
# NBVAL_IGNORE_OUTPUT — widget repr/model ids change every run
from widgets.dashboard import Dashboard

dash = Dashboard(
    two_consumers_lab,
    knobs={"model": "BROADCASTING"},
    knob_options={"model": ("CLUSTERING", "BROADCASTING")},
    horizon="1m",
)
dash
# %%
dash.controller.jump_to_next("broadcast_dropped")
tabs = {view.title: view.text for view in dash.views}
print(dash.controller.clock_text)
print(tabs["Queues"])
print(tabs["ProcessQueues"])
# %% md
## Key points
- CLUSTERING: each message to one instance; failures go to `%RETRY%<group>`.
- BROADCASTING: each message to every instance; failures are dropped.
'''

NOTEBOOKS["09_capstone.ipynb"] = r'''
# %% md
# 09 · Capstone: diagnose a misbehaving system

**Goal:** read a trace, name the mechanism at fault, and fix the configuration.
@SETUP@
# %% md
The story: an orderly payment consumer "hangs" — new payments on queue 0 stop being processed,
and nothing shows up in any DLQ. Here is the system as deployed.
# %%
def payments(msgs, ctx):
    """A payment whose body is 'bad-card' can never succeed."""
    if msgs[0].body == "bad-card":
        return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT
    return ConsumeOrderlyStatus.SUCCESS

def deployed_lab(**consumer_options):
    """One queue, an orderly consumer, five payments at 1..5 s, the third one poisoned."""
    lab = Lab(seed=SEED)
    lab.add_broker("broker-a")
    lab.create_topic("Payments", queues=1)
    p = lab.add_producer("pay-producer")
    lab.add_consumer("pay-cg", subscribe={"Payments": "*"}, listener=payments, orderly=True, name="pay-1", **consumer_options)
    for i, body in enumerate(["p1", "p2", "bad-card", "p4", "p5"]):
        lab.at(f"{1 + i}s", p.send, Message("Payments", body))
    return lab

def deployed(**consumer_options):
    """deployed_lab run for its first 10 minutes."""
    return deployed_lab(**consumer_options).run(until="10m")
# %% md
## A tiny look first: the first 12 deliveries
# %%
lab = deployed()
show_trace(lab.trace, "delivered", fields=("queue_offset", "reconsume_times"), limit=12)
# %% md
### Exercise 1 — diagnose
How many times was `bad-card` (M0003) delivered in the first 10 minutes? (Count from the trace.)
# %% exercise
answer_1 = 598
# %%
bad = [e for e in lab.trace.of_kind("delivered") if e.msg_id == "M0003"]
others_done = sorted({e.msg_id for e in lab.trace.of_kind("consumed") if e.get("status") == "SUCCESS"})
print(len(bad), "deliveries of M0003; succeeded:", others_done)
# %%
check(answer_1, len(bad), "Orderly + default maxReconsumeTimes (-1 → Integer.MAX_VALUE): a local retry every 1 s forever, blocking p4 and p5.")
# %% md
### Exercise 2 — fix the config
Choose a `max_reconsume_times` so that `bad-card` gets **6 deliveries** and then goes to the DLQ.
# %% exercise
answer_2 = 5
# %%
def deliveries_of_bad_card(max_reconsume_times):
    """Deliveries of M0003 in 10 minutes with the given max (and the DLQ'd ids)."""
    run = deployed(max_reconsume_times=max_reconsume_times)
    bad = [e for e in run.trace.of_kind("delivered") if e.msg_id == "M0003"]
    return len(bad), [e.msg_id for e in run.trace.of_kind("dead_lettered")]
# %%
if answer_2 is not ...:
    print("your setting:", deliveries_of_bad_card(answer_2))
needed = next(n for n in range(20) if deliveries_of_bad_card(n)[0] == 6)
# %%
check(answer_2, needed, "Orderly with max N gives N + 1 deliveries, then %RETRY% → %DLQ%pay-cg, and the queue moves on.")
# %% md
Then alert on `%DLQ%pay-cg` and re-send after fixing (notebook 04), within the 72 h retention.
# %% md
## Watch it step by step
`deployed_lab` in a `Dashboard`; try the `max_reconsume_times` knob with your fix (then Rebuild). Below, as deployed,
the controller jumps to the third `suspended` event: `bad-card` holds the queue and `p4`, `p5` wait behind it.
# %%
# NBVAL_IGNORE_OUTPUT — widget repr/model ids change every run
from widgets.dashboard import Dashboard

dash = Dashboard(deployed_lab, knobs={"max_reconsume_times": -1}, horizon="10m")
dash
# %%
for _ in range(3):
    dash.controller.jump_to_next("suspended")
tabs = {view.title: view.text for view in dash.views}
print(dash.controller.clock_text)
print(tabs["ProcessQueues"])
print(tabs["Queues"])
# %% md
## Key points
- Read the trace: the same message id at a fixed 1 s interval on one queue = an orderly local retry loop.
- The fix is configuration (`max_reconsume_times`), not code: the default is unlimited for orderly consumers.
'''


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
