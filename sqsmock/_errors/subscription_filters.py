"""The errors of SNS subscription filter policies, worded as AWS words them (names ``Sns...``
like the SNS API's own in ``sns.py``).

SNS compiles a ``FilterPolicy`` with AWS's event-ruler library (an early-2023 release: its
``anything-but`` takes only ``prefix``), so most reasons are that library's, followed by the
location its JSON parser reports in the policy as SNS re-serializes it. ``{lead}`` is
``"Attributes Reason: "`` when the policy came with Subscribe and empty when it came with
SetSubscriptionAttributes (AWS-recorded). A policy that is not JSON at all gets SNS's own
``failed to parse JSON.`` with the parser's reason and a redacted location.
"""

from __future__ import annotations

from .spec import ErrorSpec

__all__ = ["FILTER_POLICY_ERRORS"]

_PREFIX = "Invalid parameter: {lead}FilterPolicy: "
#: The location event-ruler's parser appends: ``source`` is the quoted policy (cut at 500).
_LOCATED = "\n at [Source: (String){source}; line: 1, column: {column}]"
_REDACTED = "REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled)"
_NOT_JSON = _PREFIX + "failed to parse JSON. "
_NOT_JSON_AT = "\n at [Source: " + _REDACTED + "; line: {line}, column: {column}]"
_EXPECTED_VALUE = "(JSON String, Number, Array, Object or token 'null', 'true' or 'false')"


def _invalid(template: str) -> ErrorSpec:
    return ErrorSpec("InvalidParameterException", "InvalidParameter", 400, template)


def _located(reason: str) -> ErrorSpec:
    return _invalid(_PREFIX + reason + _LOCATED)


def _plain(reason: str) -> ErrorSpec:
    return _invalid(_PREFIX + reason)


def _not_json(reason: str) -> ErrorSpec:
    return _invalid(_NOT_JSON + reason + _NOT_JSON_AT)


