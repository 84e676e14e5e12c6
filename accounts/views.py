from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme

from accounts.forms import SignupForm


@login_not_required
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("campaigns:list")
    next_url = request.POST.get("next") or request.GET.get("next") or ""
    if not url_has_allowed_host_and_scheme(next_url, allowed_hosts={request.get_host()}):
        next_url = ""
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")  # axes only refuses
        messages.success(request, f"Welcome to Lantern, {user.username}.")
        return redirect(next_url or "campaigns:list")
    status = 400 if request.method == "POST" else 200
    return render(request, "registration/signup.html", {"form": form, "next": next_url}, status=status)


def login_locked_out(
    request: HttpRequest, original_response: HttpResponse | None, credentials: dict | None
) -> HttpResponse:
    """django-axes calls this instead of the login view while an account or address is locked."""
    minutes = max(1, round(settings.AXES_COOLOFF_TIME.total_seconds() / 60))
    return render(request, "registration/lockout.html", {"minutes": minutes}, status=429)
