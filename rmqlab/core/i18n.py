"""The language of what rmqlab says to a person: English, or Simplified Chinese (简体中文).

Messages go through gettext (the catalogs in ``rmqlab/core/locale-data``: ``rmqlab.pot`` extracted from the source by
Babel, ``zh_CN/LC_MESSAGES/rmqlab.po`` translated with the terms of RocketMQ's Chinese community, ``rmqlab.mo``
compiled from it; ``python -m rmqlab.core.i18n`` redoes both). RocketMQ's identifiers — ``%RETRY%cg``,
``RECONSUME_LATER``, event kinds, class names — are never translated, only the prose around them.

The language is, in this order: the last :func:`set_language` call (``rmqlab.set_language("zh")``), else the
``RMQLAB_LANG`` environment variable (``zh`` or ``en``), else English. The engine's trace and the JSON report are
data and stay the same in every language; so far the command line's human timeline (its summary and messages) is
translated, and so are the dashboards' words (buttons, tabs, legends, the clock line, the checkpoints' fixed words)
and both lines of each step's caption (the plain sentence, and "in the source" with the Java behind it, whose
identifiers stay as they are).

Where it is used, ``gettext`` is imported as ``_`` (``from rmqlab.core.i18n import gettext as _``): Babel extracts
``_``, ``gettext``, ``ngettext``, ``pgettext`` and ``N_``; the source folders are ``rmqlab/`` and ``widgets/``.
"""

from __future__ import annotations

import contextlib
import gettext as _gettext
import os
import unicodedata
from collections.abc import Iterator
from pathlib import Path

from .errors import ConfigError

__all__ = [
    "ENV_VARIABLE", "LANGUAGES", "N_", "columns", "current_language", "gettext", "ngettext", "pgettext", "set_language",
    "speaking",
]  # fmt: skip

DOMAIN = "rmqlab"
LOCALE_DIR = Path(__file__).resolve().parent / "locale-data"
"""Not ``locale``: a folder with an identifier for a name under a package is, to setuptools, a package missing from
``packages`` (a warning at every build)."""
LANGUAGES = {"en": None, "zh": "zh_CN"}
"""What :func:`set_language` accepts, and each language's gettext catalog (None: the messages as written)."""
ENV_VARIABLE = "RMQLAB_LANG"

_chosen: str | None = None
_catalogs: dict[str, _gettext.NullTranslations] = {}


def set_language(language: str | None) -> None:
    """Speak ``language`` from now on (``"zh"`` or ``"en"``); ``None`` goes back to ``RMQLAB_LANG`` or English."""
    global _chosen
    if language is not None and language not in LANGUAGES:
        raise ConfigError("language", language, "one of " + ", ".join(LANGUAGES))
    _chosen = language


@contextlib.contextmanager
def speaking(language: str) -> Iterator[None]:
    """Speak ``language`` inside a ``with`` block (``rmqlab labs --lang zh`` says what it did in Chinese), then
    whatever was chosen before."""
    global _chosen
    before = _chosen
    set_language(language)
    try:
        yield
    finally:
        _chosen = before


def current_language() -> str:
    """The language messages are in now (see the module's docstring for the order of the sources)."""
    if _chosen is not None:
        return _chosen
    wanted = os.environ.get(ENV_VARIABLE, "").strip().lower().replace("-", "_")
    for language, catalog in LANGUAGES.items():
        if wanted in (language, (catalog or "").lower()):
            return language
    return "en"


def _catalog() -> _gettext.NullTranslations:
    language = current_language()
    if language not in _catalogs:
        catalog = LANGUAGES[language]
        _catalogs[language] = (
            _gettext.translation(DOMAIN, LOCALE_DIR, languages=[catalog]) if catalog else _gettext.NullTranslations()
        )
    return _catalogs[language]


def gettext(message: str) -> str:
    """``message`` in the current language (itself when the catalog has no translation)."""
    return _catalog().gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for ``n``, in the current language."""
    return _catalog().ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` in the current language as it is translated in ``context``: for a word that is said one way in
    one place and another way elsewhere (``pgettext("event kind", "consumed")``, the trace's kind, is not the
    legend's "consumed", which means consumed successfully)."""
    return _catalog().pgettext(context, message)


def N_(message: str) -> str:  # gettext's own name for it, which Babel extracts by default
    """``message`` itself, marked for the catalog: a constant defined at import (a view's title, a legend row)
    is translated where it is shown, with :func:`gettext`, in the language of that moment."""
    return message


def update_catalogs() -> None:
    """Extract ``rmqlab.pot`` from the source, merge it into the Chinese ``.po`` and compile the ``.mo`` (Babel)."""
    from babel.messages.frontend import CommandLineInterface

    root = Path(__file__).resolve().parents[2]
    pot = LOCALE_DIR / "rmqlab.pot"
    po_dir = LOCALE_DIR / "zh_CN" / "LC_MESSAGES"
    steps = [
        ["extract", "--no-location", "--sort-output", "-k", "gettext", "-k", "ngettext:1,2",
         "-o", str(pot), str(root / "rmqlab"), str(root / "widgets")],
        ["update", "--no-fuzzy-matching", "-D", DOMAIN, "-i", str(pot), "-d", str(LOCALE_DIR),
         "-l", "zh_CN"],
        ["compile", "--statistics", "-D", DOMAIN, "-d", str(LOCALE_DIR), "-l", "zh_CN"],
    ]  # fmt: skip
    if not (po_dir / f"{DOMAIN}.po").exists():
        steps[1][0] = "init"
        steps[1].remove("--no-fuzzy-matching")
    for step in steps:
        CommandLineInterface().run(["pybabel", "-q", *step])  # type: ignore[no-untyped-call]  # Babel has no types


if __name__ == "__main__":
    update_catalogs()


def columns(text: str) -> int:
    """How many columns ``text`` takes in a monospaced area: a Chinese character (East Asian Wide or Fullwidth)
    takes two, everything else one — so a table with Chinese cells stays aligned and a caption's budget counts a
    Chinese line as wide as it looks."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
