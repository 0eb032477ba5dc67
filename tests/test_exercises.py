"""rmqlab.course.exercises: predictions compared by meaning, verdicts that reveal only after a prediction, hints,
never the answer to a wrong one, show_me, scores.

The checks run against the real sealed bank (``rmqlab.course.bank``) where its declarations matter, and against a
temporary bank (teacher declarations sealed by ``teacher.compile.compile_one``, ``monkeypatch``) where a test needs
a declaration of its own.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import rmqlab.course.bank as bank
import rmqlab.course.grading as grading
from rmqlab.core.errors import ConfigError
from rmqlab.core.trace import EventKind, TraceEvent
from rmqlab.course.bank import SALT, record
from rmqlab.course.exercises import (
    Items,
    assert_right,
    check,
    exercise,
    exercises_of,
    register_show_me,
    reset,
    same,
    score,
    show_me,
    spellings,
    table,
    trace_rows,
)
from rmqlab.course.grading import verify
from teacher.compile import EXERCISES as TEACHER_BANK
from teacher.compile import compile_one
from teacher.declare import Exercise, Hint

TEST_BANK = (
    Exercise(
        "98.1", "Levels 3..18 sum to it.", unit="s", hints=(Hint("One delay tick off: 100 ms grid.", off_by=(0.1,)),)
    ),
    Exercise(
        "98.2",
        "rt 0..3 are tries.",
        hints=(Hint("Off by one delivery: the first delivery is not a retry.", off_by=(1,)), Hint("Mis.", equals=(9,))),
        points=2,
    ),
    Exercise("98.3", "Only in CLUSTERING."),
    Exercise("98.4", "Retries go to %RETRY%cg.", hint="Where does the broker put a failed message?"),
)
TEST_ANSWERS = {"98.1": 17140, "98.2": 4, "98.3": True, "98.4": "%RETRY%cg"}
WHY = {ex.id: ex.revealed for ex in TEACHER_BANK}


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    """Every test starts with no verdicts, as a restarted kernel does."""
    reset()
    yield
    reset()


@pytest.fixture
def test_bank(monkeypatch: pytest.MonkeyPatch) -> None:
    sealed = tuple(record(compile_one(ex, TEST_ANSWERS[ex.id], SALT)) for ex in TEST_BANK)
    monkeypatch.setattr(bank, "EXERCISES", (*bank.EXERCISES, *sealed))
    monkeypatch.setattr(grading, "EXERCISES", bank.EXERCISES)  # what verify (the hidden test) reads


def lines(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize(
    ("answer", "expected", "unit"),
    [
        ("True", True, None),
        (" false ", False, None),
        ("None", None, None),
        ("4", 4, None),
        (4.0, 4, None),
        ("17 140", 17140, None),
        (17140, 17140, "s"),
        ("17 140 s", 17140, "s"),
        ("17140s", 17140, "s"),
        ("4h45m40s", 17140, "s"),
        ("4 h 45 min 40 s", 17140, "s"),
        ("17140000ms", 17140, "s"),
        ("1m11s", 71, "s"),
        ("%dlq%CG ", "%DLQ%cg", None),
        (["%DLQ%cg", "1"], ("%DLQ%cg", 1), None),
    ],
)
def test_same_accepts_what_means_the_same(answer: object, expected: object, unit: str | None) -> None:
    assert same(answer, expected, unit)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("answer", "expected", "unit"),
    [
        (True, 1, None),
        (1, True, None),
        ("yes please", True, None),
        (0, None, None),
        ("4h45m40s", 17140, None),  # without a unit a duration is not a number of anything
        ("17140", 17140000, "ms") ,
        ("17141 s", 17140, "s"),
        ("%DLQ%cg", ("%DLQ%cg", 1), None),
        (("%DLQ%cg",), ("%DLQ%cg", 1), None),
        (17140, "17140", None),
    ],
)
def test_same_rejects_what_means_something_else(answer: object, expected: object, unit: str | None) -> None:
    assert not same(answer, expected, unit)  # type: ignore[arg-type]


def test_check_returns_nothing_and_reveals_only_after_a_prediction(capsys: pytest.CaptureFixture[str]) -> None:
    """``...`` gets a reminder with no value and no explanation; a right answer gets both."""
    assert check("03.1", ..., 400) is None  # type: ignore[func-returns-value]
    out = capsys.readouterr().out
    assert out.startswith("No prediction yet — replace the `...`")
    assert "400" not in out and WHY["03.1"][:40] not in out.replace("\n", " ")
    check("03.1", "6m40s", 400)
    out = lines(capsys)
    assert "" in out  # the revealed common-belief box is its own paragraph
    assert " ".join(line for line in out if line) == f"Right — 400 s (6 m 40 s). {WHY['03.1']}".replace(
        "\n\n", " "
    )


def test_far_miss_never_prints_the_answer_but_offers_show_me(
    test_bank: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """A wrong prediction no hint fits gets no value and no explanation, however often it is tried."""
    check("98.2", 7, 4)
    check("98.2", 8, 4)
    out = " ".join(lines(capsys))
    tail = "Predict again, or run `show_me('98.2')` to watch the run play to the outcome, and read the answer from the"
    assert out == f"Not quite — you predicted 7. {tail} mechanism. Not quite — you predicted 8. {tail} mechanism."
    assert "4" not in out and "tries" not in out


def test_show_me_needs_a_prediction_then_runs_what_the_lab_registered(
    test_bank: None, capsys: pytest.CaptureFixture[str]
) -> None:
    played: list[str] = []
    register_show_me("98.2", lambda: played.append("to the end") or "the dashboard")
    assert show_me("98.2") is None and played == []
    assert lines(capsys)[0].startswith("Predict first:")
    check("98.2", 7, 4)
    capsys.readouterr()
    assert show_me("98.2") == "the dashboard" and played == ["to the end"]
    assert lines(capsys)[0].startswith("Watch the dashboard play the run to the outcome")
    check("98.3", False, True)
    capsys.readouterr()
    assert show_me("98.3") is None
    assert " ".join(lines(capsys)).startswith("Press ▶ Play on this lab's dashboard and watch the run to its end")
    with pytest.raises(ConfigError, match=r"^action=3 is not allowed: expected a function of no arguments"):
        register_show_me("98.2", 3)  # type: ignore[arg-type]


def test_a_right_answer_with_a_changed_run_says_so(test_bank: None, capsys: pytest.CaptureFixture[str]) -> None:
    """The verdict is the course's (the sealed answer); a different measurement is noted, not believed."""
    check("98.2", 4, 5)
    assert " ".join(lines(capsys)) == (
        "Right — 5. (This run measured another value: the lab above was changed; the course's run gives yours.)"
        " rt 0..3 are tries."
    )


