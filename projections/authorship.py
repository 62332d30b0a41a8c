"""Who appended an event, in words: the `Author` sealed with it, or "not recorded" for an event
written before authors were kept. One whole phrase per case, with named placeholders."""

from __future__ import annotations

from morale.core.words import Words
from morale.events.types import Author

# The way in, as a reader says it (the machine value stays in `Author.via`).
VIA_WORDS = {
    "cli": Words("command line"),
    "http": Words("API"),
    "console": Words("console"),
    "import": Words("file import"),
    "notation": Words("notation"),
}

NOT_RECORDED = Words("not recorded")


def author_words(author: Author | None) -> str:
    """ "referee (command line, anna)", "orks player (console, Anna's phone)", "not recorded"."""
    if author is None:
        return NOT_RECORDED
    via = VIA_WORDS.get(author.via, author.via)
    match (author.role, "label" if author.label else "token" if author.token else ""):
        case ("referee", "label"):
            return Words("referee ({via}, {label})", via=via, label=author.label)
        case ("referee", "token"):
            return Words("referee ({via}, token {token})", via=via, token=author.token)
        case ("referee", _):
            return Words("referee ({via})", via=via)
        case (_, "label"):
            return Words("{side} player ({via}, {label})", side=author.side, via=via, label=author.label)
        case (_, "token"):
            return Words("{side} player ({via}, token {token})", side=author.side, via=via, token=author.token)
    return Words("{side} player ({via})", side=author.side, via=via)
