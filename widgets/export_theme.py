"""The colours an exported file carries itself: JupyterLab's light and dark theme variables, and the export error.

The views colour everything through JupyterLab's CSS variables (``var(--jp-…, fallback)``). Outside JupyterLab
nobody defines them, so every export (:mod:`widgets.export_html`, :mod:`widgets.export_svg`, the animation frames of
:mod:`widgets.animation`) writes them on its root element: the light theme, the dark one, or ``"auto"`` (light, and
dark under ``prefers-color-scheme``). Kept apart because all of those exports share it.
"""

from __future__ import annotations

from typing import Literal

__all__ = ["DARK", "FONT", "LIGHT", "THEMES", "ExportError", "Theme", "theme_css"]

Theme = Literal["auto", "light", "dark"]
THEMES: tuple[str, ...] = ("auto", "light", "dark")

LIGHT = {
    "--jp-layout-color0": "#ffffff",
    "--jp-layout-color1": "#ffffff",
    "--jp-layout-color2": "#eeeeee",
    "--jp-layout-color3": "#bdbdbd",
    "--jp-ui-font-color1": "rgba(0, 0, 0, 0.87)",
    "--jp-ui-font-color2": "rgba(0, 0, 0, 0.54)",
    "--jp-ui-font-color3": "rgba(0, 0, 0, 0.38)",
    "--jp-border-color1": "#bdbdbd",
    "--jp-border-color2": "#e0e0e0",
    "--jp-brand-color1": "#1976d2",
    "--jp-brand-color2": "#64b5f6",
    "--jp-error-color1": "#d32f2f",
    "--jp-warn-color0": "#e65100",
    "--jp-success-color1": "#388e3c",
}
"""JupyterLab 4's light theme, for the variables the views read (``grep -o 'var(--jp-[a-z0-9-]*' widgets``)."""
DARK = {
    "--jp-layout-color0": "#111111",
    "--jp-layout-color1": "#212121",
    "--jp-layout-color2": "#424242",
    "--jp-layout-color3": "#616161",
    "--jp-ui-font-color1": "rgba(255, 255, 255, 0.87)",
    "--jp-ui-font-color2": "rgba(255, 255, 255, 0.54)",
    "--jp-ui-font-color3": "rgba(255, 255, 255, 0.38)",
    "--jp-border-color1": "#616161",
    "--jp-border-color2": "#424242",
    "--jp-brand-color1": "#42a5f5",
    "--jp-brand-color2": "#1565c0",
    "--jp-error-color1": "#ef5350",
    "--jp-warn-color0": "#ffa726",
    "--jp-success-color1": "#66bb6a",
}
"""JupyterLab 4's dark theme, for the same variables."""

FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif"


class ExportError(RuntimeError):
    """An export that cannot be made as asked (nothing drawn yet, no browser for PNG, a trace that kept nothing)."""


def theme_css(theme: str, root: str) -> str:
    """The ``--jp-*`` variables on ``root`` for ``theme`` (``auto``: light, dark under prefers-color-scheme)."""
    if theme not in THEMES:
        raise ValueError(f"theme={theme!r}: must be one of {', '.join(THEMES)}")

    def block(values: dict[str, str]) -> str:
        body = " ".join(f"{k}: {v};" for k, v in values.items())
        return (
            f"{root} {{ {body} --jp-ui-font-family: {FONT}; color-scheme: {'dark' if values is DARK else 'light'}; }}"
        )

    if theme == "light":
        return block(LIGHT)
    if theme == "dark":
        return block(DARK)
    return f"{block(LIGHT)}\n@media (prefers-color-scheme: dark) {{ {block(DARK)} }}"
