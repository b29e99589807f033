"""The errors of the wire and of sqsmock itself: the query protocol's own, what an HTTP front end
answers before the service (server mode), fault injection's, and requests that are not SQS."""

from __future__ import annotations

from .spec import (
    ErrorSpec,
    bad_value,
)

__all__ = ["WIRE_ERRORS"]

WIRE_ERRORS: dict[str, ErrorSpec] = {
    # --- query protocol -----------------------------------------------------------------------
    # A form-encoded request without ``Action`` (the code and text of AWS's common errors).
    "MissingAction": ErrorSpec(
        "MissingRequiredParameterException",
        "MissingAction",
        400,
        "The request is missing an action or a required parameter.",
    ),
    # A form past sqsmock's bounds (parameters, name length, dotted depth): AWS's common error.
    "QueryParametersOutOfBounds": ErrorSpec(
        "InvalidQueryParameter",
        "InvalidQueryParameter",
        400,
        "The AWS query string is malformed or does not adhere to AWS standards.",
    ),
    # A GET of a queue URL that names no action (AWS-recorded: 404, a bare XML document).
    "UnknownOperation": ErrorSpec(
        "UnknownOperationException",
        "UnknownOperationException",
        404,
        "The request names no operation.",
    ),
    # A form value that does not convert to the member's type.
    "QueryValueNotInteger": bad_value("{name}", "{name} must be an integer."),
    "QueryValueNotBoolean": bad_value("{name}", "{name} must be a boolean."),
    # --- HTTP requests (server mode) ----------------------------------------------------------
    "RequestEntityTooLarge": ErrorSpec(
        "RequestEntityTooLarge",
        "RequestEntityTooLarge",
        413,
        "Request body must be no longer than {limit} bytes.",
    ),
    "MalformedQueryString": ErrorSpec(
        "MalformedQueryString",
        "MalformedQueryString",
        400,
        "The request body is not a valid UTF-8 form: {reason}.",
    ),
    "MalformedHttpRequest": ErrorSpec(
        "MalformedHttpRequest",
        "MalformedHttpRequest",
        400,
        "The request is not valid HTTP/1.1: {reason}.",
    ),
    "RequestTimeout": ErrorSpec(
        "RequestTimeout",
        "RequestTimeout",
        408,
        "The request body was not received within {seconds} seconds.",
    ),
    # A region not of AWS's form: in the SigV4 credential scope (AWS checks the scope before
    # anything else), or in a queue URL's path (AWS: a queue URL of another endpoint).
    "CredentialScopeRegion": ErrorSpec(
        "SignatureDoesNotMatch",
        "SignatureDoesNotMatch",
        403,
        "Credential should be scoped to a valid region, not '{region}'. ",
    ),
    "InvalidAddress": ErrorSpec(
        "InvalidAddress",
        "InvalidAddress",
        404,
        "The address {address} is not valid for this endpoint.",
    ),
    # A GET without an AWS signature in its Authorization header (nor an X-Amz-* header) of an
    # action that changes state: any web page can make a browser send such a GET (an <img>), so
    # the server does not run it. SQS's answer to an unsigned request (AWS's common error).
    "UnsignedGet": ErrorSpec(
        "MissingAuthenticationToken",
        "MissingAuthenticationToken",
        403,
        "{action} changes state: this server runs it from a GET only if the request is signed "
        "in its Authorization header, since any web page can make a browser send an unsigned "
        "GET. POST it instead, as the AWS SDKs and CLI do (curl -d Action={action} -d ... URL).",
    ),
    # An sqsmock fault, never bad input: the answer says so instead of dropping the connection.
    "InternalFailure": ErrorSpec(
        "InternalFailure",
        "InternalFailure",
        500,
        "The request processing has failed because of an unknown error, exception or failure.",
    ),
    # The server is stopping: calls that arrive now are not run.
    "ServiceUnavailable": ErrorSpec(
        "ServiceUnavailable",
        "ServiceUnavailable",
        503,
        "The request has failed due to a temporary failure of the server.",
    ),
    # --- fault injection ----------------------------------------------------------------------
    # Answered only when a test asks for them (``faults.add``), with ServiceUnavailable and
    # InternalFailure above: SDKs retry these by themselves.
    "InternalError": ErrorSpec(
        "InternalError", "InternalError", 500, "We encountered an internal error. Please try again."
    ),
    "RequestThrottled": ErrorSpec(
        "RequestThrottled", "RequestThrottled", 403, "Request is throttled."
    ),
    "ThrottlingException": ErrorSpec(
        "ThrottlingException", "ThrottlingException", 400, "Rate exceeded"
    ),
    # --- Not SQS: LocalStack's developer endpoint, other services ------------------------------
    # /_aws/sqs/messages answers ReceiveMessage only, as LocalStack's does.
    "DeveloperEndpointReceiveOnly": ErrorSpec(
        "InvalidRequest", "InvalidRequest", 400, "This endpoint only accepts ReceiveMessage calls"
    ),
    # A request signed for another service (S3, DynamoDB, ...) reached the server.
    "NotSqs": ErrorSpec(
        "UnsupportedOperation",
        "UnsupportedOperation",
        501,
        "sqsmock serves SQS and SNS only: this request is for the {service} service. Point "
        "{service} clients at another endpoint.",
    ),
}
