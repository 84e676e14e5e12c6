"""The API's URLs, open to requests without a session: the token is checked by each endpoint (api.access), and
the schema and its docs page are public (they describe, they hold nothing)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver

from api.app import api


def _without_login_redirect(patterns: list) -> list:
    """LoginRequiredMiddleware would send a program to the login page: the API answers 401 itself."""
    for pattern in patterns:
        if isinstance(pattern, URLPattern):
            pattern.callback.login_required = False  # type: ignore[attr-defined]
        elif isinstance(pattern, URLResolver):
            _without_login_redirect(pattern.url_patterns)
    return patterns


patterns, app_name, namespace = api.urls
urls = (_without_login_redirect(patterns), app_name, namespace)
