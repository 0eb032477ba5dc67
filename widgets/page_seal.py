"""A run's checkpoints and the frames past them, sealed for the page: no answer or explanation in plain text.

The page checks a click with no kernel (a static page: ``save_html``, nbconvert, the docs site), and the live
widget's state is saved in the executed notebook: both used to carry each checkpoint's right key, its filled
explanation and every frame past the pause (whose captions, clocks and tokens show the outcome). Now:

* every choice of a checkpoint has a *box*: the page derives the choice's key (PBKDF2-HMAC-SHA256 of the choice's
  key, salted with the checkpoint) and opens the box with it: ``{"right": true, "text": <explanation>}`` for the
  right choice, ``{"right": false, "text": <its hint>}`` for the others. The boxes are padded to one length, so no
  box (and no missing hint) singles out the right one;
* the frames between a checkpoint's pause and the next one's (the player's clocks, captions and Jump counts, and
  every picture's deltas) are sealed under a key only the right choice's key gives (:func:`segment_key`); the page
  opens them after a right answer (or "Show me", which opens every box until the right one), and the kernel hands
  the page the keys of the checkpoints it moved past itself (:func:`unlock_keys`).

A box is XORed with an HMAC-SHA256 counter stream (PBKDF2 with one round: one Web Crypto call in the page, one
``hashlib`` call here) whose nonce is the HMAC of its text under its own key, so the same frames give the same bytes
and two different texts never share a stream. What this does not stop: trying the choices, which are in the page
(that is clicking them, and the page counts tries); the PBKDF2 rounds only keep the answer from being *read*.
``widgets/scene.js`` opens them (``openBox``), with SubtleCrypto: a page without it says so.
"""

from __future__ import annotations

import base64
import functools
import hmac
import json
import zlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rmqlab.course.sealed import _pbkdf2

if TYPE_CHECKING:  # checkpoints imports the views, which import this module
    from .checkpoints import AskedCheckpoint

__all__ = ["ITERATIONS", "PAGE_SALT", "choice_keys", "open_box", "seal_box", "seal_player", "seal_tail",
           "sealed_checkpoint", "segment_key", "unlock_keys"]

PAGE_SALT = "rmqlab-page-1"
ITERATIONS = 100
"""PBKDF2 rounds per choice: the choices are in the page, so rounds slow no search down; few keep a dashboard's
build (and Pyodide's hmac-only PBKDF2) cheap."""


def _stream(key: bytes, nonce: str, length: int) -> bytes:
    """HMAC-SHA256(key, "stream/<nonce>" ‖ counter) blocks: PBKDF2 with one round, as ``deriveBits`` gives it."""
    if not length:
        return b""
    return _pbkdf2(key, f"stream/{nonce}".encode(), 1, length)  # hashlib's, or by hmac in a Pyodide without OpenSSL


def _xor(data: bytes, stream: bytes) -> bytes:
    return (int.from_bytes(data, "big") ^ int.from_bytes(stream, "big")).to_bytes(len(data), "big")


def seal_box(key: bytes, text: str, *, packed: bool = False) -> dict[str, Any]:
    """``text`` sealed under ``key``: ``{"nonce"}`` (hex: its HMAC under the key) and ``{"data"}`` (base64);
    ``packed``: zlib-compressed first (``"z": 1``; the page inflates it with a DecompressionStream): frames are
    repetitive JSON, and a notebook keeps its pictures' frames in its outputs."""
    data = text.encode()
    nonce = hmac.new(key, data, "sha256").hexdigest()[:32]
    if packed:
        data = zlib.compress(data, 6)
    sealed = base64.b64encode(_xor(data, _stream(key, nonce, len(data)))).decode()
    return {"nonce": nonce, "data": sealed, **({"z": 1} if packed else {})}


def open_box(key: bytes, box: dict[str, Any]) -> str:
    """The text :func:`seal_box` sealed (what ``scene.js`` does in the page; for tests)."""
    data = base64.b64decode(box["data"])
    plain = _xor(data, _stream(key, box["nonce"], len(data)))
    return (zlib.decompress(plain) if box.get("z") else plain).decode()


@functools.lru_cache(maxsize=4096)
def _master(name: str, frame: int, choice: str) -> bytes:
    # sealed._pbkdf2: hashlib's, or the same by hmac in a Pyodide without OpenSSL
    return _pbkdf2(choice.encode(), f"{PAGE_SALT}/{name}/{frame}".encode(), ITERATIONS)


def choice_keys(cp: AskedCheckpoint, choice: str) -> tuple[bytes, bytes]:
    """The box key and the frames key a choice's key gives for ``cp`` (HMAC of its PBKDF2 master, "box"/"frames")."""
    master = _master(cp.name, cp.frame, choice)
    return hmac.new(master, b"box", "sha256").digest(), hmac.new(master, b"frames", "sha256").digest()


def segment_key(cp: AskedCheckpoint) -> bytes:
    """The key of the frames past ``cp``'s pause: only its right choice gives it."""
    return choice_keys(cp, cp.answer)[1]


