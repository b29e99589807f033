"""A Celery app whose broker is SQS at a sqsmock server (configured from the environment).

SQSMOCK_ENDPOINT     the server, e.g. http://127.0.0.1:9324
SQSMOCK_QUEUES       optional JSON {name: url}: Celery's queues as kombu ``predefined_queues``
The task ``record`` answers by sending a message to the queue ``celery-results`` (no result
backend needed).
"""

from __future__ import annotations

import json
import os
from urllib.parse import quote, urlsplit

import boto3
from celery import Celery

ENDPOINT = os.environ["SQSMOCK_ENDPOINT"]
ACCESS_KEY = os.environ["AWS_ACCESS_KEY_ID"]
SECRET_KEY = os.environ["AWS_SECRET_ACCESS_KEY"]
REGION = os.environ["AWS_DEFAULT_REGION"]

# kombu takes the endpoint from the broker URL's host and port (http because is_secure is off).
_netloc = urlsplit(ENDPOINT).netloc
BROKER_URL = f"sqs://{quote(ACCESS_KEY, safe='')}:{quote(SECRET_KEY, safe='')}@{_netloc}"

transport_options: dict[str, object] = {
    "region": REGION,
    "is_secure": False,
    "wait_time_seconds": 1,
    "polling_interval": 0.1,
    "visibility_timeout": 60,
}
if os.environ.get("SQSMOCK_QUEUES"):
    transport_options["predefined_queues"] = {
        name: {"url": url, "access_key_id": ACCESS_KEY, "secret_access_key": SECRET_KEY}
        for name, url in json.loads(os.environ["SQSMOCK_QUEUES"]).items()
    }

app = Celery("sqsmock_celery_app", broker=BROKER_URL)
app.conf.update(
    broker_transport_options=transport_options,
    broker_connection_retry_on_startup=True,
    task_default_queue="celery-tasks",
    task_ignore_result=True,
    worker_hijack_root_logger=False,
    worker_prefetch_multiplier=1,
)


def results_client():  # type: ignore[no-untyped-def]
    return boto3.client(
        "sqs",
        endpoint_url=ENDPOINT,
        region_name=REGION,
        aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY,
    )


@app.task(name="record")
def record(order: dict[str, object]) -> None:
    """Answer through SQS: the order, totalled, with the worker's process id."""
    sqs = results_client()
    url = sqs.get_queue_url(QueueName="celery-results")["QueueUrl"]
    total = sum(item["price"] * item["quantity"] for item in order["items"])  # type: ignore[attr-defined,index]
    sqs.send_message(
        QueueUrl=url,
        MessageBody=json.dumps({"order": order["id"], "total": total, "pid": os.getpid()}),
    )
