"""SNS subscription filter policies: AWS's refusals word for word, and AWS's documented matches.

The refusals are AWS-recorded (LocalStack's snapshot of ``test_sns_filter_policy.py``, AWS
2024): the policy is sent as ``json.dumps`` writes it and AWS quotes it back compactly with the
parser's column. The matches are the AWS SNS Developer Guide's examples (string, numeric, key
and IP matching, AND/OR logic, example filter policies) and the recorded delivery tests.
"""

from __future__ import annotations

import json

import pytest

from sqsmock._errors import SqsError
from sqsmock._service.sns_filters import Policy, body_document, parse_policy, stored_policy

ATTRS = "MessageAttributes"
BODY = "MessageBody"
SUB = "Invalid parameter: Attributes Reason: FilterPolicy: "
SET = "Invalid parameter: FilterPolicy: "


def at(column: int, source: str) -> str:
    return f'\n at [Source: (String)"{source}"; line: 1, column: {column}]'


def refusal(policy: object, scope: str = ATTRS, *, subscribe: bool = True) -> SqsError:
    text = policy if isinstance(policy, str) else json.dumps(policy)
    with pytest.raises(SqsError) as caught:
        parse_policy(text, scope, subscribe=subscribe)
    error = caught.value
    assert (error.code, error.shape, error.status) == (
        "InvalidParameter",
        "InvalidParameterException",
        400,
    )
    return error


# --- refusals, AWS-recorded -------------------------------------------------------------------

LOCATED = [
    ({"key": [["value"]]}, "Match value must be String, number, true, false, or null", 10),
    ({"key": [{"wrong-operator": True}]}, "Unrecognized match type wrong-operator", 31),
    (
        {"key": [{"suffix": "value", "prefix": "value2"}]},
        "Only one key allowed in match expression",
        37,
    ),
    ({"key": []}, "Empty arrays are not allowed", 10),
    ({"key": [{"suffix": 100}]}, "suffix match pattern must be a string", 22),
    ({"key": [{"suffix": None}]}, "suffix match pattern must be a string", 23),
    ({"key": {"suffix": "value"}}, '"suffix" must be an object or an array', 19),
    ({"key": [{"suffix": []}]}, "suffix match pattern must be a string", 20),
    ({"key": [{"suffix": ["test", "test2"]}]}, "suffix match pattern must be a string", 20),
    ({"key": {"suffix": "value", "prefix": "value"}}, '"suffix" must be an object or an array', 19),
    ({"key": {"not-an-operator": "value"}}, '"not-an-operator" must be an object or an array', 28),
    ({"key": [{"cidr": ["bad-filter"]}]}, "prefix match pattern must be a string", 18),
    ({"key": [{"numeric": []}]}, "Invalid member in numeric match: ]", 22),
    ({"key": [{"numeric": ["operator"]}]}, "Unrecognized numeric range operator: operator", 32),
    ({"key": [{"numeric": [1, "<="]}]}, "Invalid member in numeric match: 1", 22),
    ({"key": [{"numeric": ["=", "000"]}]}, "Value of equals must be numeric", 26),
    ({"key": [{"numeric": [">="]}]}, "Value of >= must be numeric", 26),
    ({"key": [{"numeric": ["<", 100, ">", 10]}]}, "Too many elements in numeric expression", 30),
    ({"key": [{"numeric": [">=", 1, ">", 2]}]}, "Bad numeric range operator: >", 31),
    ({"key": [{"numeric": [">", 3, "<", 1]}]}, "Bottom must be less than top", 33),
    ({"key": [{"numeric": [">", 20, "<="]}]}, "Value of <= must be numeric", 33),
    ({"key": [{"numeric": [">", 20, 30]}]}, "Bad value in numeric range: 30", 30),
    ({"key": [{"numeric": [">", 20, "test"]}]}, "Bad numeric range operator: test", 34),
    ({"key": [{"numeric": [">", "20", "<", "30"]}]}, "Value of > must be numeric", 26),
    ({"key": [{"numeric": [">", 20, "<", "30"]}]}, "Value of < must be numeric", 33),
    (
        {"key": [{"numeric": [">", 20, "<", 30, "<", 50]}]},
        "Too many terms in numeric range expression",
        36,
    ),
    ({"key": [{"exists": None}]}, "exists match pattern must be either true or false.", 23),
    ({"key": [{"exists": "no"}]}, "exists match pattern must be either true or false.", 20),
    (
        {"key": [{"anything-but": {"wrong-operator": None}}]},
        "Unsupported anything-but pattern: wrong-operator",
        47,
    ),
    (
        {"key": [{"anything-but": {"suffix": "test"}}]},
        "Unsupported anything-but pattern: suffix",
        36,
    ),
    (
        {"key": [{"anything-but": {"exists": False}}]},
        "Unsupported anything-but pattern: exists",
        40,
    ),
    (
        {"key": [{"anything-but": {"prefix": False}}]},
        "prefix match pattern must be a string",
        40,
    ),
]


