"""The app's URLs with three bare views in front: the floor any page pays in this middleware stack.

``/bench/bare/`` answers a few bytes of HTML to anyone and touches nothing; ``/bench/bare-user/`` is behind
the login like every page (LoginRequiredMiddleware reads the session's user: a logged-in page's floor);
``/bench/django/`` is the first one served by Django without any middleware (bench_bare_handler): Django's own
floor.
"""

from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse
from django.urls import path

from config.urls import *  # noqa: F403 - handler404 and friends stay the app's
from config.urls import urlpatterns as app_urlpatterns

PAGE = "<!doctype html><title>bare</title><p>bare</p>"


@login_not_required
def bare(request: HttpRequest) -> HttpResponse:
    return HttpResponse(PAGE)


def bare_user(request: HttpRequest) -> HttpResponse:
    return HttpResponse(PAGE)


urlpatterns = [
    path("bench/django/", bare),
    path("bench/bare/", bare),
    path("bench/bare-user/", bare_user),
    *app_urlpatterns,
]
