"""Stopping a node that has followers (Ctrl-C at a club table, SIGTERM in a rolling restart): each
feed ends as a finished stream at a whole item, so its client resumes where it was, and the node
exits at once and cleanly, with no cancelled task's traceback in its log."""

from __future__ import annotations

import json
import signal
from contextlib import ExitStack

import httpx
import pytest
from support.nodes import WAIT_S, Node
from support.served import BATTLE, bearer, creation_body, sse_messages

CREATED = 9  # the events creating the example battle


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_node_stopped_with_followers_ends_their_feeds_whole_and_exits_cleanly(tmp_path, stop):
    log = tmp_path / "node.log"
    node = Node(str(tmp_path / "battles.db"), log)
    with node, ExitStack() as streams:
        created = httpx.post(f"{node.url}/battles", json=creation_body(), timeout=WAIT_S)
        assert created.status_code == 201, created.text
        token = bearer(created.json()["tokens"]["spectator"])
        sse = streams.enter_context(
            httpx.stream("GET", f"{node.url}/battles/{BATTLE}/feed", headers=token, timeout=WAIT_S)
        )
        ndjson = streams.enter_context(
            httpx.stream("GET", f"{node.url}/battles/{BATTLE}/feed.ndjson", headers=token, timeout=WAIT_S)
        )
        sse_ids, ndjson_seqs = sse_messages(sse.iter_lines()), ndjson.iter_lines()
        got_sse = [int(m.id) for m in _until(sse_ids, lambda m: m.id == str(CREATED)) if m.id]
        got_ndjson = [json.loads(line)["seq"] for line in _until(ndjson_seqs, lambda li: f'"seq":{CREATED}' in li)]

        node.process.send_signal(stop)
        # Each stream ends as a finished response (a cut-off one raises RemoteProtocolError here),
        # with nothing after the last whole item.
        got_sse += [int(m.id) for m in sse_ids if m.id]
        got_ndjson += [json.loads(line)["seq"] for line in ndjson_seqs if line.strip()]
        # As a stopped command exits: by the signal (uvicorn 0.29+ raises it again once it has shut
        # down; Python turns SIGINT into 130), or 0 (older uvicorn). Never a failure's 1 or 2.
        assert node.process.wait(WAIT_S) in (0, 128 + stop, -stop)
    assert got_sse == got_ndjson == list(range(1, CREATED + 1))
    written = log.read_text()
    assert "ERROR" not in written and "Traceback" not in written, written


def _until(items, last):
    """The items up to and including the first for which `last` holds."""
    for item in items:
        yield item
        if last(item):
            return