@pytest.mark.parametrize(("policy", "reason", "column"), LOCATED)
def test_compile_refusals_quote_the_compact_policy_and_the_parser_column(
    policy: object, reason: str, column: int
) -> None:
    source = json.dumps(policy, separators=(",", ":"))
    assert refusal(policy).message == SUB + reason + at(column, source)


@pytest.mark.parametrize(
    ("cidr", "reason"),
    [
        ("bad-filter", "Malformed CIDR, one '/' required"),
        ("bad-filter/64", "Nonstandard IP address: bad-filter"),
        ("bad-/64filter", "Malformed CIDR, mask bits must be an integer"),
        ("xx.11.xx/8", "Nonstandard IP address: xx.11.xx"),
        ("xxxx:db8:1234:1a00::/64", "Nonstandard IP address: xxxx:db8:1234:1a00::"),
    ],
)
def test_cidr_refusals_carry_no_location(cidr: str, reason: str) -> None:
    assert refusal({"key": [{"cidr": cidr}]}).message == SUB + reason


def test_set_subscription_attributes_words_the_refusal_without_attributes_reason() -> None:
    assert refusal({"key_a": "value_one"}, BODY, subscribe=False).message == (
        SET + '"key_a" must be an object or an array' + at(11, '{"key_a":"value_one"}')
    )


def test_too_many_values_in_one_key_or_across_keys_is_too_complex() -> None:
    expected = SUB + "Filter policy is too complex"
    assert refusal({"key": [f"value{i}" for i in range(151)]}).message == expected
    two = {"key1": [f"v{i}" for i in range(100)], "key2": [f"v{i}" for i in range(51)]}
    assert refusal(two).message == expected
    parse_policy(json.dumps({"key": [f"value{i}" for i in range(150)]}), ATTRS)


def test_six_keys_are_refused() -> None:
    policy = {f"key{i}": [f"value{i}"] for i in range(1, 7)}
    assert refusal(policy).message == SUB + "Filter policy can not have more than 5 keys"
    del policy["key6"]
    parse_policy(json.dumps(policy), ATTRS)


def test_nesting_multiplies_by_depth_in_body_scope() -> None:
    # AWS's documented example: 3 x 4 x 2 x 3 x 1 x 3 = 216 > 150 (recorded with Set).
    nested = {
        "key_a": {"key_b": {"key_c": ["value_one", "value_two", "value_three", "value_four"]}},
        "key_d": {"key_e": ["value_one", "value_two", "value_three"]},
        "key_f": ["value_one", "value_two", "value_three"],
    }
    assert refusal(nested, BODY, subscribe=False).message == SET + "Filter policy is too complex"


