"""Tiny fixtures (a fresh lab with one or two brokers), and how `make test` shares the tests between two workers."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from rmqlab import Lab


@pytest.fixture
def lab() -> Lab:
    """One broker, topic ``T`` with 4 queues."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=4)
    return lab


@pytest.fixture
def lab2() -> Lab:
    """Two brokers, topic ``T`` with 2 queues on each."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("T", queues=2)
    return lab


# ---------------------------------------------------------------------- make test: two xdist workers
# `make test` runs pytest with `-n 2 --dist loadgroup`: two worker processes, one per core of the CI machine. The
# scheduler below hands out whole *groups* of tests, each to whichever worker is free, long groups first, so that
# no long test starts last while the other core idles. It only decides where and when a test runs; every test
# runs exactly as in a plain `pytest` run (which calls none of this).
#
# A group is a file: a module-scoped fixture is built once, and a notebook's nbval cells run in order in one
# kernel. Files whose tests share nothing costly and some of which are long are split (SPLIT_*).
# (xdist's own loadgroup reads xdist_group marks by renaming test ids, which pytest 9 no longer allows: hence
# this scheduler, which groups by test id.)
SPLIT_BY_TEST = (
    "tests/test_determinism_interpreters.py",
    "tests/test_fault_storms.py",
    "tests/test_environments.py",
    "tests/test_widgets_controller.py",
    "tests/test_lab_captions.py",
    "tests/test_lab_pictures.py",
)
"""Files whose tests are independent (no module-scoped fixture, nothing one test leaves for another): one group per
test, so that a file with one long test and many short ones does not keep one worker while the other idles."""
SPLIT_BY_PARAM = ("tests/browser/test_labs_browser.py", "tests/test_student_copy.py")
"""Files parametrized by notebook (the browser suite's module-scoped ``lab`` fixture, one kernel per notebook; the
student copy's Run All): one group per notebook id; their tests without a parameter form the file's group."""
LONG_FIRST = (
    "tests/browser/test_lite.py",  # one group: the site is built once (~1/4 of the group), then two Pyodide Run Alls
    "tests/test_widgets_controller.py::test_injected_broker_crash",  # three 6 h runs with a broker down
    "tests/browser/test_labs_browser.py[07a_orderly_locks]",
    "tests/browser/test_labs_browser.py[03_delay_levels_schedule]",
    "tests/test_export.py",  # a module-scoped run exported to SVG, PNG (Chromium) and HTML
    "tests/browser/test_labs_browser.py[04_dead_letter_queue]",
    "tests/browser/test_labs_browser.py[07b_orderly_failover]",
    "tests/browser/test_voila.py",
    "tests/browser/test_labs_browser.py[05_offsets_process_queue]",
    "tests/browser/test_labs_browser.py[06_ordered_send]",
    "tests/browser/test_labs_browser.py[01a_send_retry]",
    "tests/test_nbgrader.py",
    "tests/test_hub_class.py",  # a hub, three servers, two autograded runs (~55 CPU-s)
    "tests/browser/test_view_tabs_browser.py",
    "tests/test_docs.py",
    "tests/test_fault_storms.py::test_ten_thousand_messages_over_24_hours",
    "tests/browser/test_labs_browser.py[00_tour]",
    "tests/test_animation.py",
    "tests/test_lab_captions.py::test_every_dashboard_of_the_lab_steps_plain_cause_first_and_grouped[03",
    "tests/browser/test_labs_browser.py",  # the other notebooks, ~110-140 s each under load
    "tests/test_determinism_interpreters.py::test_every_lab",
    "tests/test_lab_pictures.py::test_every_picture_is_a_run_worth_playing[03",
    "tests/test_checkpoint_masks.py",  # every lab with a checkpoint built once, its views compared at each pause
    "tests/test_lab_captions.py::test_both_send_back_paths",
    "tests/test_leaks.py",  # a wheel build, the docs' staging, the student copy
    "tests/browser/",
    "tests/test_deploy.py",
    "tests/test_determinism_interpreters.py",
    "tests/test_flow_view.py",
    "tests/test_properties.py",
    "tests/test_replay_idle.py",
    "tests/test_fault_storms.py",
    "tests/test_interrupts.py",
    "tests/test_reference_model.py",
    "tests/test_environments.py",  # each test starts a real JupyterLab server
    "tests/test_i18n.py",
    "tests/test_engine_retry.py",
    "tests/test_i18n_labs.py",
    "tests/test_invariants.py",
    "labs/zh/03",
    "labs/03",
    "tests/test_lab_captions.py",
    "tests/test_lab_pictures.py",
    "bench/test_bench_widgets.py",
    "tests/test_student_copy.py[03",
    "tests/test_bad_input.py",
    "tests/test_examples.py",
    "tests/test_determinism.py",
    "labs/",
    "tests/test_student_copy.py",
    "tests/test_widgets_controller.py",
)
"""Groups whose name starts with one of these run first, in this order: the longest first, as measured in a full
two-worker run on 6 Dec (wall time on a loaded machine; the first prefix a group matches gives its place), so that
the end of the run is many short groups that keep both workers busy. The rest follow in collection order. A stale
list only makes the run longer, never different."""


def group_of(nodeid: str) -> str:
    """The group of the test with this id (``path::name[param]``)."""
    path, _, name = nodeid.partition("::")
    if path in SPLIT_BY_TEST:
        return nodeid
    if path in SPLIT_BY_PARAM and name.endswith("]"):
        return f"{path}[{name.split('[', 1)[1]}"
    return path


def _rank(group: str) -> int:
    return next((i for i, prefix in enumerate(LONG_FIRST) if group.startswith(prefix)), len(LONG_FIRST))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under ``--dist loadgroup``: xdist's scope scheduler with :func:`group_of` as the scope, queued in the
    workers' collection order (which the hook below sorts long first)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid)

    config.option.loadscopereorder = False  # keep the order below, not "most tests first"
    return GroupScheduling(config, log)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In a ``--dist loadgroup`` worker: the long groups first, each group's tests in their collected order."""
    if not (hasattr(config, "workerinput") and config.getvalue("loadgroup")):
        return
    first_seen: dict[str, int] = {}
    for i, item in enumerate(items):
        first_seen.setdefault(group_of(item.nodeid), i)

    def key(item: pytest.Item) -> tuple[int, int]:
        group = group_of(item.nodeid)
        return _rank(group), first_seen[group]

    items.sort(key=key)  # stable: a group's tests keep their order


@pytest.fixture
def no_running_loop() -> Iterator[None]:
    """No asyncio loop marked running in this thread, as in a plain script.

    Playwright's sync API (the browser tests, run earlier in the same xdist worker) leaves its loop set as this
    thread's running loop; code that defers work to a running loop (a Controller following the page) would then
    wait for a loop nobody turns."""
    loop = asyncio.events._get_running_loop()
    asyncio.events._set_running_loop(None)
    try:
        yield
    finally:
        asyncio.events._set_running_loop(loop)

