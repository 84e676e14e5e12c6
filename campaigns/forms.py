from __future__ import annotations

from django import forms

from accounts import names
from campaigns.models import SYSTEM_CHOICES, Campaign
from config.converters import MAX_ID


class CampaignForm(forms.ModelForm):
    system = forms.ChoiceField(choices=SYSTEM_CHOICES, label="Game system")

    class Meta:
        model = Campaign
        fields = ["name", "system"]
        labels = {"name": "Campaign name"}

    def clean_name(self) -> str:
        name = names.clean_name(self.cleaned_data["name"])
        if not name:
            raise forms.ValidationError("Give the campaign a name.")
        return name


class JoinForm(forms.Form):
    code = forms.CharField(label="Invite code", max_length=200)

    def clean_code(self) -> str:
        # People paste the whole link as often as the code: accept both.
        code = self.cleaned_data["code"].strip().rstrip("/").rsplit("/", 1)[-1].strip()
        if not code:
            raise forms.ValidationError("Paste the invite code or the whole invite link.")
        return code


class MemberForm(forms.Form):
    user_id = forms.IntegerField(min_value=1, max_value=MAX_ID, widget=forms.HiddenInput)


class ClockForm(forms.Form):
    """The GM moves the table's clock: combat rounds and game time."""

    action = forms.ChoiceField(
        choices=[("next_round", "Next round"), ("end_combat", "End combat"), ("advance", "Advance time")]
    )
    minutes = forms.IntegerField(min_value=1, max_value=60 * 24 * 30, required=False)

    def clean(self):
        data = super().clean()
        if data.get("action") == "advance" and not data.get("minutes"):
            raise forms.ValidationError("Say how many minutes pass.")
        return data