def test_or_branches_add_their_combinations() -> None:
    flat = {  # 4*6 + 4*4*4 + 4*4*4 = 152
        "source": ["aws.cloudwatch", "aws.events", "aws.test", "aws.test2"],
        "$or": [
            {"metricName": ["CPUUtilization", "ReadLatency", "t1", "t2", "t3", "t4"]},
            {
                "metricType": ["MetricType", "TestType", "TestType2", "TestType3"],
                "$or": [{"metricId": [1234, 4321, 5678, 9012]}, {"spaceId": [1, 2, 3, 4]}],
            },
        ],
    }
    assert refusal(flat).message == SUB + "Filter policy is too complex"
    nested = {  # (3 + 2) * 2 * 2 * (1 + 3) * 2 = 160
        "$or": [
            {"metricName": ["CPUUtilization", "ReadLatency", "TestValue"]},
            {"namespace": ["AWS/EC2", "AWS/ES"]},
        ],
        "detail": {
            "scope": ["Service", "Test"],
            "$or": [
                {"source": ["aws.cloudwatch"]},
                {"type": ["CloudWatch Alarm State Change", "TestValue", "TestValue2"]},
            ],
        },
    }
    assert refusal(nested, BODY).message == SUB + "Filter policy is too complex"
    exactly_150 = {
        "source": ["aws.cloudwatch", "aws.events", "aws.test"],
        "$or": [
            {"metricName": ["CPUUtilization", "ReadLatency", "a", "b", "c", "d"]},
            {
                "metricType": ["MetricType", "TestType", "TestType2", "TestType3"],
                "$or": [{"metricId": [1234, 4321, 5678, 9012]}, {"spaceId": [1, 2, 3, 4, 5, 6, 7]}],
            },
        ],
    }
    parse_policy(json.dumps(exactly_150), ATTRS)


def test_attribute_scope_refuses_nesting_that_body_scope_accepts() -> None:
    nested = {"object": {"key": [{"prefix": "auto-"}]}}
    assert refusal(nested, subscribe=False).message == (
        "Invalid parameter: Filter policy scope MessageAttributes does not support nested filter "
        "policy"
    )
    assert parse_policy(json.dumps(nested), BODY).matches_body('{"object": {"key": "auto-x"}}')


def test_a_policy_that_is_not_json_gets_the_parser_reason() -> None:
    assert refusal("{invalidjson}", subscribe=False).message == (
        SET + "failed to parse JSON. Unexpected character ('i' (code 105)): was expecting "
        "double-quote to start field name\n at [Source: REDACTED "
        "(`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 2]"
    )


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ('{"a": [1,', "Unexpected end-of-input: expected close marker for Array"),
        ('{"a": ["b"]', "Unexpected end-of-input: expected close marker for Object"),
        ('{"a": nope}', "Unrecognized token 'nope': was expecting"),
        ('{"a": ["b"] "c"}', "Unexpected character ('\"' (code 34)): was expecting comma"),
        ('{"a" ["b"]}', "Unexpected character ('[' (code 91)): was expecting a colon"),
        ('{"a": [NaN]}', "Unrecognized token 'NaN'"),
        ("   ", "No content to map due to end-of-input"),
        ('{"a": ["b\\q"]}', "Unrecognized character escape 'q' (code 113)"),
        ('{"a": ["b\nc"]}', "Illegal unquoted character ((CTRL-CHAR, code 10)): has to be"),
    ],
)
def test_every_kind_of_malformed_json_gets_a_parser_reason(text: str, start: str) -> None:
    message = refusal(text).message
    assert message.startswith(SUB + "failed to parse JSON. " + start)
    assert "\n at [Source: REDACTED" in message


@pytest.mark.parametrize(
    ("policy", "reason"),
    [
        ([1], "Filter is not an object"),
        ({}, "Empty objects are not allowed"),
        ({"$or": [{"a": ["b"]}]}, "There must have at least 2 Objects in $or relationship."),
        ({"$or": {"a": ["b"]}}, "It must be an Array followed with $or."),
        ({"$or": [{"a": ["b"]}, "c"]}, "Only JSON object is allowed in array of $or relationship."),
        (
            {"$or": [{"prefix": ["b"]}, {"c": ["d"]}]},
            "prefix is Ruler reserved fieldName which cannot be used inside $or.",
        ),
        ({"a": [{}]}, "Match expression name not found"),
        ({"a": [{"anything-but": {"prefix": ""}}]}, "Null prefix not allowed"),
        ({"a": [{"anything-but": [1, "b"]}]}, "Inside anything but list, either all values"),
        ({"a": [{"anything-but": [None]}]}, "Inside anything but list, start|null|boolean"),
        ({"a": [{"anything-but": True}]}, "Value of anything-but must be an array or single"),
        ({"a": [{"numeric": 5}]}, "Value of numeric must be an array."),
        ({"a": [{"numeric": ["<", 6e9]}]}, "Value must be between -5.0E9 and 5.0E9, inclusive"),
        ({"a": [{"exactly": 5}]}, "exact match pattern must be a string"),
        ({"a": [{"wildcard": 5}]}, "wildcard match pattern must be a string"),
        ({"a": [{"equals-ignore-case": 5}]}, "equals-ignore-case match pattern must be a string"),
    ],
)
def test_the_rule_engine_refuses_the_rest_in_its_own_words(policy: object, reason: str) -> None:
    assert refusal(policy).message.startswith(SUB + reason)


