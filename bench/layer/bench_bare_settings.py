"""Bench-only settings: the app's own settings, plus a bare view (bench_bare_urls) at /bench/bare/.

Not a package of the app: bench/pages.py puts this folder on PYTHONPATH and names this module in
DJANGO_SETTINGS_MODULE, so the same layer serves over any checkout (today's, or an old one exported with
``git archive``) without that checkout knowing about it.
"""

from config.settings import *  # noqa: F403 - the layer is the app's settings, one line changed

ROOT_URLCONF = "bench_bare_urls"
