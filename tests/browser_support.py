"""What the browser tests share: Debian's Chromium (Playwright's own browser download cannot reach its host from
here) driven headless by Playwright, with the flags that keep it off the network; the tests skip where either is
missing, except in CI, where a missing browser is a failure."""

from __future__ import annotations

import os
import shutil
import time

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
VIEWPORT = {"width": 1200, "height": 760}


def missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed (pip install playwright)"
    if CHROMIUM is None:
        return "Chromium is not installed (apt-get install chromium)"
    return None


def require_browser() -> None:
    """Call at a browser test module's top: skip it without a browser (fail in CI, where one must be)."""
    reason = missing()
    if reason:
        if os.environ.get("CI") == "true":
            raise RuntimeError(f"the browser tests must run in CI: {reason}")
        pytest.skip(reason, allow_module_level=True)



def open_page(browser, url: str, context=None, **context_options):
    """A new page (in `context`, or a new context with the test viewport and `context_options`) at `url`; the
    page's script errors collect in `page.errors`."""
    context = context or browser.new_context(viewport=VIEWPORT, **context_options)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(url)
    return page


def create_in_lobby(browser, url: str, game: str, seats: list[str], seed: int | None = None,
                    options: dict[str, str] | None = None):
    """The lobby at `url` opened, a game of `game` created as a person does (the seats' kinds, the seed, options
    typed or chosen by name); the lobby page, its seat links shown."""
    lobby = open_page(browser, url + "/")
    lobby.wait_for_selector("body[data-ready='true']")
    lobby.select_option("#game", game)
    lobby.select_option("#players", str(len(seats)))
    for k, kind in enumerate(seats):
        lobby.select_option(f"select[name=seat{k}]", kind)
    if seed is not None:
        lobby.fill("#seed", str(seed))
    for name, value in (options or {}).items():
        field = lobby.locator(f"[name='option-{name}']")
        if field.evaluate("(e) => e.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)
    lobby.click("#create")
    lobby.wait_for_selector("#links:not([hidden])")
    return lobby


def body(page, name: str) -> str | None:
    """The page's state as its body's `data-NAME` attribute shows it (what the tests and screen readers read)."""
    return page.get_attribute("body", f"data-{name}")


def wait_until(check, timeout: float = 30, what: str = "") -> None:
    """Poll `check` until it is true; fail naming `what` after `timeout` seconds."""
    deadline = time.time() + timeout
    while not check():
        if time.time() > deadline:
            raise AssertionError(f"timed out waiting for {what or check}")
        time.sleep(0.05)


# --- the card games: playing by clicking the canvas only (static/js/cardpoint.js) ------------------------------------

_SPOT_POINTS = """(key) => {
  const p = window.towerPage, s = p.scene, pts = [];
  const spot = p.pointer && p.pointer.spots.get(key);
  if (!spot) return null;
  for (const b of s.blocks) {
    if (spot.items.includes(b.id) || b.id.startsWith(`spot:${key}:`)) {
      for (const [u, v] of [[0.5, 0.5], [0.3, 0.3], [0.7, 0.7], [0.3, 0.7], [0.7, 0.3]]) {
        pts.push([b.origin[0] + u * b.size[0], b.origin[1] + v * b.size[1], b.origin[2] + b.size[2]]);
      }
    }
  }
  for (const f of spot.figures) {
    const g = s.figures[f];
    pts.push([g.cell[0] + 0.5, g.cell[1] + 0.5, g.cell[2] + 0.6 * g.scale]);
  }
  const rect = p.view.renderer.domElement.getBoundingClientRect();
  for (const pt of pts) {
    const [x, y] = p.view.project(pt);
    if (x < rect.left + 2 || y < rect.top + 2 || x > rect.right - 2 || y > rect.bottom - 2) continue;
    const el = document.elementFromPoint(x, y);
    if (!el || el.tagName !== 'CANVAS') continue;
    const hit = p.view.pickAt(x, y);
    if (hit && p.pointer.spotAt(hit.layer, hit.index, s) === key) return [x, y];
  }
  return null;
}"""


def click_spot(page, key: str) -> bool:
    """Move the mouse onto a point of the canvas where the page's own picking finds spot `key`, and click there;
    False if no such point is in view."""
    at = page.evaluate(_SPOT_POINTS, key)
    if at is None:
        return False
    page.mouse.move(*at)
    page.mouse.click(*at)
    return True


def play_by_pointing(page, choice: int, timeout: float = 30) -> tuple[str, int]:
    """Play one of the legal moves of a card game's page by clicking on its canvas only: the click path of move
    number `choice` (modulo), or the next one whose spots are all in view. (the move text, the clicks made)."""
    table = page.evaluate("() => window.towerPage.snapshot.pointing")
    paths = table["paths"]
    n, sent = body(page, "n"), body(page, "sent")
    missed = []
    for k in range(len(paths)):
        move, path = paths[(choice + k) % len(paths)]
        text = table["moves"][move][0]
        clicks = 0
        for key in [*path, path[-1]]:
            if not click_spot(page, key):
                missed.append(key)
                break
            clicks += 1
            if body(page, "n") != n or body(page, "sent") != sent:  # the click sent the move
                wait_until(lambda: body(page, "n") != n, timeout, f"the move {text} to be shown")
                return text, clicks
        page.keyboard.press("Escape")  # a spot out of view: put the card back, try another move
    raise AssertionError(f"no legal move could be played by clicking on the canvas; out of view: {missed[:6]}")
