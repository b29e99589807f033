"""The features sqsmock ships for testing: the call journal, fault injection, at-least-once
delivery, Lambda events and waiting for consumers.

These sit on the call path of ``Runtime`` (every adapter's calls pass there) and on the handle;
the engine and the service know nothing of them.
"""

from .chaos import Chaos, Delivery
from .faults import Fault, Faults
from .journal import CallJournal, CallPage, JournalFullWarning, RecordedCall

__all__ = [
    "CallJournal",
    "CallPage",
    "Chaos",
    "Delivery",
    "Fault",
    "Faults",
    "JournalFullWarning",
    "RecordedCall",
]
