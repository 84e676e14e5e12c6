"""``manage.py clock_ticker``: the server's side of real-time play (campaigns.session.realtime). Every ``--every``
seconds it applies the steps of game time that fell due at every table whose time runs (lights go out, rations
are due, countdowns fill, all in the journal, so open pages see it pushed), whether or not anyone's page is open.
``--once``: one round, then exit (cron, tests). It keeps nothing in memory: a restart carries on from the rows."""

from __future__ import annotations

import logging
import time

from django.core.management.base import BaseCommand
from django.db import connection

from campaigns.session.realtime import realtime_tick_all

log = logging.getLogger(__name__)


class Command(BaseCommand):
    help = "Apply the game time due at every table running in real time (--once: one round; else every --every s)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--once", action="store_true", help="one round, then exit")
        parser.add_argument("--every", type=float, default=15.0, help="seconds between rounds (default 15)")

    def handle(self, *args, **options) -> None:
        every = max(1.0, float(options["every"]))
        while True:
            try:
                moved = realtime_tick_all()
            except Exception:  # a locked or restarting database: try again next round
                if options["once"]:
                    raise
                log.exception("The clock ticker's round failed")
                connection.close()
                moved = {}
            if options["once"]:
                for campaign_id, steps in moved.items():
                    self.stdout.write(f"campaign {campaign_id}: {steps} step(s) of game time")
                return
            time.sleep(every)
