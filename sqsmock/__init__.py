"""sqsmock: a fast, faithful in-process mock of Amazon SQS for boto3/botocore tests.

from sqsmock import mock_sqs

@mock_sqs
def test_something():
    sqs = boto3.client("sqs", region_name="us-east-1")
    ...
"""

from ._declare import ConfigError
from ._engine import Clock, FrozenClock, MessageView, WallClock
from ._mock import MockSQS, mock_sqs
from ._serving import SqsServer, serve
from ._store.admin import NamespaceInfo, inspect_namespace, wipe
from ._store.errors import PersistenceError
from ._testing import Delivery, JournalFullWarning
from ._testing.waiters import QueueEvent, UnexpectedEvent, WaitTimeout
from ._version import __version__ as __version__

__all__ = [
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
