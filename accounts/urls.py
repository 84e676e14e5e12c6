from django.contrib.auth import views as auth_views
from django.urls import path

import core.converters  # noqa: F401 - registers <id:…>
from accounts import pwa, views

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", pwa.LogoutView.as_view(), name="logout"),  # clears the device (issue 29)
    path("password/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path("password/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path("tokens/", views.api_tokens, name="api_tokens"),
    path("tokens/<id:token_id>/revoke/", views.api_token_revoke, name="api_token_revoke"),
]
