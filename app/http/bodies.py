"""Request bodies read with the project's own decoder, before a handler's `data` is.

Litestar reads a JSON body into plain values first, then into the handler's type: a body nested a
thousand levels deep ended as a RecursionError and a 500, and its refusals said "Input data was
truncated" or "Expected `int` <= 6" without saying where or why. Read here first, with the same
decoder and words as the CLI (`events.codec.decode_input`), a bad body is a 400 that names the line
and column, or the field and its limit; a body that passes is one Litestar reads without trouble.
"""

from __future__ import annotations

from functools import cache

import msgspec
from litestar import Request
from litestar.handlers import BaseRouteHandler

from morale.events.codec import decode_input


async def read_body(request: Request) -> None:
    """`before_request`: refuse a body the handler's `data` type would not read (it runs after the
    guards, so who is asking is settled before the body is read)."""
    decoder = _decoder(request.route_handler)
    if decoder is not None:
        decode_input(decoder, await request.body())


@cache
def _decoder(handler: BaseRouteHandler) -> msgspec.json.Decoder | None:
    """A decoder for the type of the handler's `data` parameter, as Litestar resolved it (None: the
    handler takes no body). `JSONBody[T]` resolves to T."""
    data = handler.parsed_fn_signature.parameters.get("data")
    return None if data is None else msgspec.json.Decoder(data.annotation)
