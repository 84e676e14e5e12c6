"""Delete the journal's entries nobody needs any more (live.journal.prune): run it daily from cron or a timer.

Entries older than ``--keep-days`` go, except each campaign's last ``--keep-last``; the defaults are the settings
``LIVE_JOURNAL_KEEP_DAYS`` and ``LIVE_JOURNAL_KEEP_LAST``. A reader whose cursor falls behind what is kept starts
afresh: a page gets its whole page, the API's feed answers 410 (docs/production.md, "The journal").
"""

from __future__ import annotations

from django.core.management.base import BaseCommand

from live import journal


class Command(BaseCommand):
    help = "Delete journal entries older than --keep-days, keeping each campaign's last --keep-last."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--keep-days", type=int, default=None, help="default: LIVE_JOURNAL_KEEP_DAYS")
        parser.add_argument("--keep-last", type=int, default=None, help="default: LIVE_JOURNAL_KEEP_LAST")

    def handle(self, *args, keep_days: int | None, keep_last: int | None, **options) -> None:
        for name, value in (("--keep-days", keep_days), ("--keep-last", keep_last)):
            if value is not None and value < 0:
                self.stderr.write(f"{name} cannot be negative.")
                raise SystemExit(2)
        gone = journal.prune(keep_days=keep_days, keep_last=keep_last)
        self.stdout.write(f"Pruned {gone} journal {'entry' if gone == 1 else 'entries'}.")
