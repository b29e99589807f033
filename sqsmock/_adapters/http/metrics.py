"""Prometheus metrics: the SQS calls the server answered, and ``GET /_sqsmock/metrics``.

The SQS endpoint counts each call by operation and outcome (``Metrics``); the page adds what
the backend holds at the moment it is asked -- queues, messages by state, long polls waiting --
in Prometheus' text format, for a dashboard watching a shared server.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web
from aiohttp.web_request import BaseRequest

from .served import Served

__all__ = ["page"]


async def page(server: Served, request: BaseRequest, route: str) -> web.StreamResponse:
    """``GET /_sqsmock/metrics``: the counters and the backend's state, as Prometheus text."""
    backend = server.runtime.backend

    def read() -> list[tuple[Any, tuple[int, int, int], int]]:
        queues = sorted(backend.queues(), key=lambda q: (q.region, q.account, q.name))
        return [(queue, queue.counts(), queue.waiting()) for queue in queues]

    states = await server.runtime.run_engine(read)
    lines = [
        "# HELP sqsmock_calls_total SQS calls answered, by operation and outcome "
        '("ok" or the error).',
        "# TYPE sqsmock_calls_total counter",
    ]
    for (operation, outcome), count in sorted(server.metrics.calls.items()):
        labels = _labels(operation=operation, outcome=outcome)
        lines.append(f"sqsmock_calls_total{{{labels}}} {count}")
    lines += [
        "# HELP sqsmock_queues Queues that exist.",
        "# TYPE sqsmock_queues gauge",
        f"sqsmock_queues {len(states)}",
        "# HELP sqsmock_messages Messages by queue and state.",
        "# TYPE sqsmock_messages gauge",
    ]
    for queue, counts, _ in states:
        for state, count in zip(("visible", "inflight", "delayed"), counts, strict=True):
            labels = _labels(
                region=queue.region, account=queue.account, queue=queue.name, state=state
            )
            lines.append(f"sqsmock_messages{{{labels}}} {count}")
    lines += [
        "# HELP sqsmock_long_polls_waiting Long polls waiting, by queue.",
        "# TYPE sqsmock_long_polls_waiting gauge",
    ]
    for queue, _, waiting in states:
        labels = _labels(region=queue.region, account=queue.account, queue=queue.name)
        lines.append(f"sqsmock_long_polls_waiting{{{labels}}} {waiting}")
    text = "\n".join(lines) + "\n"
    return web.Response(
        text=text, content_type="text/plain", headers={"X-Content-Type-Options": "nosniff"}
    )


def _labels(**labels: str) -> str:
    def escape(value: str) -> str:
        return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")

    return ",".join(f'{name}="{escape(value)}"' for name, value in labels.items())
