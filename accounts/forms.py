from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm

from accounts.models import ApiToken
from accounts.names import clean_name, username_problem
from accounts.tokens import LIFETIMES


class SignupForm(UserCreationForm):
    """Django's own sign-up form (password validators included), with usernames nobody can be mistaken by."""

    class Meta(UserCreationForm.Meta):  # type: ignore[name-defined]  # Django's; django-stubs leaves it out
        fields = ("username",)

    def clean_username(self) -> str | None:  # type: ignore[override]  # Django's returns None too (see below)
        username = super().clean_username()
        if username is None:  # Django has already refused it as taken
            return username
        username = unicodedata.normalize("NFKC", username)
        # Every name, to compare what they look like; sign-ups are rare and a scan of names is cheap.
        existing = list(get_user_model().objects.values_list("username", flat=True))
        if problem := username_problem(username, existing):
            raise forms.ValidationError(problem)
        return username


class NameField(forms.CharField):
    """A displayed name: invisible and text-direction characters are dropped before anything else."""

    default_error_messages = {"required": "Give it a name with letters you can see."}

    def to_python(self, value):
        return clean_name(super().to_python(value))


class TokenForm(forms.Form):
    """A new API token: its name and what it may do; a table token's choice names the campaign ("table:<id>")."""

    name = NameField(max_length=60, label="Name", help_text="What will use it: “Discord bot”, “my dice tray”.")
    scope = forms.ChoiceField(label="It may")
    lifetime = forms.TypedChoiceField(
        label="It works for",
        choices=[("", "Until I revoke it")] + [(str(days), f"{days} days") for days in LIFETIMES if days],
        coerce=int,
        empty_value=None,
        required=False,
        help_text="After that it opens nothing. Changing your password revokes every token at once.",
    )

    def __init__(self, *args, run: Sequence[tuple[int, str]] = (), **kwargs) -> None:
        super().__init__(*args, **kwargs)
        choices = [(str(s.value), str(s.label)) for s in (ApiToken.Scope.READ, ApiToken.Scope.PLAY)]
        choices += [(f"table:{pk}", f"Run the table of {name} (GM)") for pk, name in run]
        scope = self.fields["scope"]
        assert isinstance(scope, forms.ChoiceField)
        scope.choices = choices

    def scope_and_campaign(self) -> tuple[str, int | None]:
        scope, _, campaign = self.cleaned_data["scope"].partition(":")
        return scope, int(campaign) if campaign else None
