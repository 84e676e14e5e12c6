"""`make run`'s first step: on SQLite, refuse at once if another server process already serves the file.

The app server refuses too (ASGI lifespan startup), but under `uvicorn --reload` a worker that refuses only
ends the worker: the reloader stays up, waiting for a file change, and the command never returns.
"""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand, CommandError

from live import hub


class Command(BaseCommand):
    help = "On SQLite, stop with a sentence if another server process already serves the database file."

    def handle(self, *args, **options) -> None:
        try:
            hub.claim_single_process()  # the lock goes with this process, a moment later
        except ImproperlyConfigured as error:
            raise CommandError(str(error)) from None
