from django.contrib import admin
from django.contrib.auth.decorators import login_not_required
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="campaigns:list"), name="home"),
    path("accounts/", include("accounts.urls")),
    path("campaigns/", include("campaigns.urls")),
    path("characters/", include("characters.urls")),
    path("admin/", admin.site.urls),
    # Browsers ask for /favicon.ico whatever the page says: send them to the SVG rather than a 404.
    path("favicon.ico", login_not_required(RedirectView.as_view(url=static("img/lantern.svg"), permanent=True))),
]
