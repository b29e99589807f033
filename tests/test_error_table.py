"""The error table itself: well-formed templates, real shapes, plain statuses, honest raise sites.

Every message text sqsmock answers lives in ``sqsmock._errors.ERRORS``. These tests keep it that
way: they read the package source and fail when a module builds an error message of its own.
"""

from __future__ import annotations

import ast
import functools
import string
from collections.abc import Iterator
from pathlib import Path

import botocore.session
import pytest

from sqsmock import _errors
from sqsmock._errors import ERRORS, SqsError, batch_entry_error

#: The sqsmock package (``_errors`` is a package inside it).
PACKAGE = Path(_errors.__file__).parent.parent
#: Shapes SQS answers that botocore's model does not list as exceptions.
UNMODELED_SHAPES = frozenset(
    {
        "InvalidParameterValueException",
        "MissingRequiredParameterException",
        "InvalidAction",
        # AWS's common errors of the query protocol, and its answer to a GET naming no action
        "InvalidQueryParameter",
        "UnknownOperationException",
        # answered by SQS's HTTP front end, before the service
        "RequestEntityTooLarge",
        "MalformedQueryString",
        "MalformedHttpRequest",
        "RequestTimeout",
        "InternalFailure",
        "ServiceUnavailable",
        "SignatureDoesNotMatch",
        "MissingAuthenticationToken",
        # LocalStack's developer endpoint, and requests for other services
        "InvalidRequest",
        "UnsupportedOperation",
        # AWS's common errors, answered only by fault injection
        "InternalError",
        "ThrottlingException",
    }
)
#: Entries answered only when a test injects them (besides the server's 5xx ones).
FAULT_STATUSES = {"InternalError": 500, "RequestThrottled": 403, "ThrottlingException": 400}
#: Entries only the HTTP server answers, with the statuses of HTTP itself.
SERVER_STATUSES = {
    "RequestEntityTooLarge": 413,
    "RequestTimeout": 408,
    "InternalFailure": 500,
    "ServiceUnavailable": 503,
    "NotSqs": 501,
}
#: Helpers of ``_errors`` that took free text.
FREE_TEXT_HELPERS = frozenset({"invalid", "invalid_for"})
#: Entries whose whole text is botocore's own validation report.
BOTOCORE_TEXT = frozenset({"ParameterFailsModel"})


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


@functools.cache
def modules() -> tuple[tuple[str, tuple[ast.AST, ...]], ...]:
    """Every module of the package but the error table's own, by path relative to the package,
    with all its nodes (``ast.walk``'s order); parsed and walked once for all the tests here."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if not relative.startswith("_errors/"):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=relative)
            found.append((relative, tuple(ast.walk(tree))))
    return tuple(found)


def sqs_error_calls(nodes: tuple[ast.AST, ...]) -> Iterator[ast.Call]:
    for node in nodes:
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name == "SqsError":
                yield node


def literal(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_templates_use_named_format_fields_only(name: str) -> None:
    template = ERRORS[name].template
    parsed = list(string.Formatter().parse(template))  # raises on a malformed template
    for _, field, spec, conversion in parsed:
        if field is None:
            continue
        assert field.isidentifier(), f"{name}: field {field!r} is not a plain keyword"
        assert conversion in (None, "s", "r", "a")
        assert spec == ""
    template.format(**dict.fromkeys(fields(template), "X"))  # no positional or nested fields


@pytest.mark.parametrize("name", sorted(set(ERRORS) - BOTOCORE_TEXT))
def test_templates_carry_their_own_text(name: str) -> None:
    text = "".join(part for part, _, _, _ in string.Formatter().parse(ERRORS[name].template))
    assert text.strip(" .:"), f"{name} passes its text through a placeholder"


def test_templates_are_distinct() -> None:
    seen: dict[tuple[str, str], str] = {}
    for name, spec in ERRORS.items():
        key = (spec.shape, spec.template)
        assert key not in seen, f"{name} repeats {seen[key]}"
        seen[key] = name


def test_shapes_are_sqs_shapes() -> None:
    model = botocore.session.get_session().get_service_model("sqs")
    known = {shape.name for shape in model.error_shapes} | UNMODELED_SHAPES
    unknown = {
        name: spec.shape
        for name, spec in ERRORS.items()
        if spec.shape not in known and not name.startswith("Sns")
    }
    assert not unknown


#: Shapes SNS answers that botocore's model does not list (its ``ValidationError``).
SNS_UNMODELED_SHAPES = frozenset({"ValidationException", "InvalidAction"})


def test_sns_entries_have_sns_shapes_and_codes() -> None:
    """An ``Sns...`` entry's shape is an exception of SNS's model, and its code the one that
    model's query protocol gives that exception (``Error.Code``)."""
    model = botocore.session.get_session().get_service_model("sns")
    codes = {
        shape.name: shape.metadata.get("error", {}).get("code", shape.name)
        for shape in model.error_shapes
    }
    offences = []
    for name, spec in ERRORS.items():
        if not name.startswith("Sns") or spec.shape in SNS_UNMODELED_SHAPES:
            continue
        if codes.get(spec.shape) != spec.code:
            offences.append((name, spec.shape, spec.code, codes.get(spec.shape)))
    assert not offences


