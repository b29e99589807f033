"""Requests the engine's state hands out to be sent over the network, and never sends itself.

SNS delivers to http/https subscribers with an HTTP POST. The engine and the service layer do
no I/O of that kind (they import no HTTP library and know no socket): the service builds an
``Outgoing`` request and gives it to the ``Sender`` the runtime injected into the backend's
topics, which sends it off the caller's thread and reports back through ``done``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Outgoing", "Sender"]


@dataclass(frozen=True)
class Outgoing:
    """One HTTP POST to a subscriber's endpoint."""

    url: str
    headers: dict[str, str]
    body: bytes
    #: Told once whether the endpoint took it (a 2xx answer); None: nobody needs to know.
    done: Callable[[bool], None] | None = None


#: Sends an ``Outgoing`` request later, never on the caller's thread for long.
Sender = Callable[[Outgoing], None]
