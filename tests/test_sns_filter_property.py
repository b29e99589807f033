"""SNS filter policies under generated input: any text is a policy or AWS's InvalidParameter,
and any message passes or fails a policy, never an exception of another kind.

Hypothesis builds policies from the operators and shapes AWS knows (and wrong ones: bad
operands, stray keys, odd nesting, NaN and infinities as ``json.dumps`` writes them), texts cut
or spliced at random, and messages of any JSON shape with the attribute types SNS carries.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sqsmock._errors import SqsError
from sqsmock._service.sns_filters import Policy, parse_policy

pytestmark = pytest.mark.slow  # a few seconds each: generation dominates

SETTINGS = settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)

KEYS = st.sampled_from(["a", "b", "a.b", "$or", "prefix", "numeric", "c.d.e", ""])
OPERATORS = st.sampled_from(
    [
        "prefix",
        "suffix",
        "equals-ignore-case",
        "anything-but",
        "numeric",
        "exists",
        "cidr",
        "wildcard",
        "exactly",
        "bogus",
    ]
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["=", "<", "<=", ">", ">=", "10.0.0.0/24", "2001:db8::/64", "1.2.3.4"]),
)


def operand() -> st.SearchStrategy[Any]:
    return st.one_of(
        SCALARS,
        st.lists(SCALARS, max_size=5),
        st.dictionaries(OPERATORS, SCALARS, max_size=2),
        st.tuples(st.sampled_from([">", ">=", "<", "<=", "="]), st.integers(-5, 5)).map(list),
        st.tuples(
            st.sampled_from([">", ">="]),
            st.integers(-5, 5),
            st.sampled_from(["<", "<="]),
            st.integers(-5, 10),
        ).map(list),
    )


MATCH = st.one_of(SCALARS, st.builds(lambda op, value: {op: value}, OPERATORS, operand()))
LEAF = st.lists(MATCH, min_size=1, max_size=4)
#: Mostly well-formed: keys holding lists of matches, nested objects, ``$or`` of objects.
SHAPED = st.recursive(
    st.dictionaries(KEYS, LEAF, min_size=1, max_size=3),
    lambda inner: st.dictionaries(
        KEYS,
        st.one_of(LEAF, inner, st.lists(inner, min_size=1, max_size=3)),
        min_size=1,
        max_size=3,
    ),
    max_leaves=8,
)
#: Anything at all.
CHAOS = st.dictionaries(
    KEYS,
    st.recursive(
        st.one_of(SCALARS, st.dictionaries(OPERATORS, operand(), min_size=1, max_size=2)),
        lambda inner: st.one_of(
            st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)
        ),
        max_leaves=12,
    ),
    max_size=6,
)
POLICIES = st.one_of(SHAPED, SHAPED, CHAOS)
SCOPES = st.sampled_from(["MessageAttributes", "MessageBody"])


def check(text: str, scope: str) -> Policy | None:
    try:
        return parse_policy(text, scope, subscribe=len(text) % 2 == 0)
    except SqsError as error:
        assert error.code == "InvalidParameter"
        assert error.message.startswith("Invalid parameter: ")
        return None


@SETTINGS
@given(POLICIES, SCOPES)
def test_any_policy_is_accepted_or_refused_as_aws_refuses(policy: Any, scope: str) -> None:
    check(json.dumps(policy), scope)


@SETTINGS
@given(POLICIES, st.integers(min_value=0, max_value=400), st.text(max_size=3), SCOPES)
def test_any_broken_text_is_refused_as_aws_refuses(
    policy: Any, cut: int, splice: str, scope: str
) -> None:
    text = json.dumps(policy)
    check(text[:cut] + splice + text[cut:], scope)
    check(text[:cut], scope)


BODIES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=25,
)
ATTRIBUTES = st.dictionaries(
    KEYS,
    st.fixed_dictionaries(
        {
            "DataType": st.sampled_from(["String", "Number", "String.Array", "Binary", "X"]),
            "StringValue": st.one_of(st.text(max_size=8), BODIES.map(json.dumps)),
        }
    ),
    max_size=4,
)


@SETTINGS
@given(POLICIES, BODIES, ATTRIBUTES)
def test_any_message_passes_or_fails(policy: Any, body: Any, attributes: Any) -> None:
    for scope in ("MessageAttributes", "MessageBody"):
        compiled = check(json.dumps(policy), scope)
        if compiled is not None:
            assert compiled.matches(json.dumps(body), attributes) in (True, False)
            assert compiled.matches_body("not json") is False or compiled.body_scope is False
