"""The checkout's ASGI application, with ``/bench/django/`` answered by Django without middleware."""

from bench_bare_handler import PREFIX, BareASGIHandler

from config.asgi import application as app_application

bare = BareASGIHandler()


async def application(scope, receive, send):
    if scope["type"] == "http" and scope["path"].startswith(PREFIX):
        return await bare(scope, receive, send)
    return await app_application(scope, receive, send)
