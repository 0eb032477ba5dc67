"""Colour-blind-safe colours (Okabe–Ito) plus a letter and a pattern per state, never colour alone."""

from __future__ import annotations

import zlib

from rmqlab.snapshot import OffsetState

__all__ = [
    "JUPYTERLAB_THEMES",
    "OKABE_ITO",
    "STATE_GLYPH",
    "STATE_PATTERN",
    "STATE_STYLE",
    "TOKEN_COLOURS",
    "contrast_ratio",
    "state_legend",
    "token_colour",
]

OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
}
"""Okabe & Ito (2008): eight colours distinguishable under the common colour-vision deficiencies."""

STATE_STYLE: dict[OffsetState, str] = {
    OffsetState.STORED: OKABE_ITO["sky_blue"],
    OffsetState.PULLED: OKABE_ITO["yellow"],
    OffsetState.CONSUMING: OKABE_ITO["orange"],
    OffsetState.ACKED: OKABE_ITO["bluish_green"],
    OffsetState.SENT_BACK: OKABE_ITO["vermillion"],
    OffsetState.DROPPED: OKABE_ITO["reddish_purple"],
}
STATE_GLYPH: dict[OffsetState, str] = {
    OffsetState.STORED: "S",
    OffsetState.PULLED: "P",
    OffsetState.CONSUMING: "C",
    OffsetState.ACKED: "A",
    OffsetState.SENT_BACK: "R",
    OffsetState.DROPPED: "X",
}
"""One letter per state: the text rendering and the cell label (R = sent back to %RETRY%, X = dropped)."""
STATE_PATTERN: dict[OffsetState, str] = {
    OffsetState.STORED: "none",
    OffsetState.PULLED: "radial-gradient(#0003 1px, transparent 1.5px) 0 0/5px 5px",
    OffsetState.CONSUMING: "repeating-linear-gradient(90deg, #0004 0 2px, transparent 2px 5px)",
    OffsetState.ACKED: "none",
    OffsetState.SENT_BACK: "repeating-linear-gradient(45deg, #0005 0 2px, transparent 2px 6px)",
    OffsetState.DROPPED: "repeating-linear-gradient(45deg, #0005 0 2px, transparent 2px 6px), "
    "repeating-linear-gradient(-45deg, #0005 0 2px, transparent 2px 6px)",
}
"""A CSS pattern on top of the colour, so states differ in greyscale too."""


def state_legend() -> str:
    """``S stored · P pulled · …`` — the key printed under every text rendering."""
    return " · ".join(f"{STATE_GLYPH[s]} {s.value}" for s in OffsetState)


TOKEN_COLOURS: tuple[str, ...] = (
    OKABE_ITO["orange"],
    OKABE_ITO["sky_blue"],
    OKABE_ITO["bluish_green"],
    OKABE_ITO["yellow"],
    OKABE_ITO["reddish_purple"],
    OKABE_ITO["vermillion"],
)
"""Fills for message tokens: Okabe–Ito without black and dark blue (the count inside is drawn in black,
which must stay readable on every fill, in both themes)."""


def token_colour(key: str) -> str:
    """The stable fill of a message token, from ``key`` (a msg id or a sharding key).

    A key ending in digits (``M0007``, order ``42``) uses that number, so consecutive messages get
    different colours; any other key uses its CRC-32. Never ``hash()``: Python salts string hashes per
    process, and the picture must be the same in every kernel, every nbconvert run and every test.
    """
    digits = len(key) - len(key.rstrip("0123456789"))
    number = int(key[-digits:]) - 1 if digits else zlib.crc32(key.encode("utf-8"))
    return TOKEN_COLOURS[number % len(TOKEN_COLOURS)]


JUPYTERLAB_THEMES: dict[str, dict[str, str]] = {
    "light": {
        "layout-color0": "#ffffff",
        "layout-color1": "#ffffff",
        "layout-color2": "#eeeeee",
        "ui-font-color1": "rgba(0, 0, 0, 0.87)",
        "ui-font-color2": "rgba(0, 0, 0, 0.54)",
        "brand-color1": "#1976d2",
        "error-color1": "#d32f2f",
        "warn-color1": "#f57c00",
    },
    "dark": {
        "layout-color0": "#111111",
        "layout-color1": "#212121",
        "layout-color2": "#424242",
        "ui-font-color1": "rgba(255, 255, 255, 0.87)",
        "ui-font-color2": "rgba(255, 255, 255, 0.54)",
        "brand-color1": "#2196f3",
        "error-color1": "#f44336",
        "warn-color1": "#ff9800",
    },
}
"""The JupyterLab 4 theme variables the views' CSS uses for text and the backgrounds it sits on (from
``@jupyterlab/theme-light-extension`` and ``theme-dark-extension``), for checking text contrast."""


def _rgba(colour: str) -> tuple[float, float, float, float]:
    if colour.startswith("rgba("):
        r, g, b, a = (float(v) for v in colour[5:-1].split(","))
        return r, g, b, a
    h = colour.lstrip("#")
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16), 1.0


def _luminance(rgb: tuple[float, float, float]) -> float:
    """WCAG 2.1 relative luminance of an sRGB colour (0–255 channels)."""

    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = rgb
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast_ratio(text: str, background: str, *, opacity: float = 1.0) -> float:
    """WCAG contrast ratio of ``text`` (hex or ``rgba(…)``, drawn at ``opacity``) over an opaque ``background``."""
    r, g, b, a = _rgba(text)
    a *= opacity
    br, bg, bb, _ = _rgba(background)
    fg = (r * a + br * (1 - a), g * a + bg * (1 - a), b * a + bb * (1 - a))
    lighter, darker = sorted((_luminance(fg), _luminance((br, bg, bb))), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)
