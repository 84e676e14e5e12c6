"""The API's docs page (Swagger UI, served from our own static files) draws every endpoint in a real Chromium under
the strict Content-Security-Policy, with nothing refused by it (issue 28)."""

from __future__ import annotations

from playwright.sync_api import expect

from api.app import api


def test_the_api_docs_page_draws_every_endpoint_under_our_csp(new_page):
    page = new_page(1280, 800)
    refused: list[str] = []
    page.on(
        "console", lambda message: refused.append(message.text) if "Content Security Policy" in message.text else None
    )
    page.on("pageerror", lambda error: refused.append(str(error)))
    page.goto("/api/docs")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Lantern API")
    operations = sum(len(methods) for methods in api.get_openapi_schema()["paths"].values())
    expect(page.locator(".opblock")).to_have_count(operations)  # every operation the schema has
    expect(page.locator(".opblock-summary-path").first).to_be_visible()
    assert refused == []