@pytest.mark.parametrize(
    ("cidr", "reason"),
    [
        ("10.0.0.0/32", "IPv4 mask bits must be < 32"),
        ("2001:db8::/128", "IPv6 mask bits must be < 128"),
        ("10.0.0.0/-1", "Malformed CIDR, mask bits must not be negative"),
        ("10.0.0.256/8", "Invalid IP address: 10.0.0.256"),
    ],
)
def test_cidr_limits(cidr: str, reason: str) -> None:
    assert refusal({"a": [{"cidr": cidr}]}).message == SUB + reason


def test_a_policy_past_256_kib_is_refused() -> None:
    assert refusal({"a": ["x" * (256 * 1024)]}).message == SUB + "Filter policy is too long"


def test_a_long_policy_is_quoted_cut_at_500_characters() -> None:
    policy = {"key": ["x" * 600, ["nested"]]}
    source = json.dumps(policy, separators=(",", ":"))
    message = refusal(policy).message
    assert message.endswith(
        f'(String)"{source[:500]}"[truncated {len(source) - 500} chars]; line: 1, column: 613]'
    )


# --- matching: the AWS Developer Guide's examples ---------------------------------------------


def string(value: str) -> dict[str, str]:
    return {"DataType": "String", "StringValue": value}


def number(value: str) -> dict[str, str]:
    return {"DataType": "Number", "StringValue": value}


def array(*values: object) -> dict[str, str]:
    return {"DataType": "String.Array", "StringValue": json.dumps(values)}


def attrs_policy(policy: object) -> Policy:
    return parse_policy(json.dumps(policy), ATTRS)


def body_policy(policy: object) -> Policy:
    return parse_policy(json.dumps(policy), BODY)


def passes(policy: object, attribute: dict[str, str] | None = None, body: object = None) -> bool:
    """Whether a message with ``key`` = ``attribute`` (attribute scope), or the body, passes;
    the policy's key is ``key``; both scopes must agree when both are given."""
    answers = []
    if attribute is not None:
        answers.append(attrs_policy({"key": policy}).matches_attributes({"key": attribute}))
    if body is not None:
        answers.append(body_policy({"key": policy}).matches_body(json.dumps({"key": body})))
    assert len(set(answers)) == 1, answers
    return answers[0]


