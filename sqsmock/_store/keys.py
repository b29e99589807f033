"""The Redis store's keys: their schema, and queue ids as they appear in keys.

Keys, under a namespace prefix ``P`` (default ``sqsmock:``); ``<qid>`` is ``region/account/name``
and ``<qid*>`` the same percent-encoded (``encode_qid``: no input can put the ``:`` separator in
a key, nor make two ids one key):

    P:schema       string  "3" ("2" is migrated when a mock starts, see ``loading.py``)
    P:owner        string  the ownership lease: token, host, pid (expires unless renewed)
    P:commits      hash    commit channel -> id of its last commit (fencing, see ``commit.py``);
                           owner -> token of the last activation to take the lease
    P:queues       hash    qid -> queue metadata (JSON)
    P:deleted      hash    qid -> when the queue was deleted (the 60-second rule)
    P:tasks        hash    task id -> message move task (JSON)
    P:q:<qid*>     hash    m:<MessageId> -> the message: content and delivery state (JSON)
                           d:<deduplication key> -> [MessageId, SequenceNumber, expiry]
                           seq -> the FIFO SequenceNumber counter
                           s:<name> -> engine state that decides later answers (FIFO rotation
                           tickets, receive attempts)

Plain functions and constants, importing nothing of redis: the writing, reading and wiping
parts of the store share them, and the tests of key encoding need no server.
"""

from __future__ import annotations

import functools
import re
from typing import Any

__all__ = [
    "DEDUP",
    "FIXED",
    "MESSAGE",
    "OLD_SCHEMAS",
    "SCHEMA",
    "SEQUENCE",
    "STATE",
    "as_text",
    "as_texts",
    "decode_qid",
    "encode_qid",
    "valid_qid",
]

SCHEMA = "3"
#: Schemas this version reads: "2" is migrated to "3" when a mock starts (``loading.py``).
OLD_SCHEMAS = ("2",)
#: The fields of a queue's hash: a message, a deduplication entry, the FIFO counter ...
MESSAGE = "m:"
DEDUP = "d:"
SEQUENCE = "seq"
#: Engine state that decides later answers (FIFO group rotation, receive attempts ...).
STATE = "s:"
#: Characters a queue id keeps as they are in a key: printable ASCII but ``%`` and ``:``.
_PLAIN = frozenset(chr(c) for c in range(0x21, 0x7F)) - {"%", ":"}
_ESCAPE = re.compile(r"%([0-9A-F]{2})")
#: Suffixes of the fixed keys of a namespace (a nested namespace ends its keys the same way).
FIXED = ("schema", "owner", "commits", "queues", "deleted", "tasks")


@functools.lru_cache(maxsize=4096)
def encode_qid(qid: str) -> str:
    """A queue id as it appears in a key: ``%``, ``:``, space, control and non-ASCII characters
    percent-encoded (UTF-8), so no region, account or name can forge a separator. Ids of
    printable ASCII without ``%`` or ``:`` -- every id AWS allows -- are unchanged."""
    if all(c in _PLAIN for c in qid):
        return qid
    out = []
    for c in qid:
        if c in _PLAIN:
            out.append(c)
        else:
            out.extend(f"%{b:02X}" for b in c.encode("utf-8", "surrogatepass"))
    return "".join(out)


def decode_qid(text: str) -> str | None:
    """The queue id ``encode_qid`` made ``text`` from, or None if it did not make it."""
    if not all(c in _PLAIN or c == "%" for c in text):
        return None
    parts = _ESCAPE.split(text)
    data = bytearray()
    for i, part in enumerate(parts):
        if i % 2:
            data.append(int(part, 16))
        elif "%" in part:
            return None
        else:
            data += part.encode("ascii")
    try:
        qid = data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return None
    return qid if encode_qid(qid) == text and valid_qid(qid) else None


def valid_qid(qid: str) -> bool:
    """``region/account/name``: three non-empty parts (the name and account hold no ``/``)."""
    parts = qid.rsplit("/", 2)
    return len(parts) == 3 and all(parts)


def as_text(value: Any) -> str:
    """A reply's value as text (redis-py answers bytes unless told to decode)."""
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def as_texts(mapping: dict[Any, Any]) -> dict[str, str]:
    """A hash's reply as text keys and values."""
    return {as_text(k): as_text(v) for k, v in mapping.items()}
