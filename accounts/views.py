from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from accounts import tables
from accounts.forms import SignupForm, TokenForm
from accounts.models import ApiToken
from accounts.tokens import TokenError, token_create, token_revoke
from core.htmx import HtmxHttpRequest


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


def api_tokens(request: HtmxHttpRequest) -> HttpResponse:
    """The account's API tokens: made here (the secret shown once, on this answer only), listed, revoked."""
    run = tables.campaigns_run_by(request.user)
    form = TokenForm(request.POST or None, run=run)
    made = None
    if request.method == "POST" and form.is_valid():
        scope, campaign_id = form.scope_and_campaign()
        try:
            made = token_create(
                user=request.user,
                name=form.cleaned_data["name"],
                scope=scope,
                campaign_id=campaign_id,
                lifetime_days=form.cleaned_data["lifetime"],
            )
            form = TokenForm(run=run)
        except TokenError as problem:
            form.add_error(None, str(problem))
    status = 400 if form.errors else 200
    tokens = ApiToken.objects.filter(user=request.user).select_related("campaign")
    context = {
        "form": form,
        "tokens": tokens,
        "made": made,
        "limit": settings.API_TOKENS_PER_USER,
        "now": timezone.now(),
    }
    response = render(request, "registration/api_tokens.html", context, status=status)
    if made is not None:
        response["Cache-Control"] = "no-store"  # the secret is on this page: never kept by a browser or a proxy
    return response


@require_POST
def api_token_revoke(request: HtmxHttpRequest, token_id: int) -> HttpResponse:
    if token_revoke(user=request.user, token_id=token_id):
        messages.success(request, "Token revoked: it opens nothing from now on.")
    else:
        messages.error(request, "That token is gone already.")
    return redirect("api_tokens")
