"""The installable app (issue 29): its manifest, its service worker served from the root, and logout that
leaves nothing of the person on the device.

The worker is a hand-written file (static/js/sw.js, about 125 lines: no library; what it does fits in one screen)
served here rather than from /static/ because a worker controls only the paths under its own URL: at /sw.js
it may keep the sheets (/characters/...) for offline reading."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import brotli
from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.templatetags.static import static
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.utils.decorators import sync_and_async_middleware
from django.views.decorators.http import require_GET

from core.compress import ACCEPTS_BROTLI
from core.static_files import minified

# The header's colour in each scheme (lantern.css --card): the phone's status bar matches the page.
THEME_LIGHT, THEME_DARK = "#ffffff", "#221d18"
BACKGROUND = "#faf7f2"  # lantern.css --bg (light): the splash screen while the app starts


@require_GET
@login_not_required
def manifest(request: HttpRequest) -> JsonResponse:
    """The web app manifest: what a phone needs to install Lantern; it opens on the player's characters."""
    icons = [
        {"src": static("img/app/icon-192.png"), "sizes": "192x192", "type": "image/png", "purpose": "any"},
        {"src": static("img/app/icon-512.png"), "sizes": "512x512", "type": "image/png", "purpose": "any"},
        {"src": static("img/app/icon-512.png"), "sizes": "512x512", "type": "image/png", "purpose": "maskable"},
        {"src": static("img/lantern.svg"), "sizes": "any", "type": "image/svg+xml", "purpose": "any"},
    ]
    data = {
        "id": "/",
        "name": "Lantern",
        "short_name": "Lantern",
        "description": "Character sheets and dice for your table.",
        "start_url": reverse("characters:list"),
        "scope": "/",
        "display": "standalone",
        "background_color": BACKGROUND,
        "theme_color": THEME_LIGHT,
        "icons": icons,
    }
    response = JsonResponse(data, content_type="application/manifest+json")
    response["Cache-Control"] = "public, max-age=3600"
    return response


@cache
def _worker_source() -> bytes:
    found = finders.find("js/sw.js")
    if found:
        with open(found, "rb") as file:  # noqa: PTH123 - a path the finders gave
            source = file.read()
    else:
        with staticfiles_storage.open("js/sw.js") as file:  # collected (production, no finders)
            source = file.read()
    # Minified as collectstatic minifies the other scripts (issue 39); readable while developing.
    return source if settings.DEBUG else minified("js/sw.js", source)


@cache
def _worker_brotli() -> bytes:
    """Compressed once, at Brotli's best, as WhiteNoise compresses the other static files (no secret in it, so
    no padding against BREACH: core.compress)."""
    return brotli.compress(_worker_source(), mode=brotli.MODE_TEXT)


@require_GET
@login_not_required
def service_worker(request: HttpRequest) -> HttpResponse:
    """static/js/sw.js at the root, so its scope is the whole app; never kept stale by a cache (the browser
    checks it for updates on each visit)."""
    takes_brotli = ACCEPTS_BROTLI.search(request.headers.get("Accept-Encoding", ""))
    response = HttpResponse(
        _worker_brotli() if takes_brotli else _worker_source(), content_type="text/javascript; charset=utf-8"
    )
    patch_vary_headers(response, ("Accept-Encoding",))
    if takes_brotli:
        response["Content-Encoding"] = "br"  # core.compress leaves it as it is
    response["Service-Worker-Allowed"] = "/"
    response["Cache-Control"] = "no-cache"
    return response


class LogoutView(auth_views.LogoutView):
    """Logging out empties this browser of the person's kept sheets and changes (caches, IndexedDB, the worker):
    ``Clear-Site-Data``. The next page's script does the same where a browser ignores the header."""

    def post(self, request, *args, **kwargs):
        response = super().post(request, *args, **kwargs)
        response["Clear-Site-Data"] = '"cache", "storage"'
        return response


# Who is signed in on this browser, for the service worker (it reads it with cookieStore, offline too): set with
# the session's own lifetime, so it goes when the session cookie expires; removed by the first answer after the
# session ended any other way (logged out, a password changed elsewhere). It holds only the account's id: the
# worker serves kept sheets from that person's cache alone, and from none when it is gone.
USER_COOKIE = "lantern_user"


def _is_html(response: HttpResponse) -> bool:
    return response.get("Content-Type", "").startswith("text/html")


def _mark_user(request: HttpRequest, response: HttpResponse, user) -> HttpResponse:
    if _is_html(response) and user is not None and user.is_authenticated:
        response["X-Lantern-User"] = str(user.pk)
    _user_cookie(request, response, user)
    return response


def _user_cookie(request: HttpRequest, response: HttpResponse, user) -> None:
    if getattr(request, "auth", None) is not None or not hasattr(request, "session"):
        return  # an API call (its token says who, not a session) or no session at all
    if user is None or not user.is_authenticated:
        if USER_COOKIE in request.COOKIES:
            response.delete_cookie(USER_COOKIE, samesite="Lax")
        return
    session = request.session
    # As SessionMiddleware renews the session cookie (a modified session, or every request if so configured).
    renewed = session.modified or settings.SESSION_SAVE_EVERY_REQUEST
    if request.COOKIES.get(USER_COOKIE) == str(user.pk) and not renewed:
        return
    response.set_cookie(
        USER_COOKIE,
        str(user.pk),
        max_age=None if session.get_expire_at_browser_close() else session.get_expiry_age(),
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=False,  # read by the service worker
        samesite="Lax",
    )


@sync_and_async_middleware
def user_header(get_response: Callable) -> Callable:
    """Tells the service worker whose page this is (``X-Lantern-User``), so a kept sheet goes into that
    person's own cache and nobody else's. Async-capable like the security headers' middleware.

    A request refused before any view (an unknown URL, a forged CSRF token) arrives here with the user still
    unread: the async branch asks ``request.auser()``, never the lazy ``request.user``, whose session query would
    run inside the event loop and turn every such 404 and 403 into a 500 (issue 35, item 9)."""
    if iscoroutinefunction(get_response):

        async def middleware(request: HttpRequest) -> HttpResponse:
            response = await get_response(request)
            if not hasattr(request, "auser") or getattr(request, "auth", None) is not None:
                return response  # no session here, or an API call (its token says who): no session to read
            return _mark_user(request, response, await request.auser())

        return markcoroutinefunction(middleware)

    def middleware_sync(request: HttpRequest) -> HttpResponse:
        return _mark_user(request, get_response(request), getattr(request, "user", None))

    return middleware_sync
