from django.urls import path

import core.converters  # noqa: F401 - registers <id:…>
from webhooks import views

app_name = "webhooks"
urlpatterns = [
    path("campaign/<id:pk>/", views.campaign_hooks, name="campaign"),
    path("character/<id:pk>/", views.character_hooks, name="character"),
    path("<id:pk>/delete/", views.delete, name="delete"),
    path("<id:pk>/resume/", views.resume, name="resume"),
]
