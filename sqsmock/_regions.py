"""What an AWS region name looks like: the one check every layer applies to a region.

A region reaches sqsmock from many sides -- ``mock_sqs(region=...)``, ``serve(region=...)``,
``sqsmock serve --region``, a request's SigV4 credential scope, a queue URL's path, the admin
API's ``region=`` -- and ends up in queue URLs, ARNs, metrics labels and store keys. Only names
of AWS's form pass (``us-east-1``, ``us-gov-west-1``, ``us-isob-east-1``, ``cn-north-1``,
``eusc-de-east-1``): short, lower-case ASCII, no separator of any URL, ARN or key. This module
imports nothing, so that any layer (the engine and the store included) may use it.
"""

from __future__ import annotations

import re

__all__ = ["REGION", "is_region", "shown"]

#: A partition prefix, an optional qualifier (``gov``, ``iso``, ``isob``, ``de``...), a
#: direction (``east``, ``southeast``, ``central``...) and a number of one or two digits.
REGION = re.compile(
    r"(?:us|eu|ap|sa|ca|me|af|il|mx|cn|eusc)(?:-[a-z]{2,4})?-[a-z]{2,12}-[0-9]{1,2}", re.ASCII
)


#: Names already found good: every request names its region, nearly always the same few.
_GOOD: set[str] = set()


def is_region(value: object) -> bool:
    """Whether ``value`` is a region name of AWS's form (not whether AWS has that region)."""
    if not isinstance(value, str):
        return False
    if value in _GOOD:
        return True
    if REGION.fullmatch(value) is None:
        return False
    if len(_GOOD) < 64:
        _GOOD.add(value)
    return True


def shown(value: object, limit: int = 64) -> str:
    """A refused region as an error message quotes it: printable, at most ``limit`` characters."""
    text = value if isinstance(value, str) else repr(value)
    text = "".join(c if c.isprintable() else "?" for c in text[: limit + 1])
    return text if len(text) <= limit else text[:limit] + "..."
