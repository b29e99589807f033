"""Testing failure: the call journal, fault injection, at-least-once delivery, Lambda events.

These sit on the call path of ``Runtime`` (every adapter's calls pass there) and on the handle;
the engine and the service know nothing of them.
"""

from .chaos import Chaos, Delivery
from .faults import Fault, Faults
from .journal import CallJournal, JournalFullWarning, RecordedCall

__all__ = [
    "CallJournal",
    "Chaos",
    "Delivery",
    "Fault",
    "Faults",
    "JournalFullWarning",
    "RecordedCall",
]
