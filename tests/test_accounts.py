"""Sign up, log in, log out, change password: Django's auth behind Lantern's pages."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_sign_up_logs_you_in_and_goes_to_your_campaigns(as_user):
    client = as_user(None)
    response = client.post(
        reverse("signup"), {"username": "mira", "password1": "lantern-light-42", "password2": "lantern-light-42"}
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("campaigns:list")
    assert client.get(reverse("campaigns:list")).status_code == 200


def test_sign_up_follows_a_safe_next_link_only(as_user):
    data = {"username": "mira", "password1": "lantern-light-42", "password2": "lantern-light-42"}
    response = as_user(None).post(reverse("signup"), {**data, "next": "/campaigns/join/abc/"})
    assert response["Location"] == "/campaigns/join/abc/"
    response = as_user(None).post(reverse("signup"), {**data, "username": "nox", "next": "https://evil.example/"})
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
    response = as_user(None).post(reverse("signup"), data)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert get_user_model().objects.count() == 1


def test_log_in_and_out(gm, as_user):
    client = as_user(None)
    response = client.post(reverse("login"), {"username": "gm", "password": "correct-horse-battery"})
    assert response.status_code == 302
    assert client.get(reverse("campaigns:list")).status_code == 200
    client.post(reverse("logout"))
    assert client.get(reverse("campaigns:list")).status_code == 302


def test_wrong_password_is_refused_readably(gm, as_user):
    response = as_user(None).post(reverse("login"), {"username": "gm", "password": "nope"})
    assert response.status_code == 200
    assert "correct username and password" in response.content.decode()


def test_change_password(gm, as_user):
    client = as_user(gm)
    response = client.post(
        reverse("password_change"),
        {"old_password": "correct-horse-battery", "new_password1": "new-lantern-77", "new_password2": "new-lantern-77"},
    )
    assert response.status_code == 302
    gm.refresh_from_db()
    assert gm.check_password("new-lantern-77")
