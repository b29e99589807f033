"""Prometheus metrics: the SQS calls the server answered, and ``GET /_sqsmock/metrics``.

The SQS endpoint counts each call by operation and outcome (``Metrics``); the page adds what
the backend holds at the moment it is asked -- queues, messages by state, long polls waiting --
in Prometheus' text format, for a dashboard watching a shared server. The queues are read a
slice at a time (``slices``), so a server with many queues never holds the loop for all of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aiohttp import web
from aiohttp.web_request import BaseRequest

from .served import Served
from .slices import in_slices, sorted_queues

__all__ = ["page"]


async def page(server: Served, request: BaseRequest, route: str) -> web.StreamResponse:
    """``GET /_sqsmock/metrics``: the counters and the backend's state, as Prometheus text."""
    runtime = server.runtime
    queues = await runtime.run_engine(lambda: sorted_queues(runtime.backend))

    def read(part: Sequence[Any]) -> list[tuple[list[str], str]]:
        """Each queue's lines: its messages by state, and its long polls waiting."""
        out = []
        for queue in part:
            counts, waiting = queue.counts(), queue.waiting()
            where = {"region": queue.region, "account": queue.account, "queue": queue.name}
            messages = [
                f"sqsmock_messages{{{_labels(**where, state=state)}}} {count}"
                for state, count in zip(("visible", "inflight", "delayed"), counts, strict=True)
            ]
            out.append((messages, f"sqsmock_long_polls_waiting{{{_labels(**where)}}} {waiting}"))
        return out

    states = await in_slices(runtime, queues, read)  # the loop runs other work between slices
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
    for messages, _ in states:
        lines += messages
    lines += [
        "# HELP sqsmock_long_polls_waiting Long polls waiting, by queue.",
        "# TYPE sqsmock_long_polls_waiting gauge",
    ]
    lines += [waiting for _, waiting in states]
    text = "\n".join(lines) + "\n"
    return web.Response(
        text=text, content_type="text/plain", headers={"X-Content-Type-Options": "nosniff"}
    )


def _labels(**labels: str) -> str:
    def escape(value: str) -> str:
        return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")

    return ",".join(f'{name}="{escape(value)}"' for name, value in labels.items())
