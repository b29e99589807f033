"""The errors of SNS subscription filter policies, worded as AWS words them.

SNS compiles a ``FilterPolicy`` with AWS's event-ruler library (an early-2023 release: its
``anything-but`` takes only ``prefix``), so most reasons are that library's, followed by the
location its JSON parser reports in the policy as SNS re-serializes it. ``{attributes}`` is
``"Attributes Reason: "`` when the policy came with Subscribe and empty when it came with
SetSubscriptionAttributes (AWS-recorded). A policy that is not JSON at all gets SNS's own
``failed to parse JSON.`` with the parser's reason and a redacted location.
"""

from __future__ import annotations

from .spec import ErrorSpec

__all__ = ["SNS_ERRORS"]

_PREFIX = "Invalid parameter: {attributes}FilterPolicy: "
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


SNS_ERRORS: dict[str, ErrorSpec] = {
    # --- the policy as a whole ----------------------------------------------------------------
    "FilterPolicyTooLong": _plain("Filter policy is too long"),  # inferred: past 256 KiB
    "FilterPolicyTooManyKeys": _plain("Filter policy can not have more than 5 keys"),
    "FilterPolicyTooComplex": _plain("Filter policy is too complex"),
    "FilterPolicyNestedInAttributeScope": _invalid(
        "Invalid parameter: {attributes}Filter policy scope MessageAttributes does not support "
        "nested filter policy"
    ),
    # --- not JSON (SNS's own parse; Jackson's reasons) ----------------------------------------
    "FilterPolicyJsonNoContent": _not_json("No content to map due to end-of-input"),
    "FilterPolicyJsonFieldName": _not_json(
        "Unexpected character ({char}): was expecting double-quote to start field name"
    ),
    "FilterPolicyJsonValue": _not_json(
        "Unexpected character ({char}): expected a valid value " + _EXPECTED_VALUE
    ),
    "FilterPolicyJsonToken": _not_json(
        "Unrecognized token '{token}': was expecting " + _EXPECTED_VALUE
    ),
    "FilterPolicyJsonComma": _not_json(
        "Unexpected character ({char}): was expecting comma to separate {container} entries"
    ),
    "FilterPolicyJsonColon": _not_json(
        "Unexpected character ({char}): was expecting a colon to separate field name and value"
    ),
    "FilterPolicyJsonEnd": _not_json(
        "Unexpected end-of-input: expected close marker for {container} (start marker at "
        "[Source: " + _REDACTED + "; line: {start_line}, column: {start_column}])"
    ),
    "FilterPolicyJsonEndOfString": _not_json(
        "Unexpected end-of-input: was expecting closing quote for a string value"
    ),
    "FilterPolicyJsonControl": _not_json(
        "Illegal unquoted character ({char}): has to be escaped using "
        "backslash to be included in string value"
    ),
    "FilterPolicyJsonDepth": _not_json(
        "Document nesting depth ({depth}) exceeds the maximum allowed ({most}, from "
        "`StreamReadConstraints.getMaxNestingDepth()`)"
    ),
    "FilterPolicyJsonEscape": _not_json("Unrecognized character escape {char}"),
    # --- the policy's structure (event-ruler) -------------------------------------------------
    "FilterPolicyNotObject": _located("Filter is not an object"),
    "FilterPolicyNotObjectOrArray": _located('"{name}" must be an object or an array'),
    "FilterPolicyEmptyObject": _located("Empty objects are not allowed"),
    "FilterPolicyReservedInOr": _located(
        "{name} is Ruler reserved fieldName which cannot be used inside $or."
    ),
    "FilterPolicyOrNotArray": _located("It must be an Array followed with $or."),
    "FilterPolicyOrNotObject": _located(
        "Only JSON object is allowed in array of $or relationship."
    ),
    "FilterPolicyOrTooFew": _located("There must have at least 2 Objects in $or relationship."),
    "FilterPolicyMatchValue": _located("Match value must be String, number, true, false, or null"),
    "FilterPolicyEmptyArray": _located("Empty arrays are not allowed"),
    # --- match expressions --------------------------------------------------------------------
    "FilterPolicyNoMatchName": _located("Match expression name not found"),
    "FilterPolicyUnknownMatch": _located("Unrecognized match type {name}"),
    "FilterPolicyOneKey": _located("Only one key allowed in match expression"),
    "FilterPolicyNotString": _located("{operator} match pattern must be a string"),
    "FilterPolicyExistsValue": _located("exists match pattern must be either true or false."),
    "FilterPolicyAnythingButNoName": _located("Anything-But expression name not found"),
    "FilterPolicyAnythingButPattern": _located("Unsupported anything-but pattern: {name}"),
    "FilterPolicyNullPrefix": _located("Null prefix not allowed"),
    "FilterPolicyAnythingButValue": _located(
        "Value of anything-but must be an array or single string/number value."
    ),
    "FilterPolicyAnythingButListMember": _located(
        "Inside anything but list, start|null|boolean is not supported."
    ),
    "FilterPolicyAnythingButMixed": _located(
        "Inside anything but list, either all values are number or string, mixed type is not "
        "supported"
    ),
    # --- numeric ------------------------------------------------------------------------------
    "FilterPolicyNumericNotArray": _located("Value of numeric must be an array."),
    "FilterPolicyNumericMember": _located("Invalid member in numeric match: {text}"),
    "FilterPolicyNumericOperator": _located("Unrecognized numeric range operator: {operator}"),
    "FilterPolicyNumericValue": _located("Value of {operator} must be numeric"),
    "FilterPolicyNumericElements": _located("Too many elements in numeric expression"),
    "FilterPolicyRangeValue": _located("Bad value in numeric range: {text}"),
    "FilterPolicyRangeOperator": _located("Bad numeric range operator: {operator}"),
    "FilterPolicyRangeTerms": _located("Too many terms in numeric range expression"),
    "FilterPolicyRangeOrder": _located("Bottom must be less than top"),
    "FilterPolicyNumberRange": _located("Value must be between -5.0E9 and 5.0E9, inclusive"),
    # --- cidr (event-ruler raises these without a location) -----------------------------------
    "FilterPolicyCidrSlash": _plain("Malformed CIDR, one '/' required"),
    "FilterPolicyCidrMaskInteger": _plain("Malformed CIDR, mask bits must be an integer"),
    "FilterPolicyCidrMaskNegative": _plain("Malformed CIDR, mask bits must not be negative"),
    "FilterPolicyCidrMaskV4": _plain("IPv4 mask bits must be < 32"),
    "FilterPolicyCidrMaskV6": _plain("IPv6 mask bits must be < 128"),
    "FilterPolicyInvalidIp": _plain("Invalid IP address: {ip}"),
    "FilterPolicyNonstandardIp": _plain("Nonstandard IP address: {ip}"),
}
