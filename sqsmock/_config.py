"""Where queue declarations come from: a TOML file or a dict (``_declare``), or ElasticMQ's
``.conf`` (HOCON) file (``_elasticmq``), told apart by the file's name.

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


def load(config: str | os.PathLike[str] | Mapping[str, Any] | Declarations) -> Declarations:
    """The declarations of a TOML file, an ElasticMQ ``.conf`` file or a dict."""
    if not isinstance(config, (str, os.PathLike)):
        return load_declarations(config)  # a dict (or TypeError for what is neither)
    path = os.fspath(config)
    try:
        if path.endswith(ELASTICMQ_SUFFIXES):
            return load_elasticmq(path)
        return load_declarations(path)
    except ConfigError:
        raise
    except Exception as error:  # the last resort: a value no reader's check foresaw
        first = (str(error).splitlines() or [""])[0]
        kind = type(error).__name__
        raise ConfigError(f"{path}: cannot be read ({kind}: {first})") from error
