"""The checkout's WSGI application, with ``/bench/django/`` answered by Django without middleware."""

from bench_bare_handler import PREFIX, BareWSGIHandler

from config.wsgi import application as app_application

bare = BareWSGIHandler()


def application(environ, start_response):
    if environ.get("PATH_INFO", "").startswith(PREFIX):
        return bare(environ, start_response)
    return app_application(environ, start_response)
