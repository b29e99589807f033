"""The web UI at ``/_sqsmock/ui/``: a page to watch and poke a running ``sqsmock serve``.

The page is a few static files shipped in the package beside this module (``index.html``,
``app.css``, an icon, and ``app.js`` with the JavaScript modules it imports: ``dom.js``,
``api.js``, ``actions.js``, ``calls.js``): plain HTML, JavaScript and CSS with no dependency, no
build step and no request to any other origin. Everything it shows comes from the admin API
(counts, peeks, the clock, the call journal, fault rules -- none of which is an SQS call, so
watching the page neither changes a queue nor fills the journal), and what it does to queues and
messages goes through SQS itself (create, delete and edit a queue, send, receive, delete or hide
a message, purge, a dead-letter redrive), as any client would, POSTed in the JSON protocol;
what it does to the server (the clock, fault rules) is a JSON POST or DELETE to the admin API.
It reads a queue's messages a page at a time (the peek's default page, then the next by its
token), so a page left open on a deep queue costs the server one page a second, not the whole
queue.

It is kept apart from the admin API (``admin``), which only adds ``ROUTES`` to its own routes;
nothing of it is on the SQS request path. Every page is served with a
``Content-Security-Policy`` of ``default-src 'self'``: the page runs no inline script or style,
and a message body that happens to hold markup is only ever shown as text.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Any

from aiohttp import web

__all__ = ["HEADERS", "ROUTES", "page"]

#: route (below ``/_sqsmock/``, without slashes at either end) -> (file, media type)
_FILES = {
    "ui": ("index.html", "text/html"),
    "ui/index.html": ("index.html", "text/html"),
    "ui/app.js": ("app.js", "text/javascript"),
    "ui/actions.js": ("actions.js", "text/javascript"),
    "ui/api.js": ("api.js", "text/javascript"),
    "ui/calls.js": ("calls.js", "text/javascript"),
    "ui/dom.js": ("dom.js", "text/javascript"),
    "ui/app.css": ("app.css", "text/css"),
    "ui/icon.svg": ("icon.svg", "image/svg+xml"),
}

#: Sent with every file of the UI.
HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}

_cache: dict[str, bytes] = {}


def _read(name: str) -> bytes:
    data = _cache.get(name)
    if data is None:
        data = _cache[name] = resources.files(__name__).joinpath(name).read_bytes()
    return data


async def page(server: Any, request: Any, route: str) -> web.StreamResponse:
    """One file of the UI, for ``GET /_sqsmock/<route>`` (the same for every server)."""
    name, media_type = _FILES[route]
    return web.Response(body=_read(name), content_type=media_type, charset="utf-8", headers=HEADERS)


Handler = Callable[[Any, Any, str], Awaitable[web.StreamResponse]]

#: The admin routes the admin API adds: route -> (handler, method).
ROUTES: dict[str, tuple[Handler, str]] = {route: (page, "GET") for route in _FILES}
