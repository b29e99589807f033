"""The in-memory SQS engine: queues, messages, the virtual clock.

It knows nothing of botocore, pytest or redis; time comes only from the injected ``Clock``.
"""

from .backend import Backend
from .clock import Clock, FrozenClock, WallClock, make_clock
from .fifo import FifoQueue
from .message import Message, Received
from .queue import Queue
from .views import MessageView, Page

__all__ = [
    "Backend",
    "Clock",
    "FifoQueue",
    "FrozenClock",
    "Message",
    "MessageView",
    "Page",
    "Queue",
    "Received",
    "WallClock",
    "make_clock",
]
