"""The console kept for a phone without the network: its web manifest and its service worker.

The worker (static/sw.js) keeps the app's files and the server's last answers. It is served at
/sw.js, a path whose scope may cover /view (a worker's scope cannot reach above its own folder),
with its first line naming the files the page needs and a version hashed from their bytes: a
console changed on the server replaces the copies a phone keeps, and no list of files is kept by
hand beside the folder.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path

STATIC = Path(__file__).parent / "static"
WORKER = STATIC / "sw.js"
MANIFEST = STATIC / "manifest.webmanifest"


def shell_files() -> dict[str, Path]:
    """The page's own files, by the URL it asks for each: the page, its manifest, styles, modules,
    icons and the catalogues of its words in each language (not Redoc, which only /schema reads)."""
    files = {"/view": STATIC / "console.html", "/manifest.webmanifest": MANIFEST}
    found = [
        *STATIC.glob("*.css"),
        *STATIC.glob("*.png"),
        *(STATIC / "js").glob("*.js"),
        *STATIC.glob("messages.*.json"),
    ]
    for path in sorted(found):
        files["/static/" + path.relative_to(STATIC).as_posix()] = path
    return files


@cache
def worker_source() -> str:
    files = shell_files()
    digest = hashlib.sha256()
    for url, path in files.items():
        digest.update(url.encode() + b"\0" + path.read_bytes())
    digest.update(WORKER.read_bytes())
    head = f"const SHELL = {json.dumps(list(files))};\nconst VERSION = {json.dumps(digest.hexdigest()[:12])};\n"
    return head + WORKER.read_text()
