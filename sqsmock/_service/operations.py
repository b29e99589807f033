"""The table of SQS operations in docs/operations.md, generated from the action registry.

    python -m sqsmock._service.operations > docs/operations.md

A test checks the registry against botocore's list of SQS operations and the file against this
output, so the table cannot drift from the code.
"""

from __future__ import annotations

from . import ACTIONS
from ._registry import NOTES

__all__ = ["render"]


def render() -> str:
    lines = [
        "# SQS operations in sqsmock",
        "",
        "Generated from sqsmock's action registry by "
        "`python -m sqsmock._service.operations > docs/operations.md`.",
        "",
        "| Operation | Status | Notes |",
        "|---|---|---|",
    ]
    for name in sorted(ACTIONS):
        lines.append(f"| {name} | built | {NOTES.get(name, '')} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(render(), end="")
