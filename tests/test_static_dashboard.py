"""Without a kernel the dashboard is still a picture: its static HTML, and what nbconvert keeps of it."""

from __future__ import annotations

import re

import nbformat
from nbclient import NotebookClient
from nbconvert import HTMLExporter
from rmqlab.widgets import Dashboard, demo_lab
from rmqlab.widgets.flow_view import FlowView


def test_static_html_has_clock_caption_and_every_view() -> None:
    """The bundle offers text/html next to the widget: the same tokens the live main picture has. A saved notebook
    keeps the main picture and the Events table only (a lab has a picture per section; the table's frames are a
    few kB), the table as the kernel draws it now; ``static_html()`` (``save_html``) has every tab."""
    d = Dashboard(demo_lab)
    d.controller.seek_time("12s")
    page = d._repr_mimebundle_()["text/html"]
    assert "application/vnd.jupyter.widget-view+json" in d._repr_mimebundle_()
    assert d.controller.clock_text.split(" · ")[0] in re.sub(r"<[^>]+>", "", page)
    assert d.controller.caption and d.controller.caption_html.value in page
    flow = next(v for v in d.views if isinstance(v, FlowView))
    assert flow.current is not None
    assert page.count('data-role="token"') >= len(flow.current.keys("token")) > 0
    assert [v.title for v in d.views if f"<h4>{v.title}</h4>" in page] == [flow.title, "Events"]
    assert d.view("Events").static_html() in page
    whole = d.static_html()
    for v in d.views:
        assert f"<h4>{v.title}</h4>" in whole


def test_nbconvert_without_widget_state_shows_the_static_picture(tmp_path) -> None:
    """A notebook executed with store_widget_state=False, exported to HTML: the picture is there as SVG."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "from rmqlab.widgets import Dashboard, demo_lab\nd = Dashboard(demo_lab)\nd.controller.seek_time('12s')\nd"
        )
    ]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    NotebookClient(nb, timeout=120, kernel_name="python3", store_widget_state=False).execute()
    body, _ = HTMLExporter().from_notebook_node(nb)
    d = Dashboard(demo_lab)
    d.controller.seek_time("12s")
    flow = next(v for v in d.views if isinstance(v, FlowView))
    assert flow.current is not None
    drawn = set(re.findall(r'data-key="([^"]+)" data-role="token"', body))
    assert drawn == set(flow.current.keys("token")) and drawn
    assert 'data-testid="rq-static-dashboard"' in body
