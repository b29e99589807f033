"""Every SQS and SNS error sqsmock can answer, as data: one table, one exception type.

Each entry gives the error shape (``__type`` on the wire, ``Error.QueryErrorCode`` in botocore and
the modeled exception class), the legacy query code (``Error.Code``), the HTTP status and the
message template. Any layer raises ``SqsError(name, **params)``; the protocol layer renders it.
Every message text lives here, so a reader sees in one place what sqsmock can answer and a test
checks the table (placeholders, shapes, statuses) and every raise site against it.
The table is kept in three files by where an error comes from (``api.py``: the SQS API;
``wire.py``: the wire, the HTTP front end, fault injection; ``sns.py``: the SNS API);
``ERRORS`` is their union.
This package imports nothing else of sqsmock so that every layer may use it.
"""

from __future__ import annotations

from .api import API_ERRORS
from .sns import SNS_ERRORS
from .spec import ErrorSpec
from .subscription_filters import FILTER_POLICY_ERRORS
from .wire import WIRE_ERRORS

__all__ = ["ERRORS", "QUERY_MESSAGES", "ErrorSpec", "SqsError", "batch_entry_error"]

#: Every entry, by name.
ERRORS: dict[str, ErrorSpec] = {**API_ERRORS, **WIRE_ERRORS, **SNS_ERRORS}

# SNS subscription filter policies (``subscription_filters.py``).
ERRORS.update(FILTER_POLICY_ERRORS)

#: Messages the query protocol words differently from the JSON protocol (AWS-recorded).
QUERY_MESSAGES: dict[str, str] = {
    "QueueDoesNotExist": "The specified queue does not exist for this wsdl version.",
}


def _shown(value: object) -> object:
    if isinstance(value, int) and value.bit_length() > 10_000:
        return f"<an integer of about {int(value.bit_length() * 0.30103)} digits>"
    return value


class SqsError(Exception):
    """An SQS error answer: ``SqsError("QueueDoesNotExist")``, ``SqsError("X", name=...)``."""

    def __init__(self, error: str, /, **params: object) -> None:
        spec = ERRORS[error]
        self.error = error
        self.spec = spec
        self.params = params
        try:
            self.message = spec.template.format(**params)
        except ValueError:  # an integer past Python's digit limit for text: say how long it is
            self.message = spec.template.format(**{k: _shown(v) for k, v in params.items()})
        super().__init__(f"{spec.code}: {self.message}")

    @property
    def code(self) -> str:
        return self.spec.code

    @property
    def shape(self) -> str:
        return self.spec.shape

    @property
    def status(self) -> int:
        return self.spec.status

    @property
    def query_message(self) -> str:
        """The message as the query protocol words it."""
        template = QUERY_MESSAGES.get(self.error)
        return self.message if template is None else template.format(**self.params)


def batch_entry_error(entry_id: str, error: SqsError) -> dict[str, object]:
    """A ``Failed`` entry of a batch response."""
    return {
        "Id": entry_id,
        "SenderFault": error.status < 500,
        "Code": error.code,
        "Message": error.message,
    }
