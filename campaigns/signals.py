"""A logout closes that session's open pages of every table; a new password closes every page of that account
and revokes its API tokens (issue 9: streams follow permissions; issue 23, item 12; issue 35, item 17); a deleted
campaign takes its journal with it."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.signals import user_logged_out
from django.db.models.signals import post_delete, post_save, pre_save
from django.dispatch import receiver

from accounts.tokens import tokens_revoke_all
from campaigns.models import Campaign, Membership
from live import journal
from live.relay import revoke_streams, session_hash

PASSWORD_CHANGED = "_lantern_password_changed"


@receiver(user_logged_out, dispatch_uid="lantern-logout-closes-streams")
def close_the_sessions_streams(sender, request, user, **kwargs) -> None:
    if user is None or request is None or not getattr(request, "session", None):
        return
    session = session_hash(request.session.session_key)
    for campaign_id in Membership.objects.filter(user=user).values_list("campaign_id", flat=True):
        revoke_streams(campaign_id, session=session)


@receiver(pre_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="lantern-notice-a-new-password")
def notice_a_new_password(sender, instance, raw=False, update_fields=None, **kwargs) -> None:
    """Whatever set it (the password form, the admin, ``manage.py changepassword``): a new password hash logs
    every other session of the account out, since Django checks each session against it."""
    if raw or instance.pk is None or (update_fields is not None and "password" not in update_fields):
        return  # a fixture load, a new account, or a save that leaves the password alone (last_login)
    stored = sender._default_manager.filter(pk=instance.pk).values_list("password", flat=True).first()
    setattr(instance, PASSWORD_CHANGED, stored is not None and stored != instance.password)


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="lantern-new-password-closes-streams")
def close_the_accounts_streams(sender, instance, **kwargs) -> None:
    """Close every open page of the account, as a logout closes its session's: the logged-out sessions must
    stop hearing the tables. The session that changed the password stays logged in (Django gives it a new
    key), so its pages simply reconnect. Its API tokens go too: a password changed because it leaked must not
    leave a token made with it working (the tokens page says so)."""
    if not getattr(instance, PASSWORD_CHANGED, False):
        return
    setattr(instance, PASSWORD_CHANGED, False)
    tokens_revoke_all(user_id=instance.pk)
    for campaign_id in Membership.objects.filter(user=instance).values_list("campaign_id", flat=True):
        revoke_streams(campaign_id, user_id=instance.pk)


@receiver(post_delete, sender=Campaign, dispatch_uid="lantern-campaign-journal-goes-with-it")
def delete_the_journal(sender, instance: Campaign, **kwargs) -> None:
    """The journal names its campaign by id (live imports no app): a deleted campaign's entries go with it."""
    journal.delete_campaign(instance.pk)
