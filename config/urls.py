from django.contrib import admin
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from accounts import pwa
from api.urls import urls as api_urls


@login_not_required
def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask for /favicon.ico whatever the page says: send them to the SVG rather than a 404.

    Resolved per request, not at import: the hashed name exists only after collectstatic."""
    return HttpResponsePermanentRedirect(static("img/lantern.svg"))


@login_not_required
def api_not_found(request: HttpRequest, rest: str) -> HttpResponse:
    """Any other address under /api/: the API's JSON 404, not the pages' HTML one."""
    return JsonResponse({"detail": "No such API endpoint: the list is at /api/docs."}, status=404)


urlpatterns = [
    path("", RedirectView.as_view(pattern_name="campaigns:list"), name="home"),
    path("accounts/", include("accounts.urls")),
    path("campaigns/", include("campaigns.urls")),
    path("characters/", include("characters.urls")),
    path("webhooks/", include("webhooks.urls")),
    path("discord/", include("discord.urls")),
    path("admin/", admin.site.urls),
    path("api/", api_urls),
    path("api/<path:rest>", api_not_found),
    path("favicon.ico", favicon),
    path("manifest.webmanifest", pwa.manifest, name="manifest"),
    path("sw.js", pwa.service_worker, name="service_worker"),
]

handler500 = "core.busy.server_error"  # a busy database is a 503 to try again; anything else Django's 500
