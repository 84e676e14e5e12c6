"""Sign up, log in, log out, change password: Django's auth behind Lantern's pages."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from tests.pages import form_fields

pytestmark = pytest.mark.django_db


def _submit(client, url: str, page_url: str | None = None, **changes):
    """Post the page's own form (``form_fields``) with ``changes``: what a person filling it in sends."""
    return client.post(url, form_fields(client.get(page_url or url), url, **changes))


def test_sign_up_logs_you_in_and_goes_to_your_campaigns(as_user):
    client = as_user(None)
    response = _submit(
        client, reverse("signup"), username="mira", password1="lantern-light-42", password2="lantern-light-42"
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("campaigns:list")
    assert client.get(reverse("campaigns:list")).status_code == 200


def test_sign_up_follows_a_safe_next_link_only(as_user):
    data = {"username": "mira", "password1": "lantern-light-42", "password2": "lantern-light-42"}
    page = f"{reverse('signup')}?next=/campaigns/join/abc/"  # the join link sends a stranger here
    response = _submit(as_user(None), reverse("signup"), page, **data)
    assert response["Location"] == "/campaigns/join/abc/"
    response = _submit(
        as_user(None), reverse("signup"), page, **{**data, "username": "nox", "next": "https://evil.example/"}
    )
    assert response["Location"] == reverse("campaigns:list")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"username": "gm", "password1": "lantern-light-42", "password2": "lantern-light-42"}, "already exists"),
        ({"username": "mira", "password1": "password", "password2": "password"}, "too common"),
        ({"username": "mira", "password1": "short", "password2": "short"}, "too short"),
        ({"username": "mira", "password1": "lantern-light-42", "password2": "other-one-42"}, "didn’t match"),
    ],
)
def test_bad_sign_ups_show_errors_and_create_nobody(data, message, gm, as_user):
    response = _submit(as_user(None), reverse("signup"), **data)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert get_user_model().objects.count() == 1


def test_log_in_and_out(gm, as_user):
    client = as_user(None)
    response = _submit(client, reverse("login"), username="gm", password="correct-horse-battery")
    assert response.status_code == 302
    assert client.get(reverse("campaigns:list")).status_code == 200
    client.post(reverse("logout"))
    assert client.get(reverse("campaigns:list")).status_code == 302


def test_wrong_password_is_refused_readably(gm, as_user):
    response = _submit(as_user(None), reverse("login"), username="gm", password="nope")
    assert response.status_code == 200
    assert "correct username and password" in response.content.decode()


def test_change_password(gm, as_user):
    client = as_user(gm)
    url = reverse("password_change")
    new = "new-lantern-77"
    # the page's form has no action: it posts to the page itself
    fields = form_fields(
        client.get(url), "", old_password="correct-horse-battery", new_password1=new, new_password2=new
    )
    response = client.post(url, fields)
    assert response.status_code == 302
    gm.refresh_from_db()
    assert gm.check_password("new-lantern-77")
