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
