"""Type hint for requests that passed through django-htmx's middleware (and LoginRequiredMiddleware)."""

from django.contrib.auth.models import User
from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails
    # Every view typed with this request is behind LoginRequiredMiddleware: its user is signed in. (The few
    # views marked login_not_required take a plain HttpRequest.)
    user: User