@pytest.mark.parametrize(
    ("policy", "attribute", "body", "expected"),
    [
        # exact strings (String value matching)
        (["rugby", "tennis"], string("rugby"), "rugby", True),
        (["rugby", "tennis"], string("tennis"), "tennis", True),
        (["rugby", "tennis"], array("rugby", "tennis"), ["rugby", "tennis"], True),
        (["rugby", "tennis"], string("baseball"), "baseball", False),
        (["rugby", "tennis"], array("baseball"), ["baseball"], False),
        (["rugby"], string("Rugby"), "Rugby", False),
        # anything-but
        ([{"anything-but": ["rugby", "tennis"]}], string("baseball"), "baseball", True),
        ([{"anything-but": ["rugby", "tennis"]}], string("football"), "football", True),
        ([{"anything-but": ["rugby", "tennis"]}], array("rugby", "baseball"), None, True),
        ([{"anything-but": ["rugby", "tennis"]}], string("rugby"), "rugby", False),
        ([{"anything-but": "rugby"}], string("tennis"), "tennis", True),
        ([{"anything-but": "rugby"}], string("rugby"), "rugby", False),
        ([{"anything-but": {"prefix": "bas"}}], string("rugby"), "rugby", True),
        ([{"anything-but": {"prefix": "bas"}}], string("baseball"), "baseball", False),
        # prefix, suffix, equals-ignore-case
        ([{"prefix": "bas"}], string("baseball"), "baseball", True),
        ([{"prefix": "bas"}], string("basketball"), "basketball", True),
        ([{"prefix": "bas"}], string("rugby"), "rugby", False),
        ([{"suffix": "ball"}], string("baseball"), "baseball", True),
        ([{"suffix": "ball"}], string("rugby"), "rugby", False),
        ([{"equals-ignore-case": "tennis"}], string("TENNIS"), "TENNIS", True),
        ([{"equals-ignore-case": "tennis"}], string("Tennis"), "Tennis", True),
        ([{"equals-ignore-case": "tennis"}], string("baseball"), "baseball", False),
        # numeric (Numeric value matching)
        ([{"numeric": ["=", 301.5]}], number("301.5"), 301.5, True),
        ([{"numeric": ["=", 301.5]}], number("3.015e2"), 3.015e2, True),
        ([{"anything-but": [100, 500]}], number("101"), 101, True),
        ([{"anything-but": [100, 500]}], number("100.1"), 100.1, True),
        ([{"anything-but": [100, 500]}], number("100"), 100, False),
        ([{"anything-but": [100, 500]}], None, [100, 50], True),
        ([{"numeric": ["<", 0]}], number("-1"), -1, True),
        ([{"numeric": ["<", 0]}], number("0"), 0, False),
        ([{"numeric": [">", 0, "<=", 150]}], number("150"), 150, True),
        ([{"numeric": [">", 0, "<=", 150]}], number("0"), 0, False),
        ([{"numeric": [">", 0, "<=", 150]}], number("150.000001"), 150.000001, False),
        ([{"numeric": [">=", 0, "<", 150]}], number("0"), 0, True),
        ([{"numeric": [">", 0, "<=", 100]}], number("99"), 99, True),  # recorded
        ([{"numeric": [">", 0, "<=", 100]}], number("111"), 111, False),  # recorded
        ([{"numeric": [">", 0]}], string("5"), "5", False),
        ([100], number("100.0"), 100.0, True),
        ([100], string("100"), "100", False),
        # IP addresses (recorded)
        ([{"cidr": "10.0.0.0/24"}], string("10.0.0.255"), "10.0.0.255", True),
        ([{"cidr": "10.0.0.0/24"}], string("10.0.0.256"), "10.0.0.256", False),
        ([{"cidr": "10.0.0.0/24"}], string("10.0.1.0"), "10.0.1.0", False),
        (
            [{"cidr": "2001:db8:1234:1a00::/64"}],
            string("2001:0db8:1234:1a00:0000:0000:0000:0000"),
            "2001:0db8:1234:1a00:0000:0000:0000:0000",
            True,
        ),
        (
            [{"cidr": "2001:db8:1234:1a00::/64"}],
            string("2001:0db8:123f:1a01:0000:0000:0000:0000"),
            "2001:0db8:123f:1a01:0000:0000:0000:0000",
            False,
        ),
        (["10.0.0.1"], string("10.0.0.1"), "10.0.0.1", True),
        # wildcard and exactly (the rule engine SNS runs)
        ([{"wildcard": "*.jpg"}], string("a/b.jpg"), "a/b.jpg", True),
        ([{"wildcard": "*.jpg"}], string("a/b.png"), "a/b.png", False),
        ([{"exactly": "a"}], string("a"), "a", True),
        # empty string and null
        ([""], string(""), "", True),  # recorded (body)
        ([None], None, "x", False),
    ],
)
def test_documented_matches(
    policy: object, attribute: dict[str, str] | None, body: object, expected: bool
) -> None:
    assert passes(policy, attribute, body) is expected