def test_an_answer_of_the_wrong_kind_or_type_is_not_right(test_bank: None, capsys: pytest.CaptureFixture[str]) -> None:
    """An object equal to everything, a str subclass, a bool for a count: none is a prediction of the kind."""

    class Equal:
        def __eq__(self, other: object) -> bool:
            return True

    class Text(str):
        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = str.__hash__

    for answer in (Equal(), Text("x"), True):
        check("98.2", answer, 4)
        out = " ".join(lines(capsys))
        assert out.endswith("; this exercise expects a number. Change your prediction and run both cells again.")
    with pytest.raises(AssertionError):
        verify("07.1", Equal())


def test_near_miss_gets_a_hint_and_not_the_answer(test_bank: None, capsys: pytest.CaptureFixture[str]) -> None:
    """Off by one delivery (either side), a known wrong value, one delay tick of a duration."""
    out = []
    for ex_id, answer, measured in [("98.2", 3, 4), ("98.2", 5, 4), ("98.2", 9, 4), ("98.1", "17140.1 s", 17140)]:
        check(ex_id, answer, measured)
        out.append(" ".join(lines(capsys)))
    tail = "Change your prediction and run both cells again."
    assert out == [
        f"Not quite — you predicted 3. Hint: Off by one delivery: the first delivery is not a retry. {tail}",
        f"Not quite — you predicted 5. Hint: Off by one delivery: the first delivery is not a retry. {tail}",
        f"Not quite — you predicted 9. Hint: Mis. {tail}",
        f"Not quite — you predicted '17140.1 s'. Hint: One delay tick off: 100 ms grid. {tail}",
    ]


