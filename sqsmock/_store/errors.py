"""The error users see when the persistence store fails.

``PersistenceError`` is a botocore ``BotoCoreError``, so code that handles a lost connection to
SQS handles it too. The class is made the first time it is named (a module ``__getattr__``,
PEP 562), and only then is botocore imported: the server names it in ``except`` clauses that an
exception reaches only once something failed, and its store modules -- which import it at once
-- load only with persistence. So ``sqsmock serve`` without persistence never imports botocore.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

__all__ = ["PersistenceError"]

if TYPE_CHECKING:
    from botocore.exceptions import BotoCoreError

    class PersistenceError(BotoCoreError):  # type: ignore[misc]
        """The persistence store failed; the SQS call did not take effect."""

        fmt: str

else:
    _lock = threading.Lock()

    def _define() -> type:
        from botocore.exceptions import BotoCoreError

        class PersistenceError(BotoCoreError):
            """The persistence store failed; the SQS call did not take effect.

            A ``BotoCoreError`` like a lost connection to SQS, so code that handles those
            handles this.
            """

            fmt = "sqsmock persistence failed: {reason}"

        PersistenceError.__qualname__ = "PersistenceError"  # pickled by its module's name
        return PersistenceError

    def __getattr__(name: str) -> Any:
        if name != "PersistenceError":
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        with _lock:  # one class, however many threads name it first at once
            if "PersistenceError" not in globals():
                globals()["PersistenceError"] = _define()
        return globals()["PersistenceError"]
