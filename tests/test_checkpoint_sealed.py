"""A checkpoint's explanation is sealed in the bank under its right answer, and that answer is the engine's.

Stop 34's review read checkpoint answers in the student copy before answering ("gets M0001 again", "made its one
attempt"): the words a picture says after the right answer were in the labs' sources. They are now in the teacher's
(``teacher/checkpoints_*.py``: English, Chinese and the answer at the picture's first settings), sealed under that
answer in ``rmqlab/course/bank.json``; a lab names one by id (``explain=sealed_explanation("03.level")``). Here:

- every lab's pictures (both languages), run at the knobs the lab gives them: each checkpoint that names an
  explanation resolves to the answer the teacher declared, and the explanation opens, filled from the run (so a
  declared answer can never drift from the engine's);
- every declared explanation is named by its lab, in English and in Chinese, and no lab writes its own;
- another answer (a student changed the knobs) cannot open it: the short form and one sentence instead;
- an id the bank does not hold is a clear error naming the parameter, the value and the ids there are.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rmqlab.widgets.checkpoint_sealed import SealedWhy, opened, sealed_explanation
from rmqlab.widgets.checkpoints import Checkpoint
from test_lab_checkpoint_facts import _dashboards_of

from rmqlab.core.errors import ConfigError
from rmqlab.core.i18n import speaking
from rmqlab.course.explanations import EXPLANATIONS, open_explanation
from teacher.compile import CHECKPOINTS

LABS = Path(__file__).resolve().parent.parent / "labs"
STEMS = sorted(p.stem for p in LABS.glob("[0-9][0-9]*_*.py"))
SOURCES = [f"{stem}.py" for stem in STEMS] + [f"zh/{stem}.py" for stem in STEMS]
DECLARED = {why.id: why for why in CHECKPOINTS}
NAMED = re.compile(r'sealed_explanation\("([^"]+)"\)')


@pytest.mark.parametrize("name", SOURCES)
def test_every_sealed_explanation_opens_on_the_answer_the_engine_gives(name: str) -> None:
    """Each checkpoint of the lab's pictures, at the lab's own knobs: the answer the teacher declared is the
    engine's, and the explanation opened (no short form, no field left unfilled)."""
    named = NAMED.findall((LABS / name).read_text())
    resolved = []
    for dash in _dashboards_of(LABS / name):
        for cp in dash.controller.checkpoints:
            if not cp.sealed:
                continue
            resolved.append(cp.sealed)
            assert (cp.sealed, cp.answer) == (cp.sealed, DECLARED[cp.sealed].answer), (name, cp.name)
            assert cp.opened and "{" not in cp.explain, (name, cp.name, cp.explain)
            right = next(c.label for c in cp.choices if c.key == cp.answer)
            starts = ("Right: ",) if "/" not in name else ("对：", "答对了：")
            assert cp.explain.startswith(tuple(s + right for s in starts)), cp.explain
    assert sorted(resolved) == sorted(named), f"{name}: a named explanation's checkpoint was not asked"


def test_every_declared_explanation_is_named_by_its_lab_in_both_languages() -> None:
    """Each id of ``teacher/checkpoints_*.py`` is named once by its lab's English source and once by its Chinese
    twin; no lab's checkpoint writes its own explanation (a text, a dict or a ``WHY_`` name), and the bank holds
    exactly the declared ones."""
    named: dict[str, list[str]] = {}
    own = []
    for name in SOURCES:
        source = (LABS / name).read_text()
        for found in NAMED.findall(source):
            named.setdefault(found, []).append(name)
        own += [(name, m) for m in re.findall(r"explain=(?!sealed_explanation\()\S{0,20}", source)]
        own += [(name, m) for m in re.findall(r"(?m)^WHY_\w+ =", source)]
    assert own == []
    for why_id, why in DECLARED.items():
        stems = [s for s in STEMS if s.split("_")[0] == why.lab]
        assert named.get(why_id) == [f"{stems[0]}.py", f"zh/{stems[0]}.py"], (why_id, named.get(why_id))
    assert set(named) <= set(DECLARED)
    assert [e.id for e in EXPLANATIONS] == list(DECLARED)


