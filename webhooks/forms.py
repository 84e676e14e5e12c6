from __future__ import annotations

from django import forms

from webhooks.models import URL_MAX, Webhook
from webhooks.sending import Refused, check_url


class WebhookForm(forms.ModelForm):
    url = forms.URLField(
        label="URL",
        max_length=URL_MAX,
        assume_scheme="https",
        help_text="Where to post: a Discord channel's webhook URL works as it is.",
    )

    class Meta:
        model = Webhook
        fields = ["name", "url", "format", "rolls", "vitals", "requests", "fight", "sessions"]
        labels = {
            "format": "Format",
            "rolls": "Rolls",
            "vitals": "Vitals changes",
            "requests": "Roll requests",
            "fight": "Fight events",
            "sessions": "Session chronicles (the public version, when the GM ends a session)",
        }

    def clean_url(self) -> str:
        url = self.cleaned_data["url"]
        try:
            check_url(url)
        except Refused as refusal:
            raise forms.ValidationError(str(refusal)) from None
        return url

    def clean(self) -> dict:
        data = super().clean() or {}
        if not any(data.get(kind) for kind, _ in Webhook.KINDS):
            raise forms.ValidationError("Choose at least one kind of event to send.")
        return data
