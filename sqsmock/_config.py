"""Where queue declarations come from: a TOML file or a dict (``_declare``), or ElasticMQ's
``.conf`` (HOCON) file (``_elasticmq``), told apart by the file's name."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ._declare import Declarations
from ._declare import load as load_declarations
from ._elasticmq import load_elasticmq

__all__ = ["load"]

#: File names read as ElasticMQ's configuration.
ELASTICMQ_SUFFIXES = (".conf", ".hocon")


def load(config: str | os.PathLike[str] | Mapping[str, Any] | Declarations) -> Declarations:
    """The declarations of a TOML file, an ElasticMQ ``.conf`` file or a dict."""
    if isinstance(config, (str, os.PathLike)) and os.fspath(config).endswith(ELASTICMQ_SUFFIXES):
        return load_elasticmq(os.fspath(config))
    return load_declarations(config)
