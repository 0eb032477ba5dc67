"""Sealed answers: a prediction is recognised by a salted hash, and the text it unlocks is encrypted under a key
derived from that prediction. Standard library only (``hashlib``, ``hmac``), so it runs in Pyodide as in CPython.

Why: the student's environment (the installed package, the JupyterLite site, a hub image) must not state an
answer or an explanation in plain text. The compiled bank (``rmqlab/course/bank.json``, built from the teacher's
sources by ``python -m teacher.compile``) holds, per exercise, a *tag* for the right prediction and for each
near miss that has a hint, and each explanation or hint encrypted under a key only that prediction gives:

1. the prediction is put in one canonical spelling (:func:`canonical`: ``"7 200 s"``, ``7200`` and
   ``"2h"`` all become ``"7200.0"`` for an exercise in seconds);
2. PBKDF2-HMAC-SHA256 of that spelling, salted with the course salt and the exercise id, gives a master key
   (:func:`master_key`);
3. HMAC(master, ``"tag"``) is the tag compared with the bank's; HMAC(master, ``"key"``) is the key of an
   HMAC-SHA256 counter-mode stream that XORs the text (:func:`seal`, :func:`unseal`); the Chinese text of the
   same explanation or hint is XORed with its own stream, keyed by HMAC(master, ``"key/zh"``).

What this does not stop: trying values. An answer with few possible values (a boolean, a small count) is found
by checking each; the hash keeps it from being *read*, the PBKDF2 work only slows a search down. A self-check
is a learning aid; grades come from the hub's autograder (``docs/classroom.md``).
"""

from __future__ import annotations

import hashlib
import hmac
import math
import re
from collections.abc import Sequence
from typing import Any

from .answers import Unit, number

__all__ = ["ITERATIONS", "Kind", "canonical", "kind_of", "master_key", "seal", "tag", "unseal"]

ITERATIONS = 2_000
"""PBKDF2 rounds per prediction: a few milliseconds a check with OpenSSL, ~40 ms by the hmac-only fallback (which
Pyodide without OpenSSL uses; a few times that in the browser). More rounds would not protect a small answer space
(a count, a bool) and would make every check slow in the browser."""

Kind = str | list[Any]
"""What an answer is: ``"word"`` (True/False/None), ``"number"``, ``"text"``, or a list of kinds (a sequence)."""


def kind_of(value: Any) -> Kind:
    """The kind of an expected value (the teacher's compile step stores it; it says nothing of the value)."""
    if isinstance(value, bool) or value is None:
        return "word"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, Sequence):
        return [kind_of(item) for item in value]
    raise TypeError(f"an answer is a bool, None, a number, a string or a sequence of them, not {type(value).__name__}")


_WORDS = {"true": "True", "yes": "True", "false": "False", "no": "False", "none": "None", "nothing": "None",
          "null": "None"}  # fmt: skip


def canonical(value: Any, kind: Kind, unit: Unit | None = None) -> str | None:
    """The one spelling of ``value`` read as ``kind`` (``None``: it cannot mean an answer of that kind).

    Exact built-in types only (``type(x) is int``, never a subclass): an object that claims to equal everything
    is not a prediction. Words ignore case and spaces; numbers are compared by value (``"7 200"`` is 7200; with
    a unit, durations are parsed); a bool is never a number; sequences go element by element.
    """
    t = type(value)
    if isinstance(kind, list):
        if t not in (list, tuple) or len(value) != len(kind):
            return None
        parts = [canonical(item, k, unit) for item, k in zip(value, kind, strict=True)]
        return None if any(p is None for p in parts) else "(" + "\x1f".join(str(p) for p in parts) + ")"
    if kind == "word":
        if t is bool or value is None:
            return repr(value)
        return _WORDS.get(value.strip().lower()) if t is str else None
    if kind == "number":
        if t not in (int, float, str):
            return None
        got = number(value, unit)
        return None if got is None or not math.isfinite(got) else repr(float(got) + 0.0)
    if kind == "text":
        return re.sub(r"\s+", " ", value.strip().lower()) if t is str else None
    raise ValueError(f"kind={kind!r} is not allowed: expected 'word', 'number', 'text' or a list of kinds")


def _pbkdf2(secret: bytes, salt: bytes, iterations: int, length: int = 32) -> bytes:
    """PBKDF2-HMAC-SHA256, ``length`` bytes: ``hashlib``'s when it has one (OpenSSL; looked up at each call, so a test
    can take it away), else the same function by ``hmac``, block by block."""
    fast = getattr(hashlib, "pbkdf2_hmac", None)
    if fast is not None:
        return bytes(fast("sha256", secret, salt, iterations, dklen=length))
    blocks = (_pbkdf2_by_hmac(secret, salt, iterations, index) for index in range(1, -(-length // 32) + 1))
    return b"".join(blocks)[:length]


def _pbkdf2_by_hmac(secret: bytes, salt: bytes, iterations: int, index: int = 1) -> bytes:
    """RFC 8018 PBKDF2 with HMAC-SHA256, its 32-byte block number ``index`` (for a Python built without OpenSSL)."""
    mac = hmac.new(secret, digestmod="sha256")
    block = mac.copy()
    block.update(salt + index.to_bytes(4, "big"))
    u = block.digest()
    out = int.from_bytes(u, "big")
    for _ in range(iterations - 1):
        step = mac.copy()
        step.update(u)
        u = step.digest()
        out ^= int.from_bytes(u, "big")
    return out.to_bytes(32, "big")


def master_key(spelling: str, salt: str, exercise_id: str, iterations: int = ITERATIONS) -> bytes:
    """The key a canonical prediction gives for one exercise of one course."""
    return _pbkdf2(spelling.encode(), f"{salt}/{exercise_id}".encode(), iterations)


def tag(master: bytes) -> str:
    """What the bank stores to recognise a prediction (hex; says nothing about the key)."""
    return hmac.new(master, b"tag", "sha256").hexdigest()


def _stream(master: bytes, length: int, language: str) -> bytes:
    label = b"key" if language == "en" else f"key/{language}".encode()  # one stream per language: never two texts
    key = hmac.new(master, label, "sha256").digest()  # XORed with the same stream (that would give their XOR away)
    blocks = (hmac.new(key, i.to_bytes(8, "big"), "sha256").digest() for i in range(-(-length // 32)))
    return b"".join(blocks)[:length]


def seal(text: str, master: bytes, language: str = "en") -> str:
    """``text`` encrypted under ``master`` (hex). Each master key seals one text per language (the stream is
    derived from the key and the language: ``"en"``, ``"zh"``), so no nonce is needed."""
    data = text.encode()
    return bytes(a ^ b for a, b in zip(data, _stream(master, len(data), language), strict=True)).hex()


def unseal(sealed: str, master: bytes, language: str = "en") -> str:
    """The text :func:`seal` sealed under ``master`` in ``language``."""
    data = bytes.fromhex(sealed)
    return bytes(a ^ b for a, b in zip(data, _stream(master, len(data), language), strict=True)).decode()