def sealed_checkpoint(cp: AskedCheckpoint) -> dict[str, Any]:
    """``cp`` for the page: its question and choices, each choice's box; no answer, no hint, no explanation."""
    texts = [json.dumps({"right": c.key == cp.answer, "text": cp.explain if c.key == cp.answer else cp.hint_for(c.key)},
                        ensure_ascii=False) for c in cp.choices]  # fmt: skip
    width = max(len(t.encode()) for t in texts)
    padded = [t + " " * (width - len(t.encode())) for t in texts]  # one length: no box tells the right one
    return {
        "name": cp.name,
        "frame": cp.frame,
        "ask": cp.ask,
        "question": cp.question,
        "iterations": ITERATIONS,
        "salt": f"{PAGE_SALT}/{cp.name}/{cp.frame}",
        "choices": [
            {"key": c.key, "label": c.label, "mark": c.mark, "box": seal_box(choice_keys(cp, c.key)[0], text)}
            for c, text in zip(cp.choices, padded, strict=True)
        ],
        **({"tab": cp.to_json()["tab"]} if cp.tab else {}),  # the tab the question is about, opened as it asks
    }


def _cuts(checkpoints: Sequence[AskedCheckpoint], length: int) -> list[tuple[AskedCheckpoint, int, int]]:
    """Per checkpoint (in frame order): the frames it seals, ``[start, stop)`` — after its pause, to the next one's."""
    ordered = sorted(checkpoints, key=lambda c: (c.frame, c.name))
    stops = [c.frame + 1 for c in ordered[1:]] + [length]
    return [(cp, min(cp.frame + 1, length), max(min(stop, length), cp.frame + 1)) for cp, stop in
            zip(ordered, stops, strict=True)]  # fmt: skip


def seal_tail(
    encoded: dict[str, Any],
    checkpoints: Sequence[AskedCheckpoint],
    label: str,
    fixes: dict[int, tuple[dict[str, Any], ...]] | None = None,
) -> dict[str, Any]:
    """A picture's page frames (``{"frames": [...]}``) with every frame past the first pause sealed, segment by
    segment, under the key of the checkpoint before it (``label`` keeps two pictures' texts apart). ``fixes``: per
    paused frame, the deltas to its answered picture and back (:func:`widgets.checkpoint_answered.answer_fixes`);
    they open with the segment after it, which then says ``"fix": 1`` (``scene.js`` shows the first delta at the
    pause)."""
    frames = encoded.get("frames") or []
    if not checkpoints or not frames:
        return encoded
    cuts = _cuts(checkpoints, len(frames))
    fixes = fixes or {}
    sealed = []
    for cp, start, stop in cuts:
        fix = list(fixes.get(start - 1, ())) if stop > start else []  # an empty segment's pause is the next one's
        sealed.append({"cp": cp.name, "n": stop - start, **({"fix": 1} if fix else {}),
                       **seal_box(segment_key(cp), json.dumps([label, fix + frames[start:stop]]), packed=True)})
    return {**encoded, "frames": frames[: cuts[0][1]], "sealed": sealed}  # fmt: skip


def seal_player(
    data: dict[str, Any], checkpoints: Sequence[AskedCheckpoint], answered: dict[int, tuple[str, ...]] | None = None
) -> dict[str, Any]:
    """The player's data (:meth:`~widgets.frames.RunFrames.player_json`) with its clocks, captions and Jump counts
    past the first pause sealed as :func:`seal_tail` seals a picture's, and its checkpoints as
    :func:`sealed_checkpoint` gives them; ``answered``: per paused frame, its caption once answered, sealed with the
    segment after it (:mod:`widgets.checkpoint_answered`)."""
    if not checkpoints:
        return data
    cuts = _cuts(checkpoints, len(data["positions"]))
    answered = answered or {}

    def part(start: int, stop: int) -> dict[str, Any]:
        jumps = {k: per[start:stop] for k, per in data["jumps"].items() if any(per[start:stop])}
        done = answered.get(start - 1) if stop > start else None  # the pause before, answered: its caption
        return {"clocks": data["clocks"][start:stop], "captions": data["captions"][start:stop], "jumps": jumps,
                **({"answer": {"frame": start - 1, "caption": list(done)}} if done is not None else {})}  # fmt: skip

    sealed = [
        {"cp": cp.name, "n": stop - start,
         **seal_box(segment_key(cp), json.dumps(["player", part(start, stop)]), packed=True)}
        for cp, start, stop in cuts
    ]
    return {**data, **part(0, cuts[0][1]), "checkpoints": [sealed_checkpoint(c) for c in checkpoints],
            "sealed": sealed}  # fmt: skip


def unlock_keys(checkpoints: Sequence[AskedCheckpoint], frame: int) -> dict[str, str]:
    """The frames keys (hex) of the checkpoints that pause before ``frame``: the page needs them to show it (the
    kernel moved there itself: a Jump of the method twins, ``show_me``, a save after playing on)."""
    return {cp.name: segment_key(cp).hex() for cp in checkpoints if cp.frame < frame}
