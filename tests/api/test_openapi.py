"""The API's OpenAPI schema is served, is valid OpenAPI 3.1 (openapi-spec-validator), and names every endpoint; its
docs page loads only Lantern's own files, under the strict Content-Security-Policy every page carries."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from openapi_spec_validator import validate

from core.security import CONTENT_SECURITY_POLICY

pytestmark = pytest.mark.django_db

ENDPOINTS = {
    ("get", "/api/me"),
    ("get", "/api/characters"),
    ("get", "/api/characters/{character_id}"),
    ("get", "/api/characters/{character_id}/requests"),
    ("get", "/api/characters/{character_id}/procedures"),
    ("post", "/api/characters/{character_id}/odds/{procedure}"),
    ("post", "/api/characters/{character_id}/rolls/{procedure}"),
    ("post", "/api/characters/{character_id}/tracks"),
    ("post", "/api/characters/{character_id}/requests/{request_id}/answer"),
    ("get", "/api/campaigns/{campaign_id}/log"),
    ("get", "/api/campaigns/{campaign_id}/party"),
    ("get", "/api/campaigns/{campaign_id}/requests"),
    ("get", "/api/campaigns/{campaign_id}/events"),
    # the GM's table (api.table)
    ("post", "/api/campaigns/{campaign_id}/clock"),
    ("post", "/api/campaigns/{campaign_id}/time/advance"),
    ("post", "/api/campaigns/{campaign_id}/time/daylight"),
    ("post", "/api/campaigns/{campaign_id}/encounter/{action}"),
    ("post", "/api/campaigns/{campaign_id}/npcs/{npc_id}/{action}"),
    ("post", "/api/campaigns/{campaign_id}/hits/{hit_id}/undo"),
    ("post", "/api/campaigns/{campaign_id}/co-gms"),
    ("post", "/api/campaigns/{campaign_id}/hand-over"),
    ("post", "/api/campaigns/{campaign_id}/requests"),
    ("post", "/api/campaigns/{campaign_id}/requests/{request_id}/cancel"),
    ("get", "/api/campaigns/{campaign_id}/sessions"),
    ("get", "/api/campaigns/{campaign_id}/sessions/{number}/chronicle"),
    ("post", "/api/campaigns/{campaign_id}/sessions/start"),
    ("post", "/api/campaigns/{campaign_id}/sessions/end"),
    ("post", "/api/campaigns/{campaign_id}/requests/{request_id}/close"),
    ("post", "/api/campaigns/{campaign_id}/requests/{request_id}/skip/{character_id}"),
    ("get", "/api/campaigns/{campaign_id}/time"),  # issue 41: the time of play and the countdowns
    ("post", "/api/campaigns/{campaign_id}/time/realtime"),
    ("post", "/api/campaigns/{campaign_id}/countdowns"),
    ("post", "/api/campaigns/{campaign_id}/countdowns/{countdown_id}/tick"),
    ("post", "/api/campaigns/{campaign_id}/lights/{item_id}"),
    ("get", "/api/campaigns/{campaign_id}/stash"),
    ("post", "/api/campaigns/{campaign_id}/stash/take"),
    ("post", "/api/campaigns/{campaign_id}/stash/put"),
}


def test_the_schema_is_served_without_a_token_and_is_valid_openapi():
    response = Client().get("/api/openapi.json")
    assert response.status_code == 200 and response["Content-Type"].startswith("application/json")
    schema = response.json()
    validate(schema)  # raises on anything the OpenAPI 3.1 specification refuses
    assert schema["openapi"].startswith("3.1")
    found = {(method, path) for path, item in schema["paths"].items() for method in item}
    assert found == ENDPOINTS
    assert schema["components"]["securitySchemes"]["TokenAuth"] == {"type": "http", "scheme": "bearer"}
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            assert operation["security"] == [{"TokenAuth": []}], (method, path)
            # every refusal is documented as {"detail": "…"}
            assert any(code.startswith("4") for code in operation["responses"]), (method, path)


def test_the_docs_page_loads_only_our_own_files_under_our_csp():
    response = Client().get("/api/docs")
    assert response.status_code == 200
    assert response["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    html = response.content.decode()
    sources = re.findall(r'<(?:script|link)[^>]+(?:src|href)="([^"]+)"', html)
    assert sources and all(src.startswith("/static/") for src in sources), sources
    # No script runs from the page itself: the only inline <script> is JSON data (the settings), never executed.
    inline = re.findall(r"<script(?![^>]*\bsrc=)([^>]*)>", html)
    assert inline == [' type="application/json" id="swagger-settings"']
    for src in sources:
        assert Client().get(src).status_code == 200, src


def test_the_readme_links_the_schema_and_the_guide():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert "/api/openapi.json" in readme and "/api/docs" in readme and "docs/api.md" in readme
