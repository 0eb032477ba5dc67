"""Issue 35, item 1 (its base): gettext catalogs compiled with Babel, ``rmqlab.set_language``, ``RMQLAB_LANG``, and
the command line's human timeline in Chinese with nothing left untranslated."""

from __future__ import annotations

import gettext
import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

import rmqlab
from rmqlab.core import i18n
from rmqlab.lab.cli import main

ROOT = Path(__file__).resolve().parents[1]
PO = i18n.LOCALE_DIR / "zh_CN" / "LC_MESSAGES" / "rmqlab.po"
EXAMPLES = sorted(p for p in (ROOT / "examples").iterdir() if p.suffix in {".json", ".yaml"} and ".expected." not in
                  p.name)  # fmt: skip


@pytest.fixture(autouse=True)
def english_afterwards(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv(i18n.ENV_VARIABLE, raising=False)
    yield
    rmqlab.set_language(None)


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), stdout=out, stderr=err), out.getvalue(), err.getvalue()


def test_the_summary_in_chinese_and_back() -> None:
    scenario = str(ROOT / "examples" / "default_retry_schedule.json")
    assert run("run", scenario)[1].splitlines()[-1] == "# 17 deliveries · 0 consumed · %DLQ%cg: 1 · ended at 4 h 50 m"
    rmqlab.set_language("zh")
    assert i18n.current_language() == "zh"
    assert run("run", scenario)[1].splitlines()[-1] == "# 投递 17 次 · 消费成功 0 次 · %DLQ%cg: 1 · 结束于 4 h 50 m"
    assert run("run", scenario, "--msg", "M9999")[2] == f"rmqlab: {scenario} 中没有与 --msg M9999 匹配的事件\n"
    rmqlab.set_language("en")
    assert run("run", scenario)[1].splitlines()[-1].startswith("# 17 deliveries")


@pytest.mark.parametrize(("value", "language"), [("zh", "zh"), ("zh_CN", "zh"), ("zh-cn", "zh"), ("en", "en"),
                                                  ("", "en"), ("fr", "en")])  # fmt: skip
def test_the_environment_variable(monkeypatch: pytest.MonkeyPatch, value: str, language: str) -> None:
    monkeypatch.setenv("RMQLAB_LANG", value)
    assert i18n.current_language() == language
    rmqlab.set_language("en")  # a call wins over the environment
    assert i18n.current_language() == "en"


def test_an_unknown_language_is_refused_by_name() -> None:
    with pytest.raises(rmqlab.ConfigError, match=r"language='fr' is not allowed: expected one of en, zh"):
        rmqlab.set_language("fr")
    assert i18n.current_language() == "en"


def test_the_catalogs_are_complete_and_current() -> None:
    """Every message in the source is in the template and translated (none fuzzy, none empty), and the compiled
    catalog is the .po's: ``python -m rmqlab.core.i18n`` was run after the last change."""
    in_source = {msg[2] if isinstance(msg[2], str) else msg[2][0]
                 for folder in ("rmqlab", "widgets") for msg in extract_from_dir(str(ROOT / folder))}  # fmt: skip
    with (i18n.LOCALE_DIR / "rmqlab.pot").open("rb") as f:
        template = read_po(f)
    assert {m.id if isinstance(m.id, str) else m.id[0] for m in template if m.id} == in_source
    with PO.open("rb") as f:
        po = read_po(f)
    untranslated = [m.id for m in po if m.id and (m.fuzzy or not all(m.string if isinstance(m.string, tuple)
                                                                      else [m.string]))]  # fmt: skip
    assert (len(in_source), untranslated) == (len(in_source), [])
    with (PO.parent / "rmqlab.mo").open("rb") as f:
        compiled = gettext.GNUTranslations(f)
    for message in po:
        if message.id and isinstance(message.id, str) and message.context:  # pgettext("event kind", "consumed")
            assert compiled.pgettext(message.context, message.id) == message.string
        elif message.id and isinstance(message.id, str):
            assert compiled.gettext(message.id) == message.string
        elif message.id:
            assert compiled.ngettext(message.id[0], message.id[1], 2) == message.string[0]


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_a_chinese_run_of_every_example_has_no_untranslated_message(path: Path) -> None:
    """The summary of each example in Chinese: every English phrase of the catalog is gone, the numbers are kept."""
    english = run("run", str(path))[1].splitlines()[-1]
    rmqlab.set_language("zh")
    chinese = run("run", str(path))[1].splitlines()[-1]
    for phrase in ("deliver", "consumed", "dead letters", "ended at"):
        assert phrase not in chinese, chinese
    assert "投递" in chinese and "消费成功" in chinese and "结束于" in chinese
    digits = [part for part in english.replace("·", " ").split() if part.isdigit()]
    assert [part for part in chinese.replace("·", " ").split() if part.isdigit()] == digits
