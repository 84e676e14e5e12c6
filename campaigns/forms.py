from __future__ import annotations

from django import forms

from campaigns.models import SYSTEM_CHOICES, Campaign


class CampaignForm(forms.ModelForm):
    system = forms.ChoiceField(choices=SYSTEM_CHOICES, label="Game system")

    class Meta:
        model = Campaign
        fields = ["name", "system"]
        labels = {"name": "Campaign name"}

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if not name:
            raise forms.ValidationError("Give the campaign a name.")
        return name


class JoinForm(forms.Form):
    code = forms.CharField(label="Invite code", max_length=200)

    def clean_code(self) -> str:
        # People paste the whole link as often as the code: accept both.
        code = self.cleaned_data["code"].strip().rstrip("/")
        return code.rsplit("/", 1)[-1]


class MemberForm(forms.Form):
    user_id = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
