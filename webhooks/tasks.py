"""The webhook task the worker runs (``manage.py webhook_worker``, django-tasks' database backend): one try of one
delivery. The delivery logic lives in webhooks.services; the deliveries themselves are made by the worker's
reading of the journal (webhooks.services.fan_out_due), not by a task per write."""

from __future__ import annotations

from django_tasks import task

from webhooks import services


@task(priority=services.SEND_PRIORITY)
def send(delivery_id: str) -> str:
    return services.send(delivery_id)


services.register_send_task(send)
