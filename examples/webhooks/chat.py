"""A webhook receiver that tells a club's chat what happens in a battle: each item's story, one line.

    MORALE_HOOK_SECRET=whsec_... python examples/webhooks/chat.py PORT [CHAT_URL]

It listens on 127.0.0.1:PORT, verifies each delivery's signature with the hook's secret (the
Standard Webhooks package: a forged or stale one is answered 401), drops an item it has already
had by its `webhook-id` (delivery is at least once), prints the item's story and, given CHAT_URL (a
Discord or Slack incoming webhook), posts the lines there as {"content": ..., "text": ...}. An item
counts as had only once the chat took it: a chat that fails is answered 502, so morale sends the
item again. What it has had is kept in memory; a bot that restarts keeps it on disk.
"""

import json
import os
import sys
import urllib.request
from http.server import BaseHTTPRequestHandler, HTTPServer

from standardwebhooks import Webhook, WebhookVerificationError

if not os.environ.get("MORALE_HOOK_SECRET", "").startswith("whsec_"):
    sys.exit("MORALE_HOOK_SECRET: the hook's secret (whsec_...), as `morale hook add` printed it")
hook = Webhook(os.environ["MORALE_HOOK_SECRET"])
chat = sys.argv[2] if len(sys.argv) > 2 else None
seen: set[str] = set()


class Delivery(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["content-length"]))
        try:
            event = hook.verify(body, dict(self.headers))
        except WebhookVerificationError:
            return self.answer(401)
        if event["id"] not in seen:  # the same item again: taken, not told twice
            lines = "\n".join(line["text"] for line in event["data"]["story"])
            if chat:
                said = json.dumps({"content": lines, "text": lines}).encode()
                headers = {"content-type": "application/json", "user-agent": "morale-chat-example"}
                try:
                    urllib.request.urlopen(urllib.request.Request(chat, said, headers), timeout=5)
                except OSError:
                    return self.answer(502)  # not told: morale sends it again
            print(lines, flush=True)
            seen.add(event["id"])
        self.answer(204)

    def answer(self, status: int) -> None:
        self.send_response(status)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, *_: object) -> None:
        pass


print(f"listening on http://127.0.0.1:{sys.argv[1]}/", flush=True)
HTTPServer(("127.0.0.1", int(sys.argv[1])), Delivery).serve_forever()
