"""An executed notebook as one HTML page whose dashboards still step and play with no kernel and no network.

``jupyter nbconvert --to html`` renders a widget output through the widget manager it loads from a CDN, so a
page opened offline shows nothing where a dashboard was. Every dashboard output also carries ``text/html``: its
run's frames and the player (:meth:`widgets.Dashboard.static_html`). :func:`save_notebook_html` keeps that
instead of the widget view (as the docs site does), then exports with nbconvert::

    python -m widgets.notebook_html labs/03_delay_levels_schedule.ipynb lab03.html
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

__all__ = ["WIDGET_VIEW", "save_notebook_html", "without_widget_views"]

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def without_widget_views(nb: Any) -> int:
    """Drop each output's widget view where a ``text/html`` stands beside it, and the saved widget state; returns
    how many outputs changed (the notebook is changed in place)."""
    changed = 0
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if WIDGET_VIEW in data and "text/html" in data:
                del data[WIDGET_VIEW]
                changed += 1
    nb.metadata.pop("widgets", None)
    return changed


def save_notebook_html(src: str | os.PathLike[str], dest: str | os.PathLike[str]) -> Path:
    """Export the executed notebook ``src`` to ``dest`` (HTML) with its dashboards playable offline."""
    import nbformat
    from nbconvert import HTMLExporter

    path = Path(src)
    if path.suffix != ".ipynb" or not path.is_file():
        raise ValueError(f"src={str(src)!r}: expected an existing .ipynb file")
    nb = nbformat.read(path, as_version=4)  # type: ignore[no-untyped-call]
    without_widget_views(nb)
    body, _ = HTMLExporter().from_notebook_node(nb)  # type: ignore[no-untyped-call]
    out = Path(dest)
    out.write_text(body, encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("src", type=Path, help="an executed notebook")
    parser.add_argument("dest", type=Path, help="the HTML page to write")
    args = parser.parse_args(argv)
    print(save_notebook_html(args.src, args.dest))
    return 0


if __name__ == "__main__":
    sys.exit(main())
