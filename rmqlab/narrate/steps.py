"""How captions are read: cause before effect, repeats grouped, and a step's caption in two lines.

**Cause before effect.** The broker handles CONSUMER_SEND_MSG_BACK (and an orderly consumer's re-send to
``%RETRY%``) inside the consumer's request, so the engine appends the broker's reaction — the CommitLog put to
``SCHEDULE_TOPIC_XXXX``, ``%RETRY%`` or ``%DLQ%`` — *before* the consumer records its send-back, whose outcome
it needs. That order is right for the trace (an event is recorded when it is complete) and the narrator needs it
(a send-back's caption says what the broker did), so neither changes. What changes is how a reader is shown the
events: :func:`reading_order` moves each send-back in front of the broker's reaction to it, and every view that
lists events (the caption of a step, the Events tab, the space-time diagram) reads them in that order.

**Repeats.** A broker that is down makes a consumer retry its pulls every second for hours: thousands of
identical events. :func:`~rmqlab.narrate.repeats.signature` says when two events are the same (kind, actor, message
and every detail but the time and a count of the repeats), :func:`~rmqlab.narrate.repeats.group_repeats` folds them
into one :class:`Repeat` ("× 50,386, every 1 s, 15 s – 14 h"), and the narrator marks each caption ``fresh`` or not,
so a Step lands only where something new happened (:attr:`~rmqlab.narrate.narrator.Caption.fresh`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from ..core.i18n import columns
from ..core.i18n import gettext as _
from ..core.trace import EventKind
from .fates import SUCCESS_STATUSES
from .plain_words import copy_words, ids_words
from .repeats import Repeat, burst, close_other_bursts, group_repeats, signature

__all__ = [
    "REACTION_KINDS",
    "Repeat",
    "StepCaption",
    "burst",
    "close_other_bursts",
    "fit_rule",
    "group_repeats",
    "reading_order",
    "signature",
    "step_caption",
]

K = EventKind

REACTION_KINDS: frozenset[EventKind] = frozenset(
    {K.STORED, K.SCHEDULED, K.DEAD_LETTERED, K.SEND_ATTEMPT, K.SEND_RESULT}
)
"""What a broker (or the consumer's inner producer) records for a send-back before the send-back itself."""
CAUSE_KINDS: frozenset[EventKind] = frozenset({K.SEND_BACK})
"""Events recorded after the effects they caused (the outcome of a synchronous request)."""


class Readable(Protocol):
    """What :func:`reading_order` needs of an event or a caption."""

    @property
    def kind(self) -> EventKind: ...
    @property
    def time_ms(self) -> int: ...
    @property
    def msg_id(self) -> str | None: ...


T = TypeVar("T", bound=Readable)


def reading_order(items: Sequence[T]) -> list[T]:
    """``items`` (in trace order) with every send-back moved in front of the broker's reaction to it.

    The reaction is the unbroken run of :data:`REACTION_KINDS` events of the same message in the same
    millisecond right before the send-back; nothing else moves, and an item never crosses a delivery or a
    consume result.
    """
    out = list(items)
    for i, item in enumerate(out):
        if item.kind not in CAUSE_KINDS or item.msg_id is None:
            continue
        j = i
        while j > 0:
            prev = out[j - 1]
            if prev.kind not in REACTION_KINDS or prev.msg_id != item.msg_id or prev.time_ms != item.time_ms:
                break
            j -= 1
        if j < i:
            out.insert(j, out.pop(i))
    return out


@dataclass(frozen=True, slots=True)
class StepCaption:
    """What a step did, in two lines: ``plain`` for a beginner, ``source`` for the code (``in the source: …``)."""

    plain: str
    source: str

    @property
    def lines(self) -> tuple[str, ...]:
        return tuple(line for line in (self.plain, self.source) if line)


MAX_SENTENCES = 1
"""One plain sentence per step, as The Secret Lives of Data tells its story: the step's most telling event (the one
whose rule the second line gives, :func:`step_caption`), worded to carry its cause and effect ("c1 failed M0001
for the 2nd time, so it goes back to the broker: into %RETRY%cg in 30 s"); the other events of the step are counted
("and 3 more: see the Events tab")."""
PLAIN_WIDTH = 200
"""The plain line's budget in character cells (a CJK character is two): two lines of the caption box in JupyterLab's
output area (13 px text, 868 px; tests/test_lab_captions.py wraps every step's line at that width). A line past it
keeps its one sentence: the wording is kept short instead (:mod:`rmqlab.narrate.plain_consuming`)."""
SOURCE_WIDTH = 232
"""The "in the source" line's budget (the page draws it at 13 px too: about two lines): a longer rule is cut at its
last clause that fits, and ends "…". The send-back's rule, the step the labs show most, fits whole: "… uses
3 + reconsumeTimes 0 = level 3, due in 10 s"."""


def _fit_sentences(
    sentences: Sequence[str],
    ranks: Sequence[int],
    done: Sequence[str | None] = (),
    about: Sequence[str | None] = (),
    copies: Sequence[str] = (),
) -> tuple[list[str], int]:
    """The sentences that fit :data:`PLAIN_WIDTH`, most telling first (``ranks``: lower tells more, see
    :data:`_PLAIN_ORDER`; at least one, at most :data:`MAX_SENTENCES`), shown in reading order, then the count of the
    rest, naming the messages the rest consumed (``done``: per sentence, the message it says was consumed; ``about``:
    the message each is about, not named again) when they
    fit: lab 09's step hid M0004 and M0005, consumed at last behind a message gone to the dead-letter topic, in
    "(and 10 more)"; a sentence about a second stored copy (``copies``: its words, "a second copy of M0001 stored", or
    "") is named first (lab 01b's step led with the try that stored it); and the index of the most telling one,
    whose rule the second line gives (both lines about one event)."""

    def more(shown: list[int]) -> list[str]:
        count = len(sentences) - len(shown)
        if not count:
            return []
        told = {about[j] for j in shown if j < len(copies) and copies[j]}  # the line itself is about that copy
        said = list(dict.fromkeys(c for j, c in enumerate(copies) if c and j not in shown and about[j] not in told))
        if said:  # a duplicate stored or delivered at this step is named, never only counted (the "#2" badge)
            return [_("(and {count} more: {copies}, see the Events tab)").format(count=count, copies="; ".join(said))]
        led = {about[j] for j in shown if j < len(about)}  # a message the line already speaks of
        named = list(dict.fromkeys(m for j, m in enumerate(done) if m and j not in shown and m not in led))
        if named:
            text = _("(and {count} more: {ids} consumed, see the Events tab)").format(count=count, ids=ids_words(named))
            if columns(_joined([*(sentences[j] for j in shown), text])) <= PLAIN_WIDTH:
                return [text]
        return [_("(and {count} more: see the Events tab)").format(count=count)]

    kept: list[int] = []
    for i in _most_telling_first(ranks):
        if len(kept) == MAX_SENTENCES:  # full: no other sentence can join
            break
        trial = sorted({*kept, i})
        words = [sentences[j] for j in trial] + more(trial)
        if kept and (len(trial) > MAX_SENTENCES or columns(_joined(words)) > PLAIN_WIDTH):
            continue
        kept.append(i)
    shown = sorted(kept)
    return [sentences[j] for j in shown] + more(shown), kept[0]


def _most_telling_first(ranks: Sequence[int]) -> list[int]:
    """Indexes by rank (lower tells more); among a step's sends, the last try first ("pg tries M0001 again (try 2),
    now on … broker-b" says more than the first try it follows); among other equals, the first."""
    send = 4 * _RANK[K.SEND_ATTEMPT]
    return sorted(range(len(ranks)), key=lambda i: (ranks[i], -i if ranks[i] % _TIER == send else i))


class Subject(Protocol):
    """What a step's caption may be asked to lead with: a checkpoint's event (its actor and its message)."""

    @property
    def actor(self) -> str: ...
    @property
    def msg_id(self) -> str | None: ...


class _Ranked(Subject, Protocol):
    @property
    def kind(self) -> EventKind: ...
    @property
    def meaningful(self) -> bool: ...


def _rank(caption: _Ranked, subject: Subject | None = None) -> int:
    """How telling ``caption`` is (lower tells more), in tiers (:data:`_PLAIN_ORDER`): a retry decision, a fault, a
    lifecycle or lock change, an orderly ConsumeRequest giving its thread back; then, at a checkpoint's pause, the
    events of its ``subject`` (its actor's, then its message's: lab 08's pause led with "pg sends M0001" while the
    question is about c1's copy); then an offset that jumps; then the consumers' other results; sends and deliveries
    last (but a send try that failed, or was stored with a status other than SEND_OK, with the failures: lab 01a's
    pause led with "pg sends M0002" while its failure was "(and 1 more)"); bookkeeping (an offset moved by one, a
    ConsumeRequest scheduled) least. Among a step's rebalance results, a
    business topic's before the retry topic's: lab 00's step at 2 s led with "c1 now reads 1 queue of %RETRY%cg"
    while the TopicTest hand-over it is about was "(and 1 more)"."""
    kind = caption.kind
    place = _RANK.get(kind, len(_RANK))
    if kind is K.SEND_RESULT and getattr(caption, "outcome", "SUCCESS") not in ("", "SUCCESS"):
        place = _RANK[K.SEND_FAILED]  # a failed try or a stored-but-not-OK status is what its step is about
    if kind in _TELLING_WHEN_MEANINGFUL and not caption.meaningful:
        place = len(_RANK)
    rank = 4 * place + (1 if str(getattr(caption, "topic", "")).startswith("%RETRY%") else 0)
    if subject is None or place < _RANK[K.OFFSET_UPDATED]:
        return rank
    client = subject.actor.startswith(("consumer:", "producer:"))  # a broker's events are everybody's
    if client and caption.actor == subject.actor:
        return _TIER - 2 * _TIER // 3 + rank
    if caption.msg_id is not None and caption.msg_id == subject.msg_id:
        return _TIER - _TIER // 3 + rank
    return _TIER + rank


_TIER = 3_000
"""At a checkpoint's pause, the ranks after the mechanism's tier: the subject's actor's events, its message's, then
the rest (each in :data:`_PLAIN_ORDER` within its tier)."""


def fit_rule(text: str) -> str:
    """``text`` cut at its last ``; `` (else ``, ``, else space; a Chinese rule's ``；`` and ``，`` likewise) that
    leaves it within :data:`SOURCE_WIDTH`."""
    if columns(text) <= SOURCE_WIDTH:
        return text
    for mark in ("; ", "；", ", ", "，", " "):
        cut = len(text)
        while (cut := text.rfind(mark, 0, cut)) > 0:
            if columns(text[:cut]) + 2 <= SOURCE_WIDTH:
                return text[:cut].rstrip(";,；，") + " …"
    return text


_EVENT_ORDER: tuple[EventKind, ...] = (
    K.DEAD_LETTERED,
    K.SEND_BACK,
    K.BROADCAST_DROPPED,
    K.SEND_BACK_FALLBACK,
    K.LOCAL_RETRY,
    K.SUSPENDED,
    K.LOCK_EXPIRED,
    K.LOCK_ACQUIRED,
    K.LOCK_REFUSED,
    K.UNLOCKED,
    K.FAULT,
    K.SEND_FAILED,
    K.CLEAN_EXPIRED,
    K.CONSUMED,
    K.SCHEDULED,
    K.DELAY_DELIVERED,
    K.LIFECYCLE,
    K.REBALANCED,
    K.SEND_ATTEMPT,
    K.DELIVERED,
)
"""Which event tells most when a step did several things (a send-back says more than the delivery before it; a dead
letter more than the send-back), before :data:`_CAUSE_AND_EFFECT_FIRST` moves the causes ahead."""
_CAUSE_AND_EFFECT_FIRST = frozenset(
    {K.LOCAL_RETRY, K.SEND_BACK_FALLBACK, K.SEND_BACK, K.DEAD_LETTERED, K.BROADCAST_DROPPED, K.SUSPENDED, K.LIFECYCLE}
)
_PLAIN_ORDER: tuple[EventKind, ...] = (
    K.LOCAL_RETRY,
    K.SEND_BACK_FALLBACK,
    K.SEND_BACK,
    K.DEAD_LETTERED,
    K.BROADCAST_DROPPED,
    K.SUSPENDED,
    K.LIFECYCLE,
    K.CONSUME_REQUEST,
    *(k for k in _EVENT_ORDER[: _EVENT_ORDER.index(K.CONSUMED)] if k not in _CAUSE_AND_EFFECT_FIRST),
    K.OFFSET_UPDATED,
    *(k for k in _EVENT_ORDER[_EVENT_ORDER.index(K.CONSUMED) :] if k not in _CAUSE_AND_EFFECT_FIRST),
)
"""Whose plain sentence a step's first line says, and so whose rule its second line gives: :data:`_EVENT_ORDER`,
but these first, as their sentence carries the
step's cause and effect ("c1 failed M0001 for the 2nd time, its last allowed try, so it goes to the dead-letter topic";
"c1 could not send M0001 back, so it keeps it …"), where the dead letter's own sentence, or a failed send-back's,
tells only half; and a consumer that starts (LIFECYCLE) is said before the locks and queues it then gets."""
_TELLING_WHEN_MEANINGFUL = frozenset({K.CONSUME_REQUEST, K.OFFSET_UPDATED})
"""Bookkeeping kinds placed in :data:`_PLAIN_ORDER` for their meaningful events only (``is_meaningful``: an orderly
ConsumeRequest that yields its thread after 60 s, an offset that jumps past several messages)."""
_RANK = {kind: i for i, kind in enumerate(_PLAIN_ORDER)}
"""Each kind's place in the first line's order: lower tells more."""


class _Captioned(Readable, Protocol):
    @property
    def seq(self) -> int: ...
    @property
    def actor(self) -> str: ...
    @property
    def meaningful(self) -> bool: ...
    @property
    def plain(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def group(self) -> int: ...


C = TypeVar("C", bound=_Captioned)


def step_caption(captions: Sequence[C], subject: Subject | None = None) -> StepCaption:
    """The two-line caption of a step that produced ``captions`` (trace order; pass only the ones to show).

    First line: the plain sentence of the step's most telling event (:data:`MAX_SENTENCES`, :func:`_rank`: at a
    checkpoint's pause, ``subject`` is its event, whose actor's and message's events lead after the mechanism's;
    repeats folded into one with their count), then how many others the step had; second line: ``in the source:``
    and the Java behind that same event (the first of its repeats): the two lines never tell of two events.
    """
    if not captions:
        return StepCaption("", "")
    ordered = reading_order(captions)
    keys = _repeat_keys(ordered)
    groups = group_repeats(ordered, key=lambda c: keys[c.seq], closes=lambda c: False)  # said once, with a count
    sentences = []
    ranks = [_rank(g.first, subject) for g in groups]
    # a batch's CONSUME_SUCCESS covers only up to ackIndex: a message the same step sends back was not consumed
    # (lab 02a's "M0004 consumed" while the picture parked it at level 3)
    back = {c.msg_id for c in ordered if c.kind in (K.SEND_BACK, K.SEND_BACK_FALLBACK)}
    done = [
        g.first.msg_id
        if g.first.kind is K.CONSUMED and getattr(g.first, "outcome", "") in SUCCESS_STATUSES
        and g.first.msg_id not in back
        else None
        for g in groups
    ]
    for g in groups:
        first: C = g.first
        ids = sorted({c.msg_id for c in ordered if keys[c.seq] == keys[first.seq] and c.msg_id})
        summary = g.summary if len(ids) < 2 else f"{g.summary}: {ids_words(ids)}"  # one send of many messages
        sentences.append(
            first.plain
            if g.count == 1
            else _("{sentence} ({summary}).").format(sentence=first.plain.rstrip(".。"), summary=summary)
        )
    copies = [_copy_said(g.first) for g in groups]
    plain, lead = _fit_sentences(sentences, ranks, done, [g.first.msg_id for g in groups], copies)
    key: C = groups[lead].first  # the second line is about the first line's event (issue 30: never another one)
    return StepCaption(_joined(plain), fit_rule(_("in the source: {rule}").format(rule=key.text)))


def _copy_said(caption: _Captioned) -> str:
    """A second (or later) stored copy's words when ``caption`` stores or delivers one ("a second copy of M0001
    stored"), else ""."""
    copy = int(getattr(caption, "copy", 1))
    if copy < 2 or caption.kind not in (K.STORED, K.DELAY_DELIVERED, K.DELIVERED):
        return ""
    words = copy_words(caption.msg_id or "?", copy)
    return (_("{copy} delivered") if caption.kind is K.DELIVERED else _("{copy} stored")).format(copy=words)


def _repeat_keys(captions: Sequence[C]) -> dict[int, int]:
    """Seq → the seq of the first caption it is said with: the same plain sentence, or a repeat of the same event
    (:attr:`~rmqlab.narrate.narrator.Caption.group`: the sends of one millisecond, whose sentences differ only in
    the message; an orderly message failing again)."""
    keys: dict[int, int] = {}
    by_plain: dict[str, int] = {}
    by_group: dict[int, int] = {}
    for c in captions:
        key = by_plain.get(c.plain, by_group.get(c.group, c.seq))
        keys[c.seq] = by_plain.setdefault(c.plain, key)
        by_group.setdefault(c.group, key)
    return keys


def _joined(sentences: Sequence[str]) -> str:
    """The sentences as one line: a space after an English sentence, none after a Chinese one (its full stop is
    full-width already; a space after it shows as a gap: "成功。 c1 的…")."""
    line = ""
    for sentence in sentences:
        line += sentence if not line or line.endswith(("。", "）", "！", "？", "」")) else " " + sentence
    return line