def test_statuses_are_client_errors_sqs_gives() -> None:
    answered_by_sqs = set(ERRORS) - set(SERVER_STATUSES) - set(FAULT_STATUSES)
    assert {ERRORS[name].status for name in answered_by_sqs} <= {400, 403, 404}
    assert {name: ERRORS[name].status for name in SERVER_STATUSES} == SERVER_STATUSES
    assert {name: ERRORS[name].status for name in FAULT_STATUSES} == FAULT_STATUSES


def test_no_entry_passes_free_text_through() -> None:
    assert not [name for name, spec in ERRORS.items() if spec.template == "{message}"]
    assert not hasattr(_errors, "invalid_for")
    assert not hasattr(_errors, "invalid")


def test_no_module_builds_its_own_message() -> None:
    """Outside ``_errors`` no ``SqsError(..., message=...)`` and no free-text helpers."""
    offences: list[str] = []
    for module, nodes in modules():
        for call in sqs_error_calls(nodes):
            if any(keyword.arg == "message" for keyword in call.keywords):
                offences.append(f"{module}:{call.lineno}: SqsError(..., message=...)")
        for node in nodes:
            if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("_errors"):
                offences += [
                    f"{module}:{node.lineno}: imports {alias.name}"
                    for alias in node.names
                    if alias.name in FREE_TEXT_HELPERS
                ]
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in FREE_TEXT_HELPERS:
                offences.append(f"{module}:{node.lineno}: calls {ast.unparse(node.func)}")
    assert not offences


def test_every_raise_site_names_an_entry_and_fills_its_fields() -> None:
    offences: list[str] = []
    for module, nodes in modules():
        for call in sqs_error_calls(nodes):
            name = literal(call.args[0]) if call.args else None
            if name is None:
                continue  # the entry is chosen by the caller, e.g. optional_int's ``error``
            if name not in ERRORS:
                offences.append(f"{module}:{call.lineno}: unknown entry {name}")
                continue
            if any(keyword.arg is None for keyword in call.keywords):
                continue  # **params
            given = {keyword.arg for keyword in call.keywords}
            missing = fields(ERRORS[name].template) - given
            if missing:
                offences.append(f"{module}:{call.lineno}: {name} lacks {sorted(missing)}")
    assert not offences


def test_optional_int_errors_are_entries_about_the_value() -> None:
    """``optional_int(request, name, low, high, error)`` raises ``SqsError(error, value=...)``."""
    offences: list[str] = []
    for module, nodes in modules():
        for node in nodes:
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "optional_int":
                error = literal(node.args[4]) if len(node.args) == 5 else None
                if error not in ERRORS or not fields(ERRORS[error].template) <= {"value"}:
                    offences.append(f"{module}:{node.lineno}: {error!r}")
    assert not offences


def test_every_entry_is_raised_somewhere() -> None:
    named: set[str] = set()
    for _, nodes in modules():
        named |= {node.value for node in nodes if isinstance(node, ast.Constant)}
    unused = set(ERRORS) - named
    assert not unused


@pytest.mark.parametrize(
    ("name", "params", "code", "status", "text"),
    [
        (
            "InFlightLimitReached",
            {"limit": 120000},
            "OverLimit",
            403,
            "The maximum number of in-flight messages (120000) has been reached for this queue.",
        ),
        (
            "MoveTaskAlreadyRunning",
            {},
            "InvalidParameterValue",
            400,
            "There is already a task running. Only one active task is allowed for a source queue "
            "arn at a given time.",
        ),
        (
            "InvalidTaskHandle",
            {},
            "InvalidParameterValue",
            400,
            "Value for parameter TaskHandle is invalid.",
        ),
        ("TaskDoesNotExist", {}, "ResourceNotFoundException", 404, "Task does not exist."),
        (
            "InvalidJsonBody",
            {},
            "InvalidParameterValue",
            400,
            "The request body is not valid JSON.",
        ),
    ],
)
def test_pending_entries_render_what_their_callers_answer_today(
    name: str, params: dict[str, object], code: str, status: int, text: str
) -> None:
    error = SqsError(name, **params)
    assert (error.code, error.status, error.message) == (code, status, text)


def test_sqs_error_surface() -> None:
    error = SqsError("TooManyActions", count=8, limit=7)
    assert error.error == "TooManyActions"
    assert error.spec is ERRORS["TooManyActions"]
    assert (error.shape, error.code, error.status) == ("OverLimit", "OverLimit", 403)
    assert error.message == "8 Actions were found, maximum allowed is 7."
    assert str(error) == "OverLimit: 8 Actions were found, maximum allowed is 7."
    assert batch_entry_error("a", error) == {
        "Id": "a",
        "SenderFault": True,
        "Code": "OverLimit",
        "Message": "8 Actions were found, maximum allowed is 7.",
    }


def test_values_with_braces_are_not_templates() -> None:
    error = SqsError("RedrivePolicyNotJson", value="{oops}")
    assert error.message == (
        "Value {oops} for parameter RedrivePolicy is invalid. "
        "Reason: Redrive policy is not a valid JSON map."
    )
