"""The API's docs page (Swagger UI, served from our own static files) draws every endpoint in a real Chromium under
the strict Content-Security-Policy, with nothing refused by it (issue 28)."""

from __future__ import annotations

from playwright.sync_api import expect


def test_the_api_docs_page_draws_every_endpoint_under_our_csp(new_page):
    page = new_page(1280, 800)
    refused: list[str] = []
    page.on(
        "console", lambda message: refused.append(message.text) if "Content Security Policy" in message.text else None
    )
    page.on("pageerror", lambda error: refused.append(str(error)))
    page.goto("/api/docs")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Lantern API")
    expect(page.locator(".opblock")).to_have_count(13)  # the twelve, and the table's event feed (issue 37)
    expect(page.locator(".opblock-summary-path").first).to_be_visible()
    assert refused == []
