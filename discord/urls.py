from django.urls import path

import core.converters  # noqa: F401 - registers <id:…>
from discord import views

app_name = "discord"
urlpatterns = [
    path("interactions/", views.endpoint, name="interactions"),
    path("account/", views.account, name="account"),
    path("campaign/<id:pk>/", views.campaign, name="campaign"),
    path("campaign/<id:pk>/unlink/<id:link_id>/", views.channel_unlink, name="channel_unlink"),
]
