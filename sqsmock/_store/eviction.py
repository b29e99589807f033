"""Redis must not evict sqsmock's keys: reading ``maxmemory-policy`` and refusing to evict.

A Redis short of memory with an ``allkeys-*`` policy (the usual setting of a shared cache)
deletes keys it chooses -- a queue's messages, its metadata, the commit records -- while
sqsmock's writes go on succeeding: calls were answered 200 and their messages were gone, and
after a restart whole queues were. So the store reads the policy when it opens (``CONFIG GET``;
where CONFIG is disabled or renamed, ``INFO memory``) and refuses an evicting one, and reads it
again at every renewal of its lease, since ``CONFIG SET`` can change it at run time.

A ``volatile-*`` policy evicts only keys with an expiry, and the only such key of sqsmock is the
lease (``P:owner``): its loss is noticed by the next write (the fenced commit finds it gone) and
it is taken back only if nobody else owned the namespace meanwhile, so those policies are
accepted. The commit script also checks that the namespace's schema key -- written once, read
never after, so the first an LRU policy evicts -- is still there (``commit.py``).
"""

from __future__ import annotations

from typing import Any

from .errors import PersistenceError
from .keys import as_text

__all__ = ["evicted", "evicting", "read_policy", "refusal"]

#: The policy to tell users to set.
SAFE = "noeviction"


def read_policy(client: Any) -> str | None:
    """Redis's ``maxmemory-policy`` (``noeviction``, ``allkeys-lru`` ...), or None when neither
    ``CONFIG GET`` nor ``INFO memory`` tells it (both disabled or renamed). A failed connection
    raises as it would for any command."""
    try:
        reply = client.config_get("maxmemory-policy")
    except Exception as error:
        if not _refused(error):
            raise
    else:
        for name, value in (reply or {}).items():
            if as_text(name) == "maxmemory-policy" and value is not None:
                return as_text(value)
    try:
        info = client.info("memory")
    except Exception as error:
        if not _refused(error):
            raise
        return None
    value = info.get("maxmemory_policy") if isinstance(info, dict) else None
    return None if value is None else as_text(value)


def _refused(error: BaseException) -> bool:
    """Did Redis answer with an error (an unknown or forbidden command) -- or is the client one
    without the command -- rather than fail?"""
    if isinstance(error, (AttributeError, NotImplementedError)):
        return True
    names = {c.__name__ for c in type(error).__mro__}
    return "ResponseError" in names and not names & {"ConnectionError", "TimeoutError"}


def evicting(policy: str | None) -> bool:
    """Does ``policy`` let Redis delete keys sqsmock needs (any key, not only expiring ones)?"""
    return policy is not None and policy.startswith("allkeys-")


def refusal(policy: str, namespace: str, running: bool = False) -> PersistenceError:
    """The one-line error for an evicting policy."""
    when = "now has" if running else "has"
    return PersistenceError(
        reason=f"Redis {when} maxmemory-policy {policy}: short of memory it deletes keys, and "
        f"sqsmock would lose messages it acknowledged (namespace {namespace!r}); set "
        f"`maxmemory-policy {SAFE}` on that Redis"
        + (" and start this mock again" if running else "")
    )


def evicted(namespace: str, missing: str) -> PersistenceError:
    """The error for a key sqsmock wrote that is gone while the lease is held."""
    return PersistenceError(
        reason=f"the key {missing!r} of namespace {namespace!r} is gone although this "
        "activation holds the namespace: Redis evicted or someone deleted sqsmock's keys, so "
        "acknowledged messages may be lost; calls are refused -- check that Redis has "
        f"`maxmemory-policy {SAFE}`, then start this mock again"
    )
