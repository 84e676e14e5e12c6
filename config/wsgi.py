"""WSGI entry point (pages and POSTs only: the event stream needs ASGI, see config/asgi.py).

On SQLite the process that loads it takes the single-process lock, as the ASGI server does at startup
(live.hub.claim_single_process): `gunicorn config.wsgi:application -w 2` on SQLite refuses, its second worker
fails to boot, and gunicorn stops with exit status 3 (docs/production.md, "SQLite: one process only").
"""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

from live.hub import claim_single_process  # noqa: E402 - after setup

claim_single_process()
