"""A logout closes that session's open pages of every table (issue 9: streams follow permissions)."""

from __future__ import annotations

from django.contrib.auth.signals import user_logged_out
from django.dispatch import receiver

from campaigns.models import Membership
from live.events import revoke_streams, session_hash


@receiver(user_logged_out, dispatch_uid="lantern-logout-closes-streams")
def close_the_sessions_streams(sender, request, user, **kwargs) -> None:
    if user is None or request is None or not getattr(request, "session", None):
        return
    session = session_hash(request.session.session_key)
    for campaign_id in Membership.objects.filter(user=user).values_list("campaign_id", flat=True):
        revoke_streams(campaign_id, session=session)
