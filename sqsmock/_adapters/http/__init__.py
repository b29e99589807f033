"""The HTTP adapter: SQS on a TCP port, for the AWS CLI, every SDK and every process.

A sibling of the botocore adapter, calling down the same way: each request becomes an
``HttpRequest`` for the protocol layer, the call runs through ``Runtime.call_async`` and the
``Result`` is rendered back in the request's protocol. One module per concern:

* ``server``    -- ``SqsHttpServer``: listening, stopping, and the one function every request
  goes to, which passes the guard and picks the module that answers;
* ``sqs``       -- the SQS endpoint: read the body, parse, call, render; bad input's 4xx;
* ``admin``     -- the ``/_sqsmock/`` admin API (health, reset, the clock, queues, peeks, the
  call journal, fault rules, the wait);
* ``metrics``   -- the call counters and ``/_sqsmock/metrics`` in Prometheus text;
* ``localstack`` -- LocalStack's ``/_localstack/`` routes and its ``/_aws/sqs/messages``
  developer endpoint; ``localstack_mode`` -- what ``--localstack`` turns on, init scripts too;
* ``browsers``  -- the ``Host``/``Origin`` guard and CORS;
* ``exchange``  -- reading requests and building answers, as every route does;
* ``ui``        -- the static web UI at ``/_sqsmock/ui/``.

aiohttp is an optional extra, and the front ends check ``browsers``' and ``localstack_mode``'s
options before they know whether it is installed: those two import no aiohttp, and this module
imports the server only when one of its names is asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .served import Metrics
    from .server import SqsHttpServer
    from .sqs import BODY_LIMIT

__all__ = ["BODY_LIMIT", "Metrics", "SqsHttpServer"]

#: name -> the module of this package that holds it
_HOMES = {"BODY_LIMIT": "sqs", "Metrics": "served", "SqsHttpServer": "server"}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
