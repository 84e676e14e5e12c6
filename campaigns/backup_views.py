"""A campaign's backup: the GM downloads it as one file, and anyone restores one as a new campaign they run."""

from __future__ import annotations

import json

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_POST

from campaigns.backup import export_campaign, import_campaign, parse_backup
from campaigns.forms import BackupForm, CampaignForm, JoinForm
from campaigns.selectors import campaigns_run_by
from campaigns.services import CampaignError
from campaigns.views import render_list
from core.htmx import HtmxHttpRequest
from rules import RulesError


@require_GET
def backup_export(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaigns_run_by(request.user), pk=pk)
    document = export_campaign(campaign, request.user)
    response = HttpResponse(json.dumps(document, indent=1, ensure_ascii=False), content_type="application/json")
    filename = f"{slugify(campaign.name) or 'campaign'}.lantern-campaign.json"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@require_POST
def backup_import(request: HtmxHttpRequest) -> HttpResponse:
    form = BackupForm(request.POST, request.FILES)
    if form.is_valid():
        try:
            campaign = import_campaign(gm=request.user, document=parse_backup(form.cleaned_data["file"].read()))
        except (RulesError, CampaignError) as problem:
            form.add_error("file", str(problem))
        else:
            messages.success(request, f"{campaign.name} was restored from its backup. You run it; share the invite.")
            return redirect(campaign)
    return render_list(request, CampaignForm(), JoinForm(), status=400, backup_form=form)
