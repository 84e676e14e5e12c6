from django.urls import path

from characters import views

app_name = "characters"
urlpatterns = [
    path("", views.character_list, name="list"),
]
