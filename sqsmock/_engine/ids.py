"""Fresh identifiers: MessageIds, receipt-handle nonces and request ids.

They need to be unique, not unguessable, so they come from a generator of sqsmock's own rather
than from the operating system (a system call each) or from ``random``'s shared one, which a
test may seed: ``random.seed(0)`` in a test would otherwise hand out the MessageIds of an
earlier test again. The generator is seeded from the operating system when sqsmock is imported
and again in every child process a ``fork`` makes, so two processes never share a sequence.
"""

from __future__ import annotations

import itertools
import os
import random

__all__ = ["new_message_key", "new_nonce", "new_request_id", "uuid_text"]

_rng = random.Random()
_bits = _rng.getrandbits

#: A version 4 UUID's fixed bits: the version nibble (4) and the variant's two bits (10).
_V4_SET = (0x4 << 76) | (0x2 << 62)
_V4_KEEP = ((1 << 128) - 1) & ~((0xF << 76) | (0x3 << 62))


def new_message_key() -> int:
    """A random version 4 UUID as its 128-bit number (``uuid_text`` gives its text)."""
    return (_bits(128) & _V4_KEEP) | _V4_SET


def uuid_text(value: int) -> str:
    """The canonical (lower-case, hyphenated) text of a 128-bit UUID number."""
    h = value.to_bytes(16, "big").hex()
    return "-".join((h[:8], h[8:12], h[12:16], h[16:20], h[20:]))


def new_nonce(bits: int) -> str:
    """``bits`` random bits as lower-case hex text (``bits`` a multiple of 8)."""
    # As ``uuid_text`` writes: the same few C functions on every call, where a format spec would
    # bring in the formatting machinery besides
    return _bits(bits).to_bytes(bits >> 3, "big").hex()


# Request ids: a random prefix per process and a counter, in the form of a version 4 UUID.
_request_prefix = ""
_request_count = itertools.count()


def _reseed() -> None:
    global _request_prefix, _request_count
    _rng.seed(os.urandom(32))
    value = new_message_key()
    _request_prefix = uuid_text(value)[:24]  # "xxxxxxxx-xxxx-4xxx-yxxx-"
    _request_count = itertools.count(_bits(40))


_reseed()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reseed)


def new_request_id() -> str:
    """A request id unique in this process and, by its random prefix, across processes."""
    return _request_prefix + (next(_request_count) & 0xFFFFFFFFFFFF).to_bytes(6, "big").hex()
