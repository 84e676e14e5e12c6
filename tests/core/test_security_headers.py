"""Every response carries the same security headers: pages, htmx fragments, errors, admin and the event stream."""

from __future__ import annotations

import asyncio

import pytest
from django.test import AsyncClient
from django.urls import reverse

from core.security import SECURITY_HEADERS
from tests.campaigns.live_helpers import Stream, run, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)


def assert_secured(headers) -> None:
    for name, value in SECURITY_HEADERS.items():
        assert headers[name] == value, name
    csp = headers["Content-Security-Policy"]
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp and "object-src 'none'" in csp
    assert "camera=()" in headers["Permissions-Policy"] and "microphone=()" in headers["Permissions-Policy"]
    assert headers["Cross-Origin-Opener-Policy"] == "same-origin"


def test_a_page_carries_the_security_headers(campaign, player, as_user):
    response = as_user(player).get(campaign.get_absolute_url())
    assert response.status_code == 200
    assert_secured(response)


def test_an_htmx_fragment_carries_the_security_headers(as_user, player):
    response = as_user(player).get(reverse("campaigns:list"), headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert_secured(response)


def test_a_404_and_the_login_page_carry_the_security_headers(as_user, player):
    assert_secured(as_user(player).get("/no/such/page/"))
    assert_secured(as_user(None).get(reverse("login")))


def test_no_template_needs_inline_script_or_style(as_user, campaign, gm):
    """The CSP forbids inline code: pages must have none, and htmx is told not to inject any."""
    body = as_user(gm).get(campaign.get_absolute_url()).content.decode()
    assert " style=" not in body and "<style" not in body
    assert "<script>" not in body and "<script " not in body.replace('<script src="', "")
    assert '"includeIndicatorStyles": false' in body and '"allowEval": false' in body


def test_an_admin_page_carries_the_security_headers_and_works(db, as_user):
    from django.contrib.auth import get_user_model

    admin = get_user_model().objects.create_superuser("root", password="correct-horse-battery")
    client = as_user(admin)
    for url in (reverse("admin:index"), reverse("admin:auth_user_changelist"), reverse("admin:auth_user_add")):
        response = client.get(url)
        assert response.status_code == 200, url
        assert_secured(response)
        # The admin's own scripts and styles are files, so script-src/style-src 'self' is enough.
        assert "<script>" not in response.content.decode()


def test_the_raw_asgi_event_stream_carries_the_same_headers(campaign, player):
    path, cookie = reverse("campaigns:events", args=[campaign.pk]), session_cookie(player)

    async def scenario():
        stream = await Stream(path, cookie).open()
        await stream.close()
        return stream

    stream = run(scenario())
    assert stream.status == 200
    assert_secured(_titled(stream.headers))


def test_a_refused_raw_stream_carries_the_headers_too(campaign, stranger):
    path, cookie = reverse("campaigns:events", args=[campaign.pk]), session_cookie(stranger)

    async def scenario():
        stream = await Stream(path, cookie).open()
        await stream.task
        return stream

    stream = run(scenario())
    assert stream.status == 404
    assert_secured(_titled(stream.headers))


def test_the_django_view_of_the_stream_carries_the_headers(campaign, player):
    path, cookie = reverse("campaigns:events", args=[campaign.pk]), session_cookie(player)

    async def scenario():
        client = AsyncClient()
        client.cookies["sessionid"] = cookie
        response = await client.get(path)
        chunks = aiter(response.streaming_content)
        await asyncio.wait_for(anext(chunks), 5)
        await chunks.aclose()
        return response

    response = run(scenario())
    assert response.status_code == 200
    assert_secured(response)


def _titled(headers: dict[str, str]) -> dict[str, str]:
    """ASGI header names are lower case; look them up by the names SECURITY_HEADERS uses."""
    lowered = {name.lower(): value for name, value in headers.items()}
    return {name: lowered[name.lower()] for name in SECURITY_HEADERS if name.lower() in lowered}
