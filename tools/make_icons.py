"""Draws the app's PNG icons (the web app manifest's 192 and 512 px) from static/img/lantern.svg, once.

Run from the repository root when the logo changes, and commit the PNGs:

    /usr/bin/env python tools/make_icons.py

Debian's Chromium (the browser tests' own, through Playwright) draws the SVG: no image library to add.
Each icon is the logo on the light theme's page colour with a safe margin, so it serves as "maskable" too
(the launcher may cut it to a circle: the lantern stays inside the middle 80%).
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import sync_playwright

HERE = Path(__file__).resolve().parents[1] / "static" / "img" / "app"
LOGO = (HERE.parent / "lantern.svg").read_text()
BACKGROUND = "#faf7f2"  # --bg of the light theme (lantern.css)


def main() -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        for size in (192, 512):
            page = browser.new_page(viewport={"width": size, "height": size})
            logo = size * 0.6
            page.set_content(
                f'<body style="margin:0;width:{size}px;height:{size}px;background:{BACKGROUND};display:grid;'
                f'place-items:center">'
                f'<div style="width:{logo}px;height:{logo}px">{LOGO.replace("<svg ", "<svg width=100% height=100% ")}'
                "</div></body>"
            )
            page.screenshot(path=str(HERE / f"icon-{size}.png"), omit_background=False)
            page.close()
        browser.close()


if __name__ == "__main__":
    main()
