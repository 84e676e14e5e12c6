from django.apps import AppConfig


class DiscordConfig(AppConfig):
    name = "discord"
    verbose_name = "Discord"
