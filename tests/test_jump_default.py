"""The Jump box opens on the lesson's kind, never on bookkeeping (revA item 15: lab 03 offered "offsets persisted")."""

from __future__ import annotations

import pytest
from rmqlab.widgets import Checkpoint, Controller, Dashboard, demo_lab
from rmqlab.widgets.jump_default import HOUSEKEEPING, default_kind, lesson_kind

from rmqlab import Lab

pytestmark = pytest.mark.usefixtures("no_running_loop")


def failing() -> Lab:
    return demo_lab(listener="fail_all", max_reconsume_times=2, messages=1)


def test_with_no_checkpoint_the_box_opens_on_the_rarest_kind_that_is_not_bookkeeping() -> None:
    c = Controller(failing, horizon="2m")
    assert c.frames is not None and c.outline is not None
    counts: dict[str, int] = {}
    for kind in c.outline.kinds:
        counts[kind.value] = counts.get(kind.value, 0) + 1
    lesson = lesson_kind((), c.frames.kinds)
    lessons = {k: n for k, n in counts.items() if k not in HOUSEKEEPING}
    assert lesson == min(lessons, key=lambda k: (lessons[k], k)) == "dead_lettered"
    assert c.kind_choice.value == "dead_lettered" and c.frames.player_json()["jump_main"] == "dead_lettered"


def test_the_first_checkpoint_s_kind_is_the_default_once_the_run_showed_it() -> None:
    second = Checkpoint(before="send_back", nth=2, ask="where", name="second")
    dash = Dashboard(failing, horizon="2m", checkpoints=[second])
    c = dash.controller
    assert c.frames is not None
    data = dash.controller.player.data
    assert data["jump_main"] == "send_back" and set(data["housekeeping"]) == set(HOUSEKEEPING)
    offered = {value for _label, value in c.kind_choice.options}
    assert {"send_back", "delivered"} <= offered and c.kind_choice.value == "send_back"
    c.kind_choice.value = "delivered"  # the student's pick stays while it is ahead
    c.step_once()
    assert c.kind_choice.value == "delivered"


def test_a_kind_still_to_come_at_the_first_pause_is_not_sent_to_the_page() -> None:
    first = Checkpoint(before="send_back", ask="where", name="first")
    c = Controller(failing, horizon="2m", checkpoints=[first])
    assert c.frames is not None and c.frames.player_json()["jump_main"] == ""  # it would say what comes next


@pytest.mark.parametrize(
    ("ahead", "lesson", "picked"),
    [
        ({"offset_persisted": 17, "send_back": 3, "delivered": 4}, "send_back", "send_back"),
        ({"offset_persisted": 17, "send_back": 0, "delivered": 4, "scheduled": 2}, "send_back", "scheduled"),
        ({"offset_persisted": 17, "rebalanced": 2}, "send_back", "rebalanced"),
        ({"offset_persisted": 1, "delivered": 9}, "", "delivered"),
    ],
)
def test_the_default_prefers_the_lesson_then_the_rarest_real_kind(
    ahead: dict[str, int], lesson: str, picked: str
) -> None:
    assert default_kind(ahead, lesson) == picked
