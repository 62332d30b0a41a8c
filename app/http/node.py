"""Running the app under uvicorn as one node: a stop (Ctrl-C, SIGTERM from a supervisor or a
rolling restart) ends the live feeds first.

uvicorn stops by waiting for open responses to finish, then cancels those that have not, and only
then runs the app's shutdown hooks. A feed never finishes by itself, so each follower used to cost
the grace period and a cancelled task's traceback in the log, and its client saw the stream cut
off mid-way. Closing the hub as the stop begins ends every feed at a whole item: the stream ends
as a finished response, and a client resumes where it was (a browser's EventSource does so itself,
through the proxy to another node).
"""

from __future__ import annotations

import socket
from pathlib import Path

import uvicorn
from litestar import Litestar

GRACE_S = 2  # what a request other than a feed has, once a stop begins, to finish


class Node(uvicorn.Server):
    def __init__(self, app: Litestar, host: str, port: int, **tls: Path | None) -> None:
        # `tls`: uvicorn's own ssl_certfile and ssl_keyfile, to serve HTTPS without a proxy.
        config = uvicorn.Config(
            app, host=host, port=port, timeout_graceful_shutdown=GRACE_S, log_level="warning", **tls
        )
        super().__init__(config)
        self.hub = app.state.hub

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self.hub.close()
        await super().shutdown(sockets)


def serve(
    app: Litestar, host: str, port: int, *, ssl_certfile: Path | None = None, ssl_keyfile: Path | None = None
) -> None:
    """Serve until stopped (SIGINT or SIGTERM), over TLS if given a certificate and its key."""
    Node(app, host, port, ssl_certfile=ssl_certfile, ssl_keyfile=ssl_keyfile).run()
