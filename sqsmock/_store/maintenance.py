"""Looking at or wiping a namespace without starting a mock (``sqsmock wipe``/``inspect``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import PersistenceError
from .lease import describe_holder
from .redis_store import DEFAULT_TIMEOUT, RedisStore, connect, default_namespace

__all__ = ["NamespaceInfo", "inspect_namespace", "wipe"]


@dataclass(frozen=True)
class NamespaceInfo:
    """What a namespace holds: its queues (``region/account/name``) with their message
    counts, the names deleted recently, the number of move tasks, and who owns it now."""

    namespace: str
    owner: str | None
    queues: dict[str, int] = field(default_factory=dict)
    deleted: list[str] = field(default_factory=list)
    tasks: int = 0
    schema: str | None = None


def _store(persistence: Any, namespace: str | None, timeout: float) -> RedisStore:
    return RedisStore(
        connect(persistence, timeout),
        default_namespace() if namespace is None else namespace,
        timeout=timeout,
    )


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def inspect_namespace(
    persistence: Any, namespace: str | None = None, *, timeout: float = DEFAULT_TIMEOUT
) -> NamespaceInfo:
    """Read what ``namespace`` holds in the Redis ``persistence`` (a client or a URL)."""
    store = _store(persistence, namespace, timeout)
    client = store.client
    try:
        owner = client.get(store.owner_key)
        schema = client.get(store.schema_key)
        qids = sorted(_text(q) for q in client.hkeys(store.queues_key))
        deleted = sorted(_text(q) for q in client.hkeys(store.deleted_key))
        tasks = int(client.hlen(store.tasks_key))
        queues = {}
        for qid in qids:
            names = client.hkeys(store.queue_key(qid))
            queues[qid] = sum(1 for name in names if _text(name).startswith("m:"))
    except Exception as error:
        raise store._fail("inspecting the namespace", error) from error
    return NamespaceInfo(
        namespace=store.namespace,
        owner=None if owner is None else describe_holder(owner),
        queues=queues,
        deleted=deleted,
        tasks=tasks,
        schema=None if schema is None else _text(schema),
    )


def wipe(
    persistence: Any,
    namespace: str | None = None,
    *,
    force: bool = False,
    timeout: float = DEFAULT_TIMEOUT,
) -> int:
    """Delete every key under ``namespace`` -- whatever it holds, corrupted records and keys
    of an older format included, but not the keys of a namespace nested in it; returns how
    many were deleted. Refused with PersistenceError while an activation owns the namespace,
    unless ``force`` (then that activation refuses its calls: it lost the namespace)."""
    store = _store(persistence, namespace, timeout)
    client = store.client
    try:
        owner = client.get(store.owner_key)
        if owner is not None and not force:
            raise PersistenceError(
                reason=f"namespace {store.namespace!r} is in use ({describe_holder(owner)}); "
                "stop that activation first, or force the wipe"
            )
        keys = sorted(store._own_keys())
        if keys:
            client.delete(*keys)
    except PersistenceError:
        raise
    except Exception as error:
        raise store._fail("wiping the namespace", error) from error
    return len(keys)
