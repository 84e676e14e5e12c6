from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "webhooks"
    verbose_name = "Webhooks"

    def ready(self) -> None:
        from webhooks import tasks  # noqa: F401 - registers the delivery task with webhooks.services
