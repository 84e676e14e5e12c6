"""Create demo users and one campaign per game system. Safe to run again."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from campaigns.models import Campaign, Membership
from characters.demo import demo_characters
from rules import SYSTEM_NAMES

DEMO_PASSWORD = "lantern"  # noqa: S105 - printed on screen on purpose: these are demo accounts
DEMO_PLAYERS = ("alice", "bob")


class Command(BaseCommand):
    help = "Create demo users gm, alice and bob (password 'lantern') and a campaign per game system."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--force", action="store_true", help="Run even with DEBUG off.")

    def handle(self, *args, force: bool = False, **options) -> None:
        if not settings.DEBUG and not force:
            raise CommandError("DEBUG is off: demo accounts with a known password are unsafe. Use --force.")
        with transaction.atomic():
            users = {name: self._user(name) for name in ("gm", *DEMO_PLAYERS)}
            for system, system_name in SYSTEM_NAMES.items():
                campaign = self._campaign(system, system_name, users)
                self._characters(campaign, users)
        self.stdout.write(self.style.SUCCESS("Demo ready. Log in as gm, alice or bob with the password: lantern"))

    def _user(self, username: str):
        user, created = get_user_model().objects.get_or_create(username=username)
        if created or not user.check_password(DEMO_PASSWORD):
            user.set_password(DEMO_PASSWORD)
            user.save()
        return user

    def _campaign(self, system: str, system_name: str, users: dict) -> Campaign:
        name = f"Demo: {system_name}"
        campaign = Campaign.objects.filter(name=name, system=system).first()
        if campaign is None:
            campaign = Campaign.objects.create(name=name, system=system)
        Membership.objects.get_or_create(campaign=campaign, user=users["gm"], defaults={"role": Membership.Role.GM})
        for player in DEMO_PLAYERS:
            Membership.objects.get_or_create(campaign=campaign, user=users[player])
        return campaign

    def _characters(self, campaign: Campaign, users: dict) -> None:
        """Each system's demo character arrives with the system's issue (see characters.demo)."""

        demo_characters(campaign, users)
