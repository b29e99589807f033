"""SNS subscription filter policies: validated as AWS validates them, matched as AWS matches.

A subscription's ``FilterPolicy`` decides which published messages reach its queue, so a mock
that accepts a policy AWS refuses, words the refusal differently, or delivers a message AWS
would filter out lets a test pass that fails against AWS. This package is pure (no I/O, no
clock): ``parse_policy`` turns the attribute's text into a ``Policy`` or raises the
``InvalidParameter`` error AWS answers, and the ``Policy`` answers whether a message passes.

Validation runs in AWS's order: the size, the JSON (``failed to parse JSON.``), the rule
engine's compile (its reasons and parser positions, ``_compile``), then SNS's own limits: at
most five top-level keys, no nesting in attribute scope, at most 150 combinations (each key's
value count times its nesting depth, multiplied along a branch and added across ``$or``).
"""

from __future__ import annotations

import functools

from ..._errors import SqsError
from ._compile import Branch, compile_rules
from ._match import Policy, body_document
from ._patterns import Value
from ._source import Cursor, compact, deep_enough, load

__all__ = [
    "ATTRIBUTES_SCOPE",
    "BODY_SCOPE",
    "MOST_BYTES",
    "MOST_COMBINATIONS",
    "MOST_KEYS",
    "Policy",
    "Value",
    "body_document",
    "parse_policy",
    "stored_policy",
]

ATTRIBUTES_SCOPE = "MessageAttributes"
BODY_SCOPE = "MessageBody"
#: AWS's limits (Filter policy constraints).
MOST_BYTES = 256 * 1024
MOST_KEYS = 5
MOST_COMBINATIONS = 150


def parse_policy(text: str, scope: str = ATTRIBUTES_SCOPE, *, subscribe: bool = False) -> Policy:
    """The policy ``text`` means under ``scope`` (``MessageAttributes`` or ``MessageBody``).

    ``subscribe``: the policy came in Subscribe's ``Attributes`` (AWS's messages then read
    ``Invalid parameter: Attributes Reason: FilterPolicy: ...``) rather than in
    SetSubscriptionAttributes (``Invalid parameter: FilterPolicy: ...``). Raises ``SqsError``
    (code ``InvalidParameter``, 400) when AWS refuses the policy. An empty text means "no
    policy" to both actions and is the caller's to handle before calling this.
    """
    if scope not in (ATTRIBUTES_SCOPE, BODY_SCOPE):
        raise ValueError(f"a filter policy scope is {ATTRIBUTES_SCOPE} or {BODY_SCOPE}")
    lead = "Attributes Reason: " if subscribe else ""
    if len(text.encode("utf-8", "surrogatepass")) > MOST_BYTES:
        raise SqsError("SnsFilterPolicyTooLong", lead=lead)
    document, depth = load(text, lead)
    return deep_enough(depth, lambda: _validated(document, scope, lead))


@functools.lru_cache(maxsize=4096)
def stored_policy(text: str, scope: str) -> Policy:
    """The policy of a subscription as stored (text and scope), compiled once: what delivery
    calls on every publish. The text was accepted when it was set; a text AWS refuses raises as
    ``parse_policy`` does (SetSubscriptionAttributes' wording)."""
    return parse_policy(text, scope)


def _validated(document: object, scope: str, lead: str) -> Policy:
    source, tokens = compact(document)
    branches = compile_rules(Cursor(source, tokens, lead))
    assert isinstance(document, dict)  # compile_rules refuses anything else
    if len(document) > MOST_KEYS:
        raise SqsError("SnsFilterPolicyTooManyKeys", lead=lead)
    if scope == ATTRIBUTES_SCOPE and _nested(document):
        raise SqsError("SnsFilterPolicyNestedInAttributeScope", lead=lead)
    if _combinations(document, 1, 1) > MOST_COMBINATIONS:
        raise SqsError("SnsFilterPolicyTooComplex", lead=lead)
    return Policy(scope, tuple(branches), _prefixes(branches))


def _nested(policy: dict[str, object]) -> bool:
    for key, value in policy.items():
        if isinstance(value, dict):
            return True
        if (
            key == "$or"
            and isinstance(value, list)
            and any(isinstance(branch, dict) and _nested(branch) for branch in value)
        ):
            return True
    return False


def _combinations(policy: dict[str, object], depth: int, combinations: int) -> int:
    for key, value in policy.items():
        if isinstance(value, dict):
            combinations = _combinations(value, depth + 1, combinations)
        elif isinstance(value, list):
            if key == "$or":
                combinations = sum(
                    _combinations(branch, depth, combinations)
                    for branch in value
                    if isinstance(branch, dict)
                )
            else:
                combinations *= len(value) * depth
    return combinations


def _prefixes(branches: list[Branch]) -> frozenset[str]:
    found: set[str] = set()
    for branch in branches:
        for path in branch:
            parts = path.split(".")
            found.update(".".join(parts[: index + 1]) for index in range(len(parts)))
    return frozenset(found)
