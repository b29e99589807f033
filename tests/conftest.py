"""Suite-wide settings."""

from __future__ import annotations

import pytest

# Loaded before any in-process pytester run: such a run takes the modules first imported during
# it out of sys.modules afterwards, and a second copy of the activation or of the stack of active
# runtimes would not see the mocks the first copy's installed adapters answer for.
import sqsmock._activation  # noqa: F401
from sqsmock._adapters import _stack  # noqa: F401
from sqsmock._adapters._sdk import answer as sdk_answer

# Every successful answer in the suite is also parsed by botocore's own parser; the fast path
# that users get must produce exactly the same result.
sdk_answer.CHECK_AGAINST_BOTOCORE = True


@pytest.fixture
def pytester(pytester: pytest.Pytester) -> pytest.Pytester:
    """Generated test suites set pytest-asyncio's fixture loop scope, as a user's suite does
    (pytest-asyncio otherwise warns, in every inner run, that it is unset)."""
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    return pytester
