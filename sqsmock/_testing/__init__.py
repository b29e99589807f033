"""Testing failure: the call journal, fault injection, at-least-once delivery, Lambda events,
waits for what consumers did.

These sit on the call path of ``Runtime`` (every adapter's calls pass there) and on the handle;
the engine and the service know nothing of them.
"""

from .chaos import Chaos, Delivery
from .faults import Fault, Faults
from .journal import CallJournal, JournalFullWarning, RecordedCall
from .waiters import EventLog, QueueEvent, UnexpectedEvent, WaitTimeout

__all__ = [
    "CallJournal",
    "Chaos",
    "Delivery",
    "EventLog",
    "Fault",
    "Faults",
    "JournalFullWarning",
    "QueueEvent",
    "RecordedCall",
    "UnexpectedEvent",
    "WaitTimeout",
]
