"""A dashboard's page holds no checkpoint answer, explanation, hint or outcome frame in plain text (issue 30).

A static page (``save_html``, nbconvert, the docs site) checks a click with no kernel, and the live player's state is
saved in an executed notebook: both used to carry each checkpoint's right key, its filled explanation and every frame
past the pause. Here lab 03's pictures (English and Chinese), built as the lab builds them: the page's bytes hold no
sentence of an explanation or a hint, no caption or clock of a frame past the first question, no field that names
the answer; every choice's box has one length; the boxes and the sealed frames open with the keys the page derives
(the right choice: the explanation and the frames as the kernel made them; a wrong one: its hint); the same run gives
the same bytes. The browser half (a wrong click's hint, a right click's explanation, from disk) is
``tests/browser/test_static_player.py``.
"""

from __future__ import annotations

import json
import re
import zlib
from pathlib import Path
from typing import Any

import pytest
from rmqlab.widgets.page_seal import choice_keys, open_box, seal_player, seal_tail, segment_key
from test_lab_checkpoint_facts import _dashboards_of

LABS = Path(__file__).resolve().parent.parent / "labs"
PAYLOAD = re.compile(r'rqlabMountStatic\("[^"]+", (\{.*\})\);</script>', re.S)


def _asking(name: str) -> list[Any]:
    """Lab ``name``'s dashboards that ask a checkpoint, from a run of their own: the session's shared ones are
    stepped and answered by other tests, and a dashboard moved past a question rightly hands the page its key."""
    return [d for d in _dashboards_of(LABS / name, fresh=True) if d.controller.checkpoints]


def _sentences(text: str) -> list[str]:
    """The sentences of ``text`` long enough to tell something (English or Chinese punctuation)."""
    return [s.strip() for s in re.split(r"(?<=[.。；;:：])\s*", text) if len(s.strip()) >= 12]


@pytest.mark.parametrize("name", ["03_delay_levels_schedule.py", "zh/03_delay_levels_schedule.py"])
def test_a_static_page_states_no_answer(name: str) -> None:
    """No explanation sentence, hint sentence, later caption or later clock is in the page; no checkpoint field but
    its question, choices and boxes; every box of a checkpoint has one length."""
    dashes = _asking(name)
    assert dashes, f"{name} asks no checkpoint"
    for dash in dashes:
        page = dash.static_html()
        frames = dash.controller.frames
        first = min(cp.frame for cp in frames.checkpoints)
        for cp in frames.checkpoints:
            assert cp.opened or not cp.sealed
            labels = " ".join(c.label for c in cp.choices)  # the buttons' words are the page's, right one too
            for sentence in _sentences(cp.explain):
                assert sentence in labels or sentence not in page, (cp.name, sentence)
            for c in cp.choices:
                if c.key != cp.answer:
                    for sentence in _sentences(cp.hint_for(c.key)):
                        assert sentence not in page, (cp.name, c.key, sentence)
        seen = {line for i in range(first + 1) for line in frames.captions[i]} | {frames.clock(i) for i in
                                                                               range(first + 1)}  # fmt: skip
        for i in range(first + 1, len(frames)):
            assert frames.clock(i) in seen or frames.clock(i) not in page, i
            for line in frames.captions[i]:
                assert line in seen or line not in page, (i, line)
        for payload in PAYLOAD.findall(page):
            asked = json.loads(payload.replace("<\\/", "</"))["player"]["data"]["checkpoints"]
            for cp in asked:
                assert sorted(cp) == ["ask", "choices", "frame", "iterations", "name", "question", "salt"]
                assert all(sorted(c) == ["box", "key", "label", "mark"] for c in cp["choices"])
                assert len({len(c["box"]["data"]) for c in cp["choices"]}) == 1, cp["name"]


def test_the_boxes_and_frames_open_with_the_keys_the_page_derives() -> None:
    """The right choice's box holds the explanation, a wrong one's its own hint; the frames key opens the sealed
    frames of the player and of the main picture as the kernel made them, and a wrong choice's does not."""
    (dash, *_) = _asking("03_delay_levels_schedule.py")
    frames = dash.controller.frames
    cp = frames.checkpoints[0]
    for c in cp.choices:
        box_key, frames_key = choice_keys(cp, c.key)
        got = json.loads(open_box(box_key, c_box(cp, c.key, frames)))
        if c.key == cp.answer:
            assert got == {"right": True, "text": cp.explain} and frames_key == segment_key(cp)
        else:
            assert got == {"right": False, "text": cp.hint_for(c.key)} and frames_key != segment_key(cp)
    plain = frames.player_json()
    sealed = seal_player(plain, frames.checkpoints)
    ordered = sorted(frames.checkpoints, key=lambda c: c.frame)
    opened = [json.loads(open_box(segment_key(next(c for c in ordered if c.name == seg["cp"])), seg))[1]
              for seg in sealed["sealed"]]  # fmt: skip
    assert sealed["clocks"] + [t for seg in opened for t in seg["clocks"]] == plain["clocks"]
    assert sealed["captions"] + [t for seg in opened for t in seg["captions"]] == plain["captions"]
    encoded = dash.main_view.page_frames(frames)
    tail = seal_tail(encoded, frames.checkpoints, dash.main_view.title)
    segs = [json.loads(open_box(segment_key(next(c for c in ordered if c.name == s["cp"])), s))[1]
            for s in tail["sealed"]]  # fmt: skip
    assert tail["frames"] + [f for seg in segs for f in seg] == encoded["frames"]
    wrong = next(c.key for c in cp.choices if c.key != cp.answer)
    with pytest.raises(zlib.error):  # a wrong key gives noise, which is no zlib stream
        json.loads(open_box(choice_keys(cp, wrong)[1], tail["sealed"][0]))