def test_binary_attributes_are_not_compared() -> None:
    binary = {"DataType": "Binary", "BinaryValue": b"abc"}
    assert not attrs_policy({"key": [{"exists": True}]}).matches_attributes({"key": binary})


def test_exists_key_matching() -> None:
    present = attrs_policy({"store": [{"exists": True}]})
    absent = attrs_policy({"store": [{"exists": False}]})
    both = {"store": number("99"), "def": number("99")}  # recorded
    other = {"attr1": number("111")}
    assert present.matches_attributes(both) and not present.matches_attributes(other)
    assert absent.matches_attributes({"def": number("99")})
    assert not absent.matches_attributes(both)
    assert not absent.matches_attributes({})  # an empty set of attributes never passes
    body_present = body_policy({"store": [{"exists": True}]})
    assert body_present.matches_body('{"store": "fans", "customer_interests": ["baseball"]}')
    assert not body_present.matches_body('{"customer_interests": ["baseball"]}')
    assert not body_present.matches_body('{"store": null}')


def test_a_message_without_the_key_never_matches_null_or_anything_but() -> None:
    policy = attrs_policy({"attr1": [None, {"anything-but": "whatever"}]})  # recorded
    assert not policy.matches_attributes({})
    assert policy.matches_attributes({"attr1": string("something")})


def test_envelope_shaped_attributes_are_read_too() -> None:
    policy = attrs_policy({"store": ["example_corp"], "price_usd": [{"numeric": [">", 200]}]})
    assert policy.matches_attributes(
        {
            "store": {"Type": "String", "Value": "example_corp"},
            "price_usd": {"Type": "Number", "Value": "210.75"},
        }
    )


def test_and_or_logic() -> None:
    # AND across keys, OR within a key's list (AND/OR logic).
    policy = attrs_policy(
        {
            "customer_interests": ["rugby", "football", "baseball"],
            "price_usd": [{"numeric": [">", 100]}],
        }
    )
    assert policy.matches_attributes(
        {"customer_interests": array("soccer", "rugby"), "price_usd": number("210.75")}
    )
    assert not policy.matches_attributes({"customer_interests": array("rugby")})
    assert not policy.matches_attributes(
        {"customer_interests": array("soccer"), "price_usd": number("210.75")}
    )
    # "$or" (OR operator): the documented example.
    either = attrs_policy(
        {
            "source": ["aws.cloudwatch"],
            "$or": [{"metricName": ["CPUUtilization"]}, {"namespace": ["AWS/EC2"]}],
        }
    )
    assert either.matches_attributes(
        {"source": string("aws.cloudwatch"), "namespace": string("AWS/EC2")}
    )
    assert either.matches_attributes(
        {"source": string("aws.cloudwatch"), "metricName": string("CPUUtilization")}
    )
    assert not either.matches_attributes({"source": string("aws.cloudwatch")})


def test_body_policy_recorded_deliveries() -> None:
    policy = body_policy(
        {
            "object": {
                "key": [{"prefix": "auto-"}, "hardcodedvalue"],
                "nested_key": [{"exists": False}],
            },
            "test": [{"exists": False}],
        }
    )
    assert policy.matches_body(json.dumps({"object": {"key": "auto-test"}}))
    assert policy.matches_body(json.dumps({"object": {"key": "hardcodedvalue"}}))
    for refused in [
        {"object": {"key": "test-auto"}},
        {"object": {"key": "auto-test"}, "test": "just-exists"},
        {"object": {"key": "auto-test", "nested_key": "just-exists"}},
        {"object": {"test": "auto-test"}},
        {"test": "auto-test"},
    ]:
        assert not policy.matches_body(json.dumps(refused))
    assert not policy.matches_body("Regular string message")
    assert not policy.matches_body(json.dumps("Regular string message"))
    assert not policy.matches_body("[1, 2]")


