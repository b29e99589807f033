"""Suite-wide settings."""

from __future__ import annotations

from sqsmock import _protocol

# Every successful answer in the suite is also parsed by botocore's own parser; the fast path
# that users get must produce exactly the same result.
_protocol.CHECK_AGAINST_BOTOCORE = True
