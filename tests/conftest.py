"""Suite-wide settings."""

from __future__ import annotations

from sqsmock._adapters import botocore as botocore_adapter

# Every successful answer in the suite is also parsed by botocore's own parser; the fast path
# that users get must produce exactly the same result.
botocore_adapter.CHECK_AGAINST_BOTOCORE = True
