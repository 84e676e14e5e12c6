"""A signed-in person's 404s and CSRF refusals answer 404 and 403 under the real ASGI server, never a 500.

Under uvicorn the middleware chain runs async. A refusal made before any view (an unknown URL, a forged or
stale CSRF token, an id beyond range) leaves ``request.user`` unread, and a middleware that read it on the way
out loaded the session synchronously inside the event loop: ``SynchronousOnlyOperation``, a 500 for everyone
signed in, on every server (issue 35, item 9). The test client runs the chain sync and never saw it, so these
requests go over real HTTP (httpx) to uvicorn serving the test database.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from tests.campaigns.live_helpers import session_cookie
from tests.campaigns.test_live_server import _free_port, _server_env, _start, _stop, _wait_listening

pytestmark = pytest.mark.django_db(transaction=True)

HUGE = "1" + "0" * 30  # 10³⁰: more digits than any id
UNKNOWN = [
    "/nothing-here/",
    f"/campaigns/{HUGE}/",
    f"/campaigns/{HUGE}/events/",
    f"/characters/{HUGE}/",
    "/characters/9223372036854775808/",  # one past the largest bigint
    "/campaigns/٣/",
    "/characters/1/region/%00/",
    "/api-nothing/",
]
# Discord's door takes no cookie and no CSRF token: Ed25519-signed posts only (tests/discord refuse the rest, 401).
SIGNED_NOT_CSRF = "discord/interactions/"
PARAMETER = re.compile(r"<(?:(\w+):)?(\w+)>")


def _app_paths(patterns, prefix: str = "") -> Iterator[str]:
    """Every path of the app's own URLs (not the admin's, not the API's token-authenticated ones)."""
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            yield from _app_paths(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern) and not route.startswith(("admin/", "api/", "^", SIGNED_NOT_CSRF)):
            yield route


def _filled(route: str, ids: dict[str, int]) -> str:
    """A route with real ids in it (the table's, its character's) and a word for every text part."""

    def value(match: re.Match[str]) -> str:
        converter, name = match.group(1), match.group(2)
        if converter == "id" or name.endswith("id") or name == "pk":
            return str(ids.get(name, ids["pk"]))
        return "x"

    return "/" + PARAMETER.sub(value, route)


@pytest.fixture
def served(gm, player, campaign, hero, tmp_path) -> Iterator[tuple[str, dict[str, str]]]:
    """uvicorn serving this test's database, and the session cookies of its player and GM."""
    cookies = {"player": session_cookie(player), "gm": session_cookie(gm)}
    env, port, log = _server_env(tmp_path), _free_port(), tmp_path / "uvicorn.log"
    server = _start(port, env, log)
    try:
        _wait_listening(server, port, log)
        yield f"http://127.0.0.1:{port}", cookies
    finally:
        _stop(server)


def _answers(base: str, cookies: dict[str, str], requests: list[tuple[str, str, dict]]) -> dict[str, int]:
    with httpx.Client(base_url=base, cookies=cookies, timeout=30) as client:
        return {
            f"{method} {path}": client.request(method, path, **extra).status_code for method, path, extra in requests
        }


@pytest.mark.parametrize("who", ["player", "gm"])
def test_unknown_urls_forged_and_stale_csrf_and_absurd_ids_are_refused_not_500(who, served, campaign, hero, request):
    base, cookies = served
    with httpx.Client(base_url=base, cookies={"sessionid": cookies[who]}, timeout=30) as client:
        page = client.get("/characters/")
    assert page.status_code == 200
    assert page.headers["X-Lantern-User"] == str(request.getfixturevalue(who).pk), "the worker still learns whose"
    ids = {"pk": hero.pk, "character_id": hero.pk, "campaign_id": campaign.pk}
    posts = sorted({_filled(route, ids) for route in _app_paths(get_resolver().url_patterns)})
    posts += [path.replace(str(hero.pk), str(campaign.pk), 1) for path in posts if path.startswith("/campaigns/")]
    signed_in = {"sessionid": cookies[who]}
    # No token at all (a forged form), and unknown URLs read and posted to.
    forged = [("GET", path, {}) for path in UNKNOWN] + [("POST", path, {"data": {"name": "Wren"}}) for path in posts]
    forged += [("POST", path, {"headers": {"HX-Request": "true"}}) for path in UNKNOWN]
    statuses = _answers(base, signed_in, forged)
    # A form whose token is from before signing in again on another tab: the cookie's token no longer matches.
    stale = [("POST", path, {"data": {"csrfmiddlewaretoken": "b" * 32, "name": "Wren"}}) for path in posts]
    stale_statuses = _answers(base, {**signed_in, "csrftoken": "a" * 32}, stale)

    answered = {**statuses, **{f"{request} (stale token)": status for request, status in stale_statuses.items()}}
    errors = {request: status for request, status in answered.items() if status >= 500}
    assert not errors, f"{len(errors)} of {len(answered)} answered 5xx: {errors}"
    assert all(statuses[f"GET {path}"] == 404 for path in UNKNOWN)
    assert {statuses[f"POST {path}"] for path in UNKNOWN} <= {403, 404}  # the region one resolves: no token
    for answers in ({path: statuses[f"POST {path}"] for path in posts}, stale_statuses):
        # Refused as forged (403); the live stream, served outside Django, answers a POST 405.
        assert set(answers.values()) <= {403, 405}, answers
        assert list(answers.values()).count(403) > 60, "the crawl reached the app's forms"