def test_dotted_keys_match_nesting_both_ways() -> None:
    dotted = body_policy({"object.nested": ["string.value"]})
    assert dotted.matches_body('{"object": {"nested": "string.value"}}')
    assert dotted.matches_body('{"object.nested": "string.value"}')
    assert not dotted.matches_body('{"object": {"nested": "test-auto"}}')
    deep = body_policy({"object.nested.test": ["string.value"]})
    for body in [
        {"object": {"nested": {"test": "string.value"}}},
        {"object.nested.test": "string.value"},
        {"object.nested": {"test": "string.value"}},
        {"object": {"nested.test": "string.value"}},
    ]:
        assert deep.matches_body(json.dumps(body))
    assert not deep.matches_body('{"object": {"nested": {"test": "string.notvalue"}}}')


def test_body_arrays_any_element_may_match() -> None:
    queue1 = body_policy({"headers": {"route-to": ["queue1"]}})
    assert queue1.matches_body('{"headers": {"route-to": ["queue1", "queue2"]}}')
    assert queue1.matches_body('{"headers": {"route-to": ["queue1"]}}')
    assert not queue1.matches_body('{"headers": {"route-to": ["queue3"]}}')


def test_arrays_of_objects_match_within_one_element() -> None:
    policy = body_policy(
        {
            "Records": {
                "s3": {"object": {"key": [{"prefix": "auto-"}]}},
                "eventName": [{"prefix": "ObjectCreated:"}],
            }
        }
    )

    def record(name: str, key: object) -> dict[str, object]:
        return {"eventSource": "aws:s3", "eventName": name, "s3": {"object": key}}

    created = {"Records": [record("ObjectCreated:Put", {"key": "auto-insurance.xml"})]}
    removed = {"Records": [record("ObjectRemoved:Delete", {"key": "auto-insurance.xml"})]}
    home = {"Records": [record("ObjectCreated:Put", {"key": "home-insurance.xml"})]}
    several = {
        "Records": [
            record("ObjectCreated:Put", [[{"key": "auto-insurance.xml", "size": 17}]]),
            record("ObjectRemoved:Delete", {"key": "home-insurance.xml"}),
        ]
    }
    crossed = {
        "Records": [
            record("ObjectCreated:Put", {"key": "home-insurance.xml"}),
            record("ObjectRemoved:Delete", {"key": "auto-insurance.xml"}),
        ]
    }
    assert [policy.matches_body(json.dumps(m)) for m in (several, removed, home, created)] == [
        True,
        False,
        False,
        True,
    ]
    assert not policy.matches_body(json.dumps(crossed))


def test_or_in_body_scope_recorded() -> None:
    policy = body_policy(
        {
            "$or": [
                {"metricName": ["CPUUtilization", "ReadLatency"]},
                {"namespace": ["AWS/EC2", "AWS/ES"]},
            ],
            "detail": {
                "scope": ["Service"],
                "$or": [
                    {"source": ["aws.cloudwatch"]},
                    {"type": ["CloudWatch Alarm State Change"]},
                ],
            },
        }
    )
    alarm = "CloudWatch Alarm State Change"
    refused = [
        {"metricName": "CPUUtilization", "detail": {"scope": "aws.cloudwatch", "type": alarm}},
        {"metricName": "CPUUtilization", "detail": {"scope": "Service", "type": "CPUUtilization"}},
        {"metricName": "CPUUtilization", "detail": {"type": alarm}},
        {"metricName": "CPUUtilization", "detail": {"scope": "Service"}},
        {"metricName": "CPUUtilization", "scope": "Service"},
        {"metricName": "AWS/EC2", "detail": {"scope": "Service", "type": alarm}},
        {"namespace": "CPUUtilization", "detail": {"scope": "Service", "type": alarm}},
    ]
    passed = [
        {
            "metricName": "CPUUtilization",
            "detail": {"scope": "Service", "source": "aws.cloudwatch"},
        },
        {"metricName": "ReadLatency", "detail": {"scope": "Service", "source": "aws.cloudwatch"}},
        {"namespace": "AWS/EC2", "detail": {"scope": "Service", "source": "aws.cloudwatch"}},
        {"namespace": "AWS/ES", "detail": {"scope": "Service", "source": "aws.cloudwatch"}},
        {"metricName": "CPUUtilization", "detail": {"scope": "Service", "type": alarm}},
    ]
    assert not any(policy.matches_body(json.dumps(m)) for m in refused)
    assert all(policy.matches_body(json.dumps(m)) for m in passed)


