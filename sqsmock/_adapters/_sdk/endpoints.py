"""A call's endpoint, resolved once per client and operation instead of on every call.

botocore resolves the endpoint of every call from the service's endpoint ruleset: it gathers
the ruleset's parameters (region, FIPS, dual-stack, a configured ``endpoint_url``), emits
``before-endpoint-resolution``, and evaluates the rules -- a sizeable share of a call's cost.
For SQS every one of those parameters is the client's own, fixed when the client is made, so the
answer cannot change from one call to the next. On every path of a call sqsmock answers
(``paths.route``) it therefore keeps each client's answer per operation and hands it back, with
the same changes to the call's context that botocore makes (an endpoint's auth scheme sets
``auth_type`` and ``signing``): on the serialized and full paths the request that others see --
its URL, headers and signature -- is the one botocore would have built.

It is only kept when nothing could make two calls' answers differ: the ruleset reads no
parameter but the client's built-ins, the operation has no context parameters, and no handler
but botocore's, boto3's and sqsmock's own listens to ``before-endpoint-resolution``. A first
resolution that fails is not kept: the next call fails the same way.
"""

from __future__ import annotations

from typing import Any

from .paths import endpoint_kept

__all__ = ["lookup_endpoint", "remember_endpoint"]

#: The built-ins an SQS endpoint depends on: each is fixed when the client is made.
_CLIENT_BUILTINS = frozenset({"AWS::Region", "AWS::UseFIPS", "AWS::UseDualStack", "SDK::Endpoint"})
_MEMO = "_sqsmock_endpoints"
_NO_AUTH = object()

Memo = dict[str, tuple[Any, ...]]


def lookup_endpoint(
    client: Any, operation_model: Any, context: Any, ignore_signing_region: bool
) -> tuple[Memo | None, tuple[Any, dict[str, Any], Any] | None]:
    """For an SDK adapter's ``_resolve_endpoint_ruleset``: the client's kept endpoints, when
    this call may use one (a mock active, a call sqsmock answers, nobody else listening to
    ``before-endpoint-resolution``; else None: botocore resolves it as always), and this call's
    ``(url, headers, properties)`` if kept, its changes applied to ``context`` (else None:
    ``remember_endpoint`` keeps what botocore resolves)."""
    if ignore_signing_region or not endpoint_kept(client, operation_model, context):
        return None, None
    memo: Memo | None = client.__dict__.get(_MEMO)
    if memo is None:
        memo = client.__dict__[_MEMO] = {}
    found = memo.get(operation_model.name)
    if found is None:
        return memo, None
    url, headers, properties, auth_type, signing = found
    if auth_type is not _NO_AUTH:
        context["auth_type"] = auth_type
        if "signing" in context:
            context["signing"].update(signing)
        else:
            context["signing"] = dict(signing)
    return memo, (url, headers.copy(), properties)


def remember_endpoint(
    memo: Memo, client: Any, operation_model: Any, resolved: tuple[Any, dict[str, Any], Any]
) -> None:
    """Keep what botocore resolved for this call, when later calls would get the same."""
    resolver = getattr(client, "_ruleset_resolver", None)
    if resolver is None:
        return
    definitions = getattr(resolver, "_param_definitions", None)
    if not isinstance(definitions, dict) or any(
        getattr(d, "builtin", None) not in _CLIENT_BUILTINS for d in definitions.values()
    ):
        return
    if (
        operation_model.static_context_parameters
        or operation_model.context_parameters
        or getattr(operation_model, "operation_context_parameters", None)
    ):
        return
    url, headers, properties = resolved
    auth_type: Any = _NO_AUTH
    signing: dict[str, Any] = {}
    schemes = properties.get("authSchemes") if isinstance(properties, dict) else None
    if schemes is not None:
        auth_type, signing = resolver.auth_schemes_to_signing_ctx(schemes)
        signing = dict(signing)
    memo[operation_model.name] = (url, dict(headers), properties, auth_type, signing)
