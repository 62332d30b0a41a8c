"""Who appended an event, in words: the `Author` sealed with it, or "not recorded" for an event
written before authors were kept. One whole phrase per case, with named placeholders."""

from __future__ import annotations

from morale.events.types import Author

# The way in, as a reader says it (the machine value stays in `Author.via`).
VIA_WORDS = {
    "cli": "command line",
    "http": "API",
    "console": "console",
    "import": "file import",
    "notation": "notation",
}

NOT_RECORDED = "not recorded"
_PHRASES = {
    # (role, what names the credential): the phrase
    ("referee", "label"): "referee ({via}, {label})",
    ("referee", "token"): "referee ({via}, token {token})",
    ("referee", ""): "referee ({via})",
    ("player", "label"): "{side} player ({via}, {label})",
    ("player", "token"): "{side} player ({via}, token {token})",
    ("player", ""): "{side} player ({via})",
}


def author_words(author: Author | None) -> str:
    """ "referee (command line, anna)", "orks player (console, Anna's phone)", "not recorded"."""
    if author is None:
        return NOT_RECORDED
    named = "label" if author.label else "token" if author.token else ""
    return _PHRASES[(author.role, named)].format(
        via=VIA_WORDS.get(author.via, author.via), side=author.side, label=author.label, token=author.token
    )
