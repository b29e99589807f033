"""The error users see when the persistence store fails."""

from __future__ import annotations

from botocore.exceptions import BotoCoreError

__all__ = ["PersistenceError"]


class PersistenceError(BotoCoreError):  # type: ignore[misc]
    """The persistence store failed; the SQS call did not take effect.

    A ``BotoCoreError`` like a lost connection to SQS, so code that handles those handles this.
    """

    fmt = "sqsmock persistence failed: {reason}"