def c_box(cp: Any, key: str, frames: Any) -> dict[str, str]:
    """The box the page holds for choice ``key`` of ``cp``."""
    player = seal_player(frames.player_json(), frames.checkpoints)
    asked = next(c for c in player["checkpoints"] if c["name"] == cp.name)
    return next(c["box"] for c in asked["choices"] if c["key"] == key)


def test_the_same_run_gives_the_same_page() -> None:
    """Salts and nonces come from the checkpoint and the text, not from chance: two pages of one run are equal."""
    (dash, *_) = _asking("03_delay_levels_schedule.py")
    assert dash.static_html() == dash.static_html()


def test_the_live_players_state_states_no_answer() -> None:
    """The live widget's state (what JupyterLab's page gets and an executed notebook saves): no explanation or
    hint sentence, no later caption; the kernel hands the page a checkpoint's frames key only once it moved past."""
    (dash, *_) = _asking("03_delay_levels_schedule.py")
    ctl = dash.controller
    frames = ctl.frames
    state = json.dumps([ctl.player.get_state(), *(v.canvas.get_state() for v in dash.views if hasattr(v, "canvas"))],
                       ensure_ascii=False, default=str)  # fmt: skip
    first = min(cp.frame for cp in frames.checkpoints)
    seen = {line for i in range(first + 1) for line in frames.captions[i]}
    for cp in frames.checkpoints:
        for sentence in _sentences(cp.explain):
            assert sentence not in state, sentence
        assert segment_key(cp).hex() not in state
    assert not [line for i in range(first + 1, len(frames)) for line in frames.captions[i]
                if line not in seen and line in state]  # fmt: skip
    cp = frames.checkpoints[0]
    ctl.goto_checkpoint(cp.name)
    assert ctl.player.unlocked == {}
    ctl.seek(frames.positions[cp.frame + 1], gated=False)
    assert ctl.player.unlocked == {cp.name: segment_key(cp).hex()}


def test_no_lab_notebook_holds_a_sealed_explanation_in_its_outputs() -> None:
    """The executed labs (en + zh) are what the docs site shows, dashboards as static players: no fixed part of any
    declared checkpoint explanation is in them (a part with a run value in it is checked above, filled)."""
    from teacher.compile import CHECKPOINTS

    notebooks = {p: p.read_text(encoding="utf-8") for p in sorted(LABS.glob("**/[0-9][0-9]*_*.ipynb"))}
    assert len(notebooks) >= 28
    for path, body in notebooks.items():  # no player saved past a question: no frames key in any page
        assert body.count('\\"unlocked\\":{') == body.count('\\"unlocked\\":{}') > 0 or "rqlabMount" not in body, path
    for why in CHECKPOINTS:
        for text in (why.why, why.zh):
            for sentence in _sentences(text):
                for part in re.split(r"\{[^}]*\}", sentence):  # a telling part: five words, or fifteen characters
                    if len(re.findall(r"[A-Za-z]{2,}", part)) >= 5 or len(re.findall(r"[\u4e00-\u9fff]", part)) >= 15:
                        escaped = json.dumps(part.strip(), ensure_ascii=False)[1:-1]  # as a notebook's JSON holds it
                        leaks = [p.name for p, body in notebooks.items() if part.strip() in body or escaped in body]
                        assert not leaks, (why.id, part, leaks)


def test_without_openssl_the_boxes_are_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Pyodide without OpenSSL has no ``hashlib.pbkdf2_hmac``: the hmac-only stream and keys give the same boxes
    (the page, with Web Crypto, opens either)."""
    import hashlib

    from rmqlab.widgets import page_seal

    key, text = b"k" * 32, "M0001 goes to delay level 3 · 10 s " * 9
    with_openssl = page_seal.seal_box(key, text, packed=True), page_seal.seal_box(key, text)
    monkeypatch.delattr(hashlib, "pbkdf2_hmac")
    assert (page_seal.seal_box(key, text, packed=True), page_seal.seal_box(key, text)) == with_openssl
    assert page_seal.open_box(key, with_openssl[0]) == text