def test_the_bank_opens_each_explanation_with_its_answer_only() -> None:
    """Each sealed text opens with its declared answer, in English and Chinese, to the teacher's words; any other
    answer (another place, another time) opens nothing."""
    for why in CHECKPOINTS:
        assert open_explanation(why.id, why.answer, "en") == why.why
        assert open_explanation(why.id, why.answer, "zh") == why.zh
        assert open_explanation(why.id, why.answer.upper(), "en") == why.why  # a key's spelling, as a choice has it
        assert open_explanation(why.id, why.answer + "0", "en") is None
        assert open_explanation(why.id, "dropped:c1" if why.answer != "dropped:c1" else "done:cg", "en") is None


def test_another_answer_gets_the_short_form_in_the_language_of_the_picture() -> None:
    """A student who changed the knobs so that the answer is another one reads "Right: <answer>." and why there is
    no more; the right answer opens the full text (its fields are filled by the picture)."""
    why = CHECKPOINTS[0]
    text, is_open = opened(SealedWhy(why.id), why.answer + "1", "t = 9 s")
    assert not is_open and text == (
        "Right: t = 9 s. The full explanation is written for the picture's first settings (the knobs as the lab set "
        "them)."
    )
    with speaking("zh"):
        text, is_open = opened(SealedWhy(why.id), why.answer + "1", "时刻 t = 9 s")
        assert not is_open and text.startswith("对：时刻 t = 9 s。") and "最初的设置" in text
        assert opened(SealedWhy(why.id), why.answer, "x") == (why.zh, True)
    assert opened(SealedWhy(why.id), why.answer, "x") == (why.why, True)


def test_a_knob_that_changes_the_answer_closes_the_explanation() -> None:
    """Lab 03's picture with ``max_reconsume_times=2`` instead of the lab's −1: the DLQ write comes at another
    time, so its checkpoint gives the short form; the first retry's level is the same answer, so it opens."""
    from rmqlab.widgets.dashboard import Dashboard

    (first, *_rest) = _dashboards_of(LABS / "03_delay_levels_schedule.py")
    changed = Dashboard(first.make_lab, knobs={"max_reconsume_times": 2}, horizon="5h",
                        checkpoints=first.controller.checkpoint_specs)  # fmt: skip
    by_id = {cp.sealed: cp for cp in changed.controller.checkpoints}
    dlq = by_id["03.dlq-time"]
    assert dlq.answer != DECLARED["03.dlq-time"].answer and not dlq.opened
    label = next(c.label for c in dlq.choices if c.key == dlq.answer)
    assert dlq.explain == f"Right: {label}. The full explanation is written for the picture's first settings " \
                          "(the knobs as the lab set them)."  # fmt: skip
    assert by_id["03.level"].opened and "asyncConsumerSendMsgBack" in by_id["03.level"].explain


def test_an_unknown_id_is_a_clear_error() -> None:
    """Nothing is built from an id the bank does not hold: the error names the parameter, the value and the ids of
    that lab (or every id, for a lab with none)."""
    with pytest.raises(ConfigError, match=r"explanation_id='03\.nope' is not allowed: expected one of lab 03's") as e:
        sealed_explanation("03.nope")
    assert "'03.level'" in str(e.value)
    with pytest.raises(ConfigError, match=r"explanation_id='99\.x' is not allowed: expected one of the bank's"):
        sealed_explanation("99.x")
    with pytest.raises(ConfigError, match=r"explanation_id=3 is not allowed: expected a text"):
        sealed_explanation(3)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"explanation_id=.03\.nope."):
        Checkpoint(before="scheduled", explain=sealed_explanation("03.nope"))
