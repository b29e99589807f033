"""sqsmock: a fast, faithful in-process mock of Amazon SQS for boto3/botocore tests.

from sqsmock import mock_sqs

@mock_sqs
def test_something():
    sqs = boto3.client("sqs", region_name="us-east-1")
    ...

The public names are imported when first used (PEP 562), so each way in pays only for its own
modules: ``sqsmock serve`` and ``sqsmock.serve()`` do not import botocore, boto3 or wrapt, which
only the in-process mock needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._version import __version__ as __version__

if TYPE_CHECKING:
    from ._adapters._guard import AwsRequestRefused
    from ._declare import ConfigError
    from ._engine import Clock, FrozenClock, MessageView, WallClock
    from ._features import Delivery, JournalFullWarning
    from ._features.waiters import QueueEvent, UnexpectedEvent, WaitTimeout
    from ._mock import MockSQS, mock_sqs
    from ._serving import SqsServer, serve
    from ._store.errors import PersistenceError
    from ._store.maintenance import NamespaceInfo, inspect_namespace, wipe

__all__ = [
    "AwsRequestRefused",
    "Clock",
    "ConfigError",
    "Delivery",
    "FrozenClock",
    "JournalFullWarning",
    "MessageView",
    "MockSQS",
    "NamespaceInfo",
    "PersistenceError",
    "QueueEvent",
    "SqsServer",
    "UnexpectedEvent",
    "WaitTimeout",
    "WallClock",
    "inspect_namespace",
    "mock_sqs",
    "serve",
    "wipe",
]

#: Where each public name lives (the module, relative to this package).
_HOMES = {
    "AwsRequestRefused": "_adapters._guard",
    "ConfigError": "_declare",
    "Clock": "_engine",
    "FrozenClock": "_engine",
    "MessageView": "_engine",
    "WallClock": "_engine",
    "MockSQS": "_mock",
    "mock_sqs": "_mock",
    "SqsServer": "_serving",
    "serve": "_serving",
    "NamespaceInfo": "_store.maintenance",
    "inspect_namespace": "_store.maintenance",
    "wipe": "_store.maintenance",
    "PersistenceError": "_store.errors",
    "Delivery": "_features",
    "JournalFullWarning": "_features",
    "QueueEvent": "_features.waiters",
    "UnexpectedEvent": "_features.waiters",
    "WaitTimeout": "_features.waiters",
}

if not TYPE_CHECKING:  # hidden from type checkers: a misspelt name must stay an error there

    def __getattr__(name: str) -> Any:
        home = _HOMES.get(name)
        if home is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        from importlib import import_module

        value = getattr(import_module(f"{__name__}.{home}"), name)
        globals()[name] = value  # later look-ups find it directly
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *__all__})
