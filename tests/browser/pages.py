"""A dashboard on a page (JupyterLab or Voila), found by what it is and compared with the kernel's frames.

A dashboard is the cell output that holds a controller's caption line (``[data-testid=rmq-caption]``,
which every Controller draws): never a cell index. Inside it, each scene view is its root
``.rq-scene[data-testid=…]`` (``rq-flow``, ``rq-retry-timeline``, …), whose drawn marks carry
``data-key`` / ``data-role``; marks fading out carry ``data-leaving`` and are not counted.

Every wait is on state (an attribute, a text, a count) with a generous time-out; the 2-core machines
these run on are shared, and a full suite is several times slower than one test alone.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from .expectations import CheckpointStop, DashboardExpectation, Frame, SceneMarks

DASHBOARD = ".jp-OutputArea-output:has([data-testid='rmq-caption'])"
"""A cell output holding a controller (a Dashboard, or a box with a Controller and its views)."""
ROUND_TRIP_MS = 30_000
"""Click → kernel → widget update, with a kernel or two busy elsewhere on 2 shared cores."""

MARKS_JS = """(root) => Object.fromEntries([...root.querySelectorAll('svg [data-key]:not([data-leaving])')]
  .map(n => [n.getAttribute('data-key'), n.getAttribute('data-role') || '']))"""
"""Drawn mark key → role of one scene root."""
TOKENS_JS = """(root) => Object.fromEntries([...root.querySelectorAll('g[data-role=token]:not([data-leaving])')]
  .map(g => [g.getAttribute('data-key'), g.getAttribute('transform')]))"""
"""Drawn FlowView token key → ``transform``."""
SAME_MARKS_JS = f"""([root, want]) => {{
  const got = ({MARKS_JS})(root);
  const keys = Object.keys(got);
  return keys.length === Object.keys(want).length && keys.every(k => want[k] === got[k]);
}}"""


def exact(label: str) -> re.Pattern[str]:
    """A button label exactly (Font Awesome's ::before glyph is not part of the text, spaces may be)."""
    return re.compile(rf"^\s*{re.escape(label)}\s*$")


@dataclass
class DashboardOnPage:
    """One displayed controller in the page, with the kernel's expectation for it."""

    page: Any
    root: Any
    """The cell output (Playwright locator) that holds the controller."""
    expected: DashboardExpectation
    name: str
    """The notebook's name, for messages."""

    def button(self, label: str) -> Any:
        """A control of the page's player (every lab dashboard steps in the page: its frames are there)."""
        return self.root.get_by_test_id("rq-player").locator(".rq-row button", has_text=exact(label))

    @property
    def clock(self) -> Any:
        return self.root.get_by_test_id("rq-clock")

    @property
    def player(self) -> Any:
        return self.root.get_by_test_id("rq-player")

    @property
    def question(self) -> Any:
        """The checkpoint's box (its question, the answer buttons, the feedback)."""
        return self.root.get_by_test_id("rq-checkpoint")

    @property
    def caption_lines(self) -> Any:
        return self.root.locator("[data-testid='rmq-caption'] > div")

    def scene(self, testid: str) -> Any:
        return self.root.locator(f".rq-scene[data-testid='{testid}']")

    @property
    def flow(self) -> Any:
        return self.scene("rq-flow")

    @property
    def play_button(self) -> Any:
        return self.root.get_by_test_id("rq-player").locator("button", has_text=exact("Play"))

    def open_tab(self, title: str) -> bool:
        """Click the tab button called ``title`` as a student does; ``False`` when no tab has that title (the
        main picture, drawn above the tabs)."""
        from playwright.sync_api import expect

        tab = self.root.locator(".rq-view-tabs button", has_text=exact(title))
        if tab.count() == 0:
            return False
        tab.click()
        expect(tab).to_have_class(re.compile(r"\bmod-active\b"), timeout=ROUND_TRIP_MS)
        return True

    def answer_checkpoint(self, cp: CheckpointStop, *, wrong_first: bool = True) -> None:
        """The page asks ``cp`` on this frame: answer it as a student does — a wrong choice first (the hint
        comes, the question stays), then the right one (the explanation comes)."""
        from playwright.sync_api import expect

        expect(self.question).to_be_visible(timeout=ROUND_TRIP_MS)
        expect(self.question).to_contain_text(cp.question, timeout=ROUND_TRIP_MS)
        feedback = self.question.get_by_test_id("rq-feedback")
        if wrong_first and cp.wrong is not None:
            self.question.locator(f"button[data-key={json.dumps(cp.wrong)}]").click()
            expect(feedback).to_have_text(f"Not quite. Hint: {cp.hint} Try again, or Show me.", timeout=ROUND_TRIP_MS)
        self.question.locator(f"button[data-key={json.dumps(cp.answer)}]").click()
        expect(feedback).to_have_text(cp.explain, timeout=ROUND_TRIP_MS)

    def show(self) -> None:
        """Scroll the dashboard into view: JupyterLab's windowing may not lay out a cell far off screen."""
        self.root.scroll_into_view_if_needed(timeout=ROUND_TRIP_MS)

    # ------------------------------------------------------------------ reading the page
    def frame_number(self) -> int:
        """The FlowView's ``data-frame`` counter (one per redraw)."""
        return int(self.flow.get_attribute("data-frame", timeout=ROUND_TRIP_MS) or 0)

    def position(self) -> int:
        return int(self.flow.get_attribute("data-position", timeout=ROUND_TRIP_MS) or -1)

    def drawn_tokens(self) -> dict[str, str]:
        return dict(self.flow.evaluate(TOKENS_JS))

    def drawn_marks(self, testid: str) -> dict[str, str]:
        return dict(self.scene(testid).evaluate(MARKS_JS))

    # ------------------------------------------------------------------ comparing with the kernel
    def expect_frame(self, frame: Frame) -> None:
        """Wait until the page shows ``frame``, then compare clock, caption, tokens and counts exactly."""
        from playwright.sync_api import expect

        if frame.tokens is not None:
            expect(self.flow).to_have_attribute("data-position", str(frame.position), timeout=ROUND_TRIP_MS)
        expect(self.clock).to_have_text(frame.clock, timeout=ROUND_TRIP_MS)
        if frame.caption:
            expect(self.caption_lines).to_have_text(list(frame.caption), timeout=ROUND_TRIP_MS)
        else:
            expect(self.caption_lines).to_have_count(0, timeout=ROUND_TRIP_MS)
        if frame.tokens is None:
            return
        assert frame.token_places is not None
        drawn = self.drawn_tokens()
        if drawn != frame.tokens:
            diff = {
                k: (drawn.get(k), frame.tokens.get(k))
                for k in sorted({*drawn, *frame.tokens})
                if drawn.get(k) != frame.tokens.get(k)
            }
            raise AssertionError(
                f"{self.name} at position {frame.position}: drawn tokens ≠ the kernel's scene "
                f"(key: (drawn, kernel)): {diff}"
            )
        per_place: dict[str, int] = {}
        for key in drawn:
            place = frame.token_places.get(key)
            if place is not None:
                per_place[place] = per_place.get(place, 0) + 1
        assert per_place == frame.engine_counts, (
            f"{self.name} at position {frame.position}: drawn tokens per place {per_place} ≠ the engine's "
            f"messages per place {frame.engine_counts}"
        )

    def expect_scenes_as_opened(self, scenes: tuple[SceneMarks, ...]) -> None:
        """Every scene view draws the kernel's marks as a student sees it: the main picture as it is, each tab once
        opened (a hidden tab is not redrawn while hidden); the first tab is chosen again afterwards."""
        tabs = [want for want in scenes if self.open_tab(want.title)]
        self.expect_scenes(tuple(want for want in scenes if want not in tabs))
        for want in tabs:
            self.open_tab(want.title)
            self.expect_scenes((want,))
        if tabs:
            self.open_tab(tabs[0].title)

    def expect_scenes(self, scenes: tuple[SceneMarks, ...]) -> None:
        """Every scene view draws exactly the kernel's marks (same keys, same roles; so the same counts)."""
        for want in scenes:
            root = self.scene(want.testid)
            assert root.count() == 1, f"{self.name}: {root.count()} views drawn as {want.testid}"
            try:
                self.page.wait_for_function(
                    SAME_MARKS_JS, arg=[root.element_handle(timeout=ROUND_TRIP_MS), want.roles], timeout=ROUND_TRIP_MS
                )
            except Exception as exc:  # turn a time-out into the difference, which is what one needs to see
                got = self.drawn_marks(want.testid)
                missing = sorted(set(want.roles) - set(got))[:8]
                extra = sorted(set(got) - set(want.roles))[:8]
                counts = json.dumps(dict(sorted(_counts(got).items())))
                raise AssertionError(
                    f"{self.name}: {want.testid} draws {counts}, the kernel {json.dumps(want.role_counts())}; "
                    f"missing {missing}, extra {extra}"
                ) from exc


def _counts(roles: dict[str, str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for role in roles.values():
        out[role] = out.get(role, 0) + 1
    return out


def dashboards_on(
    page: Any, scope: Any, expected: tuple[DashboardExpectation, ...], name: str
) -> list[DashboardOnPage]:
    """The page's dashboards, in DOM order, paired with the kernel's (same count, or the test fails)."""
    from playwright.sync_api import expect

    found = scope.locator(DASHBOARD)
    expect(found).to_have_count(len(expected), timeout=ROUND_TRIP_MS)
    return [DashboardOnPage(page, found.nth(e.index), e, name) for e in expected]