def test_null_matches_a_json_null() -> None:
    assert body_policy({"key": [None]}).matches_body('{"key": null}')
    assert attrs_policy({"key": [None]}).matches_attributes({"key": array(None)})
    assert not attrs_policy({"key": [None]}).matches_attributes({"key": string("null")})


def test_empty_string_and_null_neighbours_in_a_body() -> None:
    policy = body_policy({"detail": {"eventVersion": [""]}})
    assert policy.matches_body(
        json.dumps({"resources": [], "detail": {"eventVersion": "", "responseElements": None}})
    )


def test_matches_dispatches_by_scope() -> None:
    attributes = attrs_policy({"a": ["b"]})
    body = body_policy({"a": ["b"]})
    assert attributes.matches('{"a": "x"}', {"a": string("b")})
    assert body.matches('{"a": "b"}', {"a": string("x")})
    assert not body.matches('{"a": "x"}', {"a": string("b")})


def test_scope_must_be_one_of_the_two() -> None:
    with pytest.raises(ValueError):
        parse_policy('{"a": ["b"]}', "Body")


def test_a_deeply_nested_policy_is_refused_never_a_recursion_error() -> None:
    message = refusal("[" * 5000).message
    assert message.startswith(
        SUB + "failed to parse JSON. Document nesting depth (1001) exceeds the maximum allowed "
        "(1000, from `StreamReadConstraints.getMaxNestingDepth()`)"
    )
    deep = '{"a":' * 999 + "[1]" + "}" * 999  # AWS's parser reads it; 999 levels are too complex
    assert refusal(deep, BODY).message == SUB + "Filter policy is too complex"


def test_a_deeply_nested_body_is_read_or_matches_nothing() -> None:
    policy = body_policy({"a": [{"exists": True}]})
    assert policy.matches_body('{"a": 1, "b": ' + "[" * 990 + "]" * 990 + "}")
    assert not policy.matches_body('{"a": 1, "b": ' + "[" * 5000 + "]" * 5000 + "}")


def test_one_parsed_body_serves_many_policies() -> None:
    document = body_document('{"a": "b"}')
    assert body_policy({"a": ["b"]}).matches_document(document)
    assert not body_policy({"a": ["c"]}).matches_document(document)
    assert not body_policy({"a": ["b"]}).matches_document(body_document("not json"))


def test_a_stored_policy_is_compiled_once() -> None:
    text = '{"store": ["example_corp"]}'
    first = stored_policy(text, ATTRS)
    assert stored_policy(text, ATTRS) is first
    assert stored_policy(text, BODY) is not first
    assert first.matches_attributes({"store": string("example_corp")})


def test_the_developer_guides_example_filter_policy() -> None:
    # "Amazon SNS example filter policies": the transaction message, as attributes and as body.
    policy = {
        "store": ["example_corp"],
        "event": [{"anything-but": "order_cancelled"}],
        "customer_interests": ["rugby", "football", "baseball"],
        "price_usd": [{"numeric": [">=", 100]}],
    }
    attributes = {
        "customer_interests": {"Type": "String.Array", "Value": '["soccer", "rugby", "hockey"]'},
        "store": {"Type": "String", "Value": "example_corp"},
        "event": {"Type": "String", "Value": "order_placed"},
        "price_usd": {"Type": "Number", "Value": "210.75"},
    }
    body = {
        "customer_interests": ["soccer", "rugby", "hockey"],
        "store": "example_corp",
        "event": "order_placed",
        "price_usd": 210.75,
    }
    assert attrs_policy(policy).matches_attributes(attributes)
    assert body_policy(policy).matches_body(json.dumps(body))
    cancelled = {**body, "event": "order_cancelled"}
    cheap = {**body, "price_usd": 99.99}
    for refused in (cancelled, cheap, {**body, "customer_interests": ["soccer"]}):
        assert not body_policy(policy).matches_body(json.dumps(refused))