def test_general_hint_comes_once_then_show_me(test_bank: None, capsys: pytest.CaptureFixture[str]) -> None:
    """The first wrong prediction gets the pointer at the mechanism; the next one still not the answer."""
    check("98.4", "%DLQ%cg", "%RETRY%cg")
    check("98.4", "TopicTest", "%RETRY%cg")
    assert lines(capsys) == [
        "Not quite — you predicted '%DLQ%cg'. Hint: Where does the broker put a failed message? Change your",
        "prediction and run both cells again.",
        "Not quite — you predicted 'TopicTest'. Predict again, or run `show_me('98.4')` to watch the run play",
        "to the outcome, and read the answer from the mechanism.",
    ]


def test_milliseconds_for_seconds_gets_a_unit_hint(test_bank: None, capsys: pytest.CaptureFixture[str]) -> None:
    check("98.1", 17_140_000, 17140)
    assert " ".join(lines(capsys)) == (
        "Not quite — you predicted 17140000. Hint: That is the value in milliseconds; the question asks for"
        " seconds. Change your prediction and run both cells again."
    )


def test_verdict_lines_wrap_between_words(capsys: pytest.CaptureFixture[str]) -> None:
    check("07a.1", 2, 2)
    out = lines(capsys)
    assert len(out) >= 2 and all(len(line) <= 100 for line in out)
    assert " ".join(" ".join(out).split()) == " ".join(f"Right — 2. {WHY['07a.1']}".split())  # with its revealed box


def test_assert_right_raises_for_the_autograder_only_when_not_right(test_bank: None) -> None:
    with pytest.raises(AssertionError, match=r"^exercise 98\.3: the prediction was not checked$"):
        assert_right("98.3")
    check("98.3", ..., True)
    with pytest.raises(AssertionError, match=r"^exercise 98\.3: the prediction is 'none' after 0 tries$"):
        assert_right("98.3")
    check("98.3", False, True)
    with pytest.raises(AssertionError, match=r"^exercise 98\.3: the prediction is 'wrong' after 1 try$"):
        assert_right("98.3")
    check("98.3", "true", True)
    assert_right("98.3")


def test_score_lists_every_exercise_of_the_lab(test_bank: None, capsys: pytest.CaptureFixture[str]) -> None:
    """Points per exercise, the try a right answer came on, and the total; unchecked ones say so."""
    check("98.1", 17140, 17140)
    check("98.2", 3, 4)
    check("98.2", 4, 4)
    capsys.readouterr()
    score("98")
    assert lines(capsys) == [
        "exercise  points  verdict",
        "--------  ------  --------------------",
        "98.1      1/1     right",
        "98.2      2/2     right on the 2nd try",
        "98.3      0/1     not checked yet",
        "98.4      0/1     not checked yet",
        "Lab 98: 3 of 5 points",
    ]
    check("98.3", ..., True)
    check("98.2", 3, 4)
    capsys.readouterr()
    score("98")
    assert lines(capsys)[3:] == [
        "98.2      0/2     not quite (hint given)",
        "98.3      0/1     no prediction yet",
        "98.4      0/1     not checked yet",
        "Lab 98: 1 of 5 points",
    ]


def test_score_counts_tries_in_english(test_bank: None, capsys: pytest.CaptureFixture[str]) -> None:
    for _ in range(2):
        check("98.3", False, True)
    check("98.3", True, True)
    capsys.readouterr()
    score("98")
    assert lines(capsys)[4] == "98.3      1/1     right on the 3rd try"


