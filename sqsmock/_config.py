"""Where queue declarations come from: a TOML file or a dict (``_declare``), or ElasticMQ's
``.conf`` (HOCON) file (``_elasticmq``), told apart by the file's name. A file named as another
format (``.yaml``, ``.json``...) is refused with the formats that are read, and so is a file of
any other name that is not TOML, rather than reported as a TOML syntax error alone.

Every mistake in a file is a ``ConfigError`` naming the file (and the queue and setting, where
there is one): the readers check each value's type where they read it. Should a reader still
fail otherwise, that too is reported as the file's error, in one line, rather than as a
traceback from inside sqsmock."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ._declare import ConfigError, Declarations
from ._declare import load as load_declarations
from ._elasticmq import load_elasticmq

__all__ = ["load"]

#: File names read as ElasticMQ's configuration.
ELASTICMQ_SUFFIXES = (".conf", ".hocon")
#: Formats sqsmock does not read, by the suffix that names them.
_OTHER_FORMATS = {
    ".yaml": "YAML",
    ".yml": "YAML",
    ".json": "JSON",
    ".properties": "Java properties",
    ".xml": "XML",
}
FORMATS = (
    "sqsmock reads TOML (a .toml file: [queues.<name>] tables) and ElasticMQ's configuration "
    "(a .conf or .hocon file: HOCON)"
)


def load(config: str | os.PathLike[str] | Mapping[str, Any] | Declarations) -> Declarations:
    """The declarations of a TOML file, an ElasticMQ ``.conf`` file or a dict."""
    if not isinstance(config, (str, os.PathLike)):
        return load_declarations(config)  # a dict (or TypeError for what is neither)
    path = os.fspath(config)
    suffix = ""
    try:
        if path.endswith(ELASTICMQ_SUFFIXES):
            return load_elasticmq(path)
        suffix = os.path.splitext(path)[1].lower()
        if suffix in _OTHER_FORMATS:
            raise ConfigError(f"{path}: {_OTHER_FORMATS[suffix]} is not read: {FORMATS}")
        return load_declarations(path)
    except ConfigError as error:
        if suffix != ".toml" and "not valid TOML" in str(error):
            raise ConfigError(f"{error}; {FORMATS}") from None
        raise
    except Exception as error:  # the last resort: a value no reader's check foresaw
        first = (str(error).splitlines() or [""])[0]
        kind = type(error).__name__
        raise ConfigError(f"{path}: cannot be read ({kind}: {first})") from error
