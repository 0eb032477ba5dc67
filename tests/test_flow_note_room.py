"""A ProcessQueue's note line ("suspended · again in 1 s") lies below its tokens' reconsume badges: lab 07a's tiny
run drew "suspended · again in (hidden)" across token 2's badge (revF lesser item)."""

from __future__ import annotations

from rmqlab.widgets.flow_layout import flow_scene
from rmqlab.widgets.flow_view import flow_view_model
from rmqlab.widgets.frames import build_run
from rmqlab.widgets.scene_badge import badge_box
from test_checkpoint_choices import orderly_suspend  # tests/ is on sys.path (pytest prepend import mode)

ASCENT = 9.0
"""How far 11 px text reaches above its baseline (the note is drawn at 11 px: ``rq-small``)."""


def test_a_process_queue_note_clears_its_tokens_badges() -> None:
    checked = 0
    for snap in build_run(orderly_suspend, horizon="12s").snapshots:
        vm = flow_view_model(snap)
        scene = flow_scene(vm)
        marks = {m.key: m for m in scene.marks}
        for p in vm.places:
            note = marks.get(f"note:{p.key}")
            badged = [marks[t.key] for t in vm.tokens_at(p.key) if t.key in marks and marks[t.key].badge]
            if note is None or not badged or not p.key.startswith("pq:"):
                continue
            checked += 1
            lowest = max(m.y + badge_box(m)[1] + badge_box(m)[3] for m in badged)
            assert note.y - ASCENT >= lowest, (snap.now_ms, p.key, note.text, note.y, lowest)
    assert checked > 0  # the run suspends M0002: its ProcessQueue has a note and a badged token