def test_after_three_wrong_predictions_the_self_check_says_neither_right_nor_wrong(
    test_bank: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """A loop of checks over candidates (issue 30): the 4th prediction, right or not, gets no verdict — the count,
    the general hint and show_me — so the loop finds nothing; the answer cell is still graded as submitted."""
    for guess in (1, 2, 3):
        check("98.2", guess, 4)
    capsys.readouterr()
    said = []
    for guess in (5, 4, 6):  # 4 is right: no verdict either
        check("98.2", guess, 4)
        said.append(" ".join(lines(capsys)))
    assert said == [
        f"This is prediction {n} judged for '98.2' in this kernel: after 3, the self-check no longer says whether a "
        "prediction is right, so trying values in a loop finds nothing. Your answer cell is graded as you submit it. "
        "Work it out from the run (`show_me('98.2')` plays it), or ask your teacher."
        for n in (4, 5, 6)
    ]
    check("98.4", "a", "%RETRY%cg"), check("98.4", "b", "%RETRY%cg"), check("98.4", "c", "%RETRY%cg")
    capsys.readouterr()
    check("98.4", "%RETRY%cg", "%RETRY%cg")
    assert "Hint: Where does the broker put a failed message? Work it out" in " ".join(lines(capsys))
    score("98")
    rows = [row.split()[:2] for row in lines(capsys) if row.startswith(("98.2", "98.4"))]
    assert rows == [["98.2", "0/2"], ["98.4", "0/1"]]
    verify("98.2", 4)  # the grade: the answer as submitted, right


def test_a_loop_over_judge_itself_is_counted_and_the_check_says_so(
    test_bank: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """Calling the bank's judge in a loop (not check) finds a small answer; every call is counted, the next check
    says how many and gives no verdict, and the hidden test writes the count into the check cell's output."""
    found = [v for v in range(10) if grading.judge(exercise("98.2"), v)[0] == "right"]
    assert found == [4]
    check("98.2", 4, 4)
    assert " ".join(lines(capsys)).startswith("This is prediction 11 judged for '98.2' in this kernel: after 3,")
    verify("98.2", 4)  # still full points: the final answer is right
    assert lines(capsys) == [
        "Exercise 98.2: 11 predictions were judged in this kernel before this test (the self-check judges 3); the "
        "points come from the answer cell as submitted."
    ]
    verify("98.3", True)  # an exercise judged once: nothing written
    assert lines(capsys) == []


def test_rebinding_or_an_object_equal_to_everything_still_scores_nothing_after_a_loop(test_bank: None) -> None:
    """The hidden test reads the answer itself, from the grading module: a rebound ``check``/``judge`` in the
    notebook's namespace or a value equal to everything is no right answer, before or after the count runs out."""

    class Anything:
        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = object.__hash__

    for guess in range(5):
        check("98.2", guess, 4)
    cell: dict[str, object] = {}  # a student's cell rebinds the names it sees
    exec("from rmqlab.course.grading import judge, verify\njudge = verify = lambda *_: ('right', '')", cell)
    with pytest.raises(AssertionError, match="unreadable"):
        grading.verify("98.2", Anything())
    with pytest.raises(AssertionError, match=r"wrong|hint"):
        grading.verify("98.2", 7)


def test_bad_ids_and_declarations_name_the_parameter() -> None:
    with pytest.raises(ConfigError, match=r"^exercise_id='3\.1' is not allowed: expected one of the declared"):
        check("3.1", 1, 1)
    with pytest.raises(ConfigError, match=r"^lab='42' is not allowed: expected a lab number with exercises"):
        score("42")
    with pytest.raises(ConfigError, match=r"^id='lab3' is not allowed"):
        Exercise("lab3", "why")
    with pytest.raises(ConfigError, match=r"^unit='h' is not allowed: expected None, 's' or 'ms'$"):
        Exercise("03.9", "why", unit="h")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"^points=0 is not allowed"):
        Exercise("03.9", "why", points=0)
    with pytest.raises(ConfigError, match=r"^id='02ab\.1' is not allowed"):
        Exercise("02ab.1", "why")


def test_a_split_lab_keeps_its_number_and_gets_a_letter() -> None:
    """Lab 02 became 02a and 02b: their exercises are grouped, graded and scored apart."""
    assert Exercise("02b.3", "why").lab == "02b" and Exercise("02b.3", "why").grade_id == "ex02b_3"
    assert [ex.id for ex in exercises_of("02a")] == ["02a.1", "02a.2", "02a.3"]
    assert [ex.id for ex in exercises_of("02b")] == ["02b.1", "02b.2", "02b.3"]


def test_bank_ids_are_unique_and_grouped_by_lab(monkeypatch: pytest.MonkeyPatch) -> None:
    assert [ex.id for ex in exercises_of("03")] == ["03.1", "03.2", "03.3"]
    assert exercise("03.1").grade_id == "ex03_1" and exercise("03.1").lab == "03"
    monkeypatch.setattr(bank, "EXERCISES", (*bank.EXERCISES, exercise("03.1")))
    with pytest.raises(ConfigError, match=r"^bank\.EXERCISES='03\.1' is not allowed: expected each"):
        exercise("03.1")


def test_spellings_cover_the_ways_an_answer_is_written() -> None:
    assert spellings(17140, "s") == [
        "17140", "17,140", "17 140", "17\u202f140", "4 h 45 m 40 s", "4h45m40s", "4h 45m 40s", "4 h 45 min 40 s",
        "17140 s", "17140s",
    ]
    assert spellings(("%DLQ%cg", 1)) == ["%DLQ%cg", "1"]
    assert spellings(True) == [] and spellings(None) == [] and spellings(71) == ["71"]


def test_table_is_fixed_width() -> None:
    """Columns are padded to the widest cell; booleans print as true/false."""
    assert table([[1, True], ["long", None]], ["a", "b"]) == "a     b\n----  ----\n1     true\nlong"


def test_table_wraps_the_last_column_between_items_only() -> None:
    """A row wider than the limit continues under the last column; no ``key=value`` is split."""
    items = Items(["topic=TopicTest", "queue=%RETRY%cg@broker-a:0", "queue_offset=0", "reconsume_times=1"])
    text = table([["10 s", "delivered", items]], ["time", "event", "details"], max_width=60)
    assert text.splitlines() == [
        "time  event      details",
        "----  ---------  -------------------------------------------",
        "10 s  delivered  topic=TopicTest queue=%RETRY%cg@broker-a:0",
        "                 queue_offset=0 reconsume_times=1",
    ]
    assert all(len(line) <= 60 for line in text.splitlines())


def test_an_item_wider_than_the_column_breaks_between_its_words() -> None:
    """A long ``message=…`` continues under the last column, cut at spaces, never mid-word by the browser."""
    items = Items(["level=2", "message=delayOffset.json gives delay level 2 offset 0, not 1: 1 message(s) delivered"])
    text = table([["12 s", "warning", items]], ["time", "event", "details"], max_width=60)
    assert text.splitlines()[2:] == [
        "12 s  warning  level=2",
        "               message=delayOffset.json gives delay level 2",
        "               offset 0, not 1: 1 message(s) delivered",
    ]
    assert all(len(line) <= 60 for line in text.splitlines())


def test_trace_rows_wrap_at_the_default_width() -> None:
    event = TraceEvent(
        1,
        10_000, EventKind.DELIVERED, "consumer:c1", "M0001",
        {"topic": "TopicTest", "queue": "%RETRY%cg@broker-a:0", "queue_offset": 0, "reconsume_times": 1},
    )
    text = table(trace_rows([event] * 2), ["time", "event", "actor", "msg", "details"])
    assert all(len(line) <= 100 for line in text.splitlines())
    assert text.splitlines()[2:4] == [
        "10 s  delivered  consumer:c1  M0001  topic=TopicTest queue=%RETRY%cg@broker-a:0 queue_offset=0",
        "                                     reconsume_times=1",
    ]
