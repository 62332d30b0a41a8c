"""The console in a real browser: Debian's Chromium (its headless shell) driven by Playwright, the
checks a person at a table would make (does it fit the screen, can a thumb hit every control, does
a screen reader get a usable page: axe-core, shipped in support/axe/), and a screenshot of each
screen."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .served import ROOT, WAIT_S

CHROMIUM = Path(os.environ.get("MORALE_CHROMIUM", "/usr/bin/chromium-headless-shell"))
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WAIT_MS = WAIT_S * 1000
AXE = Path(__file__).parent / "axe" / "axe.min.js"
# Written by the browser tests, one picture per screen, ruleset and screen size (gitignored).
SCREENSHOTS = ROOT / "screenshots"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
TAP_PX = 44


@contextmanager
def chromium() -> Iterator[object]:
    if not CHROMIUM.exists():
        raise RuntimeError(f"{CHROMIUM} is missing: `make test` installs it (apt-get install chromium-headless-shell)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS)
        try:
            yield launched
        finally:
            launched.close()


def screenshot(page, name: str) -> Path:
    SCREENSHOTS.mkdir(exist_ok=True)
    size = page.viewport_size
    path = SCREENSHOTS / f"{re.sub(r'[^a-z0-9-]+', '-', name.lower())}-{size['width']}x{size['height']}.png"
    page.screenshot(path=str(path), full_page=False)
    return path


def serious_violations(page) -> list[str]:
    """axe-core's serious and critical violations of the page as it stands, one line each."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        # Through the debugger, not a <script> tag: the console's Content-Security-Policy runs only
        # its own scripts, and rightly refuses an inline one, even a test's.
        session = page.context.new_cdp_session(page)
        try:
            session.send("Runtime.evaluate", {"expression": AXE.read_text(encoding="utf-8")})
        finally:
            session.detach()
    found = page.evaluate(
        """async () => (await axe.run(document, {resultTypes: ["violations"]})).violations
            .filter(v => v.impact === "serious" || v.impact === "critical")
            .map(v => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map(n => n.target.join(" ")).join(", ")}`)"""
    )
    return list(found)


# What a person would notice at once: the page wider than the screen, a control too small for a
# thumb or off the screen's edge, two controls or two cards lying over each other, content hidden for
# good under the tabs fixed at the bottom.
_LAYOUT = """
(tap) => {
  window.scrollTo(0, 0);
  const problems = [];
  const width = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > width + 1) {
    problems.push(`the page is ${document.documentElement.scrollWidth}px wide on a ${width}px screen`);
  }
  for (const panel of document.querySelectorAll("*")) if (panel.scrollTop) panel.scrollTop = 0;
  // Shown: has a box, is not folded away in a closed <details>, and is not scrolled out of a panel.
  const clipped = (e, r) => {
    for (let a = e.parentElement; a; a = a.parentElement) {
      if (!/(auto|scroll|hidden)/.test(getComputedStyle(a).overflowY)) continue;
      const box = a.getBoundingClientRect();
      if (r.bottom <= box.top || r.top >= box.bottom) return true;
    }
    return false;
  };
  const shown = (e) => {
    const r = e.getBoundingClientRect();
    const folded = e.closest("details:not([open])") && !e.matches("summary");
    return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== "hidden" && !folded && !clipped(e, r);
  };
  const name = (e) =>
    `${e.tagName.toLowerCase()}${e.id ? "#" + e.id : ""} "${(e.innerText || e.value || "").trim().slice(0, 40)}"`;
  const controls = [...document.querySelectorAll("button, input, select, textarea, a[href], summary")].filter(shown);
  for (const c of controls) {
    const r = c.getBoundingClientRect();
    if (r.width < tap - 0.5 || r.height < tap - 0.5) {
      problems.push(`${name(c)} is ${Math.round(r.width)}x${Math.round(r.height)} px`);
    }
    if (r.left < -1 || r.right > width + 1) problems.push(`${name(c)} runs off the screen`);
  }
  const tabs = document.querySelector("#tabs");
  const fixed = tabs && getComputedStyle(tabs).position === "fixed";
  const overlapping = (items) => {
    const boxes = items.map((e) => [e, e.getBoundingClientRect()]);
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const [a, ra] = boxes[i], [b, rb] = boxes[j];
        if (a.contains(b) || b.contains(a)) continue;
        const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
        const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
        if (w > 1 && h > 1) problems.push(`${name(a)} and ${name(b)} overlap`);
      }
    }
  };
  overlapping(controls.filter((c) => !(fixed && tabs.contains(c))));
  const blocks = ".unit, .test, ol.steps > li, ol.log > li, #due-banner, #past, #notice, #problem, fieldset";
  overlapping([...document.querySelectorAll(blocks)].filter(shown));
  if (fixed) {
    const room = parseFloat(getComputedStyle(document.querySelector("#console")).paddingBottom);
    if (room < tabs.getBoundingClientRect().height) problems.push("the last lines of a screen stay under the tabs");
  }
  return problems;
}
"""


def layout_problems(page) -> list[str]:
    return list(page.evaluate(_LAYOUT, TAP_PX))
