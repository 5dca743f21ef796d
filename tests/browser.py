"""A report opened in headless Chromium (Debian's ``chromium``) driven by Playwright, for the browser tests.

Playwright never downloads a browser here: it is pointed at the system's Chromium, and a test without
one (or without Playwright) skips, naming what is missing.  The page is opened from its file with every
network request refused and listed (a report must not need the network), so a test asserts the list
is empty.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest


def chromium() -> str | None:
    """The system's Chromium: ``RELREASON_CHROMIUM``, else ``chromium`` on the PATH, else None."""
    for candidate in (os.environ.get("RELREASON_CHROMIUM"), shutil.which("chromium"), "/usr/bin/chromium"):
        if candidate and Path(candidate).exists():
            return candidate
    return None


@contextmanager
def offline_page(html: Path, requested: list[str]) -> Iterator[Any]:
    """``html`` loaded in a 1280x900 page; every request that is not ``file:`` or ``data:`` is refused
    and its URL appended to ``requested``.  Skips the test without Playwright or Chromium."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (pip install -e '.[dev]')")
    executable = chromium()
    if executable is None:
        pytest.skip(
            "no Chromium at /usr/bin/chromium (apt-get install chromium); RELREASON_CHROMIUM names another"
        )
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, headless=True, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})

            def refuse(route: Any) -> None:
                if not route.request.url.startswith(("file:", "data:")):
                    requested.append(route.request.url)
                    route.abort()
                    return
                route.continue_()

            page.route("**/*", refuse)
            page.goto(html.as_uri(), wait_until="load")
            yield page
        finally:
            browser.close()


def image_widths(page: Any, selector: str) -> list[int]:
    """The natural width of each image ``selector`` matches: 0 for one that has not decoded."""
    return page.eval_on_selector_all(selector, "imgs => imgs.map(i => i.complete ? i.naturalWidth : 0)")