FILTER_POLICY_ERRORS: dict[str, ErrorSpec] = {
    # --- the policy as a whole ----------------------------------------------------------------
    "SnsFilterPolicyTooLong": _plain("Filter policy is too long"),  # inferred: past 256 KiB
    "SnsFilterPolicyTooManyKeys": _plain("Filter policy can not have more than 5 keys"),
    "SnsFilterPolicyTooComplex": _plain("Filter policy is too complex"),
    "SnsFilterPolicyNestedInAttributeScope": _invalid(
        "Invalid parameter: {lead}Filter policy scope MessageAttributes does not support "
        "nested filter policy"
    ),
    # --- not JSON (SNS's own parse; Jackson's reasons) ----------------------------------------
    "SnsFilterPolicyJsonNoContent": _not_json("No content to map due to end-of-input"),
    "SnsFilterPolicyJsonFieldName": _not_json(
        "Unexpected character ({char}): was expecting double-quote to start field name"
    ),
    "SnsFilterPolicyJsonValue": _not_json(
        "Unexpected character ({char}): expected a valid value " + _EXPECTED_VALUE
    ),
    "SnsFilterPolicyJsonToken": _not_json(
        "Unrecognized token '{token}': was expecting " + _EXPECTED_VALUE
    ),
    "SnsFilterPolicyJsonComma": _not_json(
        "Unexpected character ({char}): was expecting comma to separate {container} entries"
    ),
    "SnsFilterPolicyJsonColon": _not_json(
        "Unexpected character ({char}): was expecting a colon to separate field name and value"
    ),
    "SnsFilterPolicyJsonEnd": _not_json(
        "Unexpected end-of-input: expected close marker for {container} (start marker at "
        "[Source: " + _REDACTED + "; line: {start_line}, column: {start_column}])"
    ),
    "SnsFilterPolicyJsonEndOfString": _not_json(
        "Unexpected end-of-input: was expecting closing quote for a string value"
    ),
    "SnsFilterPolicyJsonControl": _not_json(
        "Illegal unquoted character ({char}): has to be escaped using "
        "backslash to be included in string value"
    ),
    "SnsFilterPolicyJsonDepth": _not_json(
        "Document nesting depth ({depth}) exceeds the maximum allowed ({most}, from "
        "`StreamReadConstraints.getMaxNestingDepth()`)"
    ),
    "SnsFilterPolicyJsonEscape": _not_json("Unrecognized character escape {char}"),
    # --- the policy's structure (event-ruler) -------------------------------------------------
    "SnsFilterPolicyNotObject": _located("Filter is not an object"),
    "SnsFilterPolicyNotObjectOrArray": _located('"{name}" must be an object or an array'),
    "SnsFilterPolicyEmptyObject": _located("Empty objects are not allowed"),
    "SnsFilterPolicyReservedInOr": _located(
        "{name} is Ruler reserved fieldName which cannot be used inside $or."
    ),
    "SnsFilterPolicyOrNotArray": _located("It must be an Array followed with $or."),
    "SnsFilterPolicyOrNotObject": _located(
        "Only JSON object is allowed in array of $or relationship."
    ),
    "SnsFilterPolicyOrTooFew": _located("There must have at least 2 Objects in $or relationship."),
    "SnsFilterPolicyMatchValue": _located(
        "Match value must be String, number, true, false, or null"
    ),
    "SnsFilterPolicyEmptyArray": _located("Empty arrays are not allowed"),
    # --- match expressions --------------------------------------------------------------------
    "SnsFilterPolicyNoMatchName": _located("Match expression name not found"),
    "SnsFilterPolicyUnknownMatch": _located("Unrecognized match type {name}"),
    "SnsFilterPolicyOneKey": _located("Only one key allowed in match expression"),
    "SnsFilterPolicyNotString": _located("{operator} match pattern must be a string"),
    "SnsFilterPolicyExistsValue": _located("exists match pattern must be either true or false."),
    "SnsFilterPolicyAnythingButNoName": _located("Anything-But expression name not found"),
    "SnsFilterPolicyAnythingButPattern": _located("Unsupported anything-but pattern: {name}"),
    "SnsFilterPolicyNullPrefix": _located("Null prefix not allowed"),
    "SnsFilterPolicyAnythingButValue": _located(
        "Value of anything-but must be an array or single string/number value."
    ),
    "SnsFilterPolicyAnythingButListMember": _located(
        "Inside anything but list, start|null|boolean is not supported."
    ),
    "SnsFilterPolicyAnythingButMixed": _located(
        "Inside anything but list, either all values are number or string, mixed type is not "
        "supported"
    ),
    # --- numeric ------------------------------------------------------------------------------
    "SnsFilterPolicyNumericNotArray": _located("Value of numeric must be an array."),
    "SnsFilterPolicyNumericMember": _located("Invalid member in numeric match: {text}"),
    "SnsFilterPolicyNumericOperator": _located("Unrecognized numeric range operator: {operator}"),
    "SnsFilterPolicyNumericValue": _located("Value of {operator} must be numeric"),
    "SnsFilterPolicyNumericElements": _located("Too many elements in numeric expression"),
    "SnsFilterPolicyRangeValue": _located("Bad value in numeric range: {text}"),
    "SnsFilterPolicyRangeOperator": _located("Bad numeric range operator: {operator}"),
    "SnsFilterPolicyRangeTerms": _located("Too many terms in numeric range expression"),
    "SnsFilterPolicyRangeOrder": _located("Bottom must be less than top"),
    "SnsFilterPolicyNumberRange": _located("Value must be between -5.0E9 and 5.0E9, inclusive"),
    # --- cidr (event-ruler raises these without a location) -----------------------------------
    "SnsFilterPolicyCidrSlash": _plain("Malformed CIDR, one '/' required"),
    "SnsFilterPolicyCidrMaskInteger": _plain("Malformed CIDR, mask bits must be an integer"),
    "SnsFilterPolicyCidrMaskNegative": _plain("Malformed CIDR, mask bits must not be negative"),
    "SnsFilterPolicyCidrMaskV4": _plain("IPv4 mask bits must be < 32"),
    "SnsFilterPolicyCidrMaskV6": _plain("IPv6 mask bits must be < 128"),
    "SnsFilterPolicyInvalidIp": _plain("Invalid IP address: {ip}"),
    "SnsFilterPolicyNonstandardIp": _plain("Nonstandard IP address: {ip}"),
}
