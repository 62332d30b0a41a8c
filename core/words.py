"""Words for people, kept sayable in any language the app speaks: `Words`, `counted`, `listed`,
`in_book` and `english` (see `morale.events.words`, where they are defined: the log's layer says its
refusals of malformed input in words too, and imports nothing above it). Import them from here."""

from __future__ import annotations

from morale.events.words import _LIST as _LIST
from morale.events.words import Words as Words
from morale.events.words import counted as counted
from morale.events.words import english as english
from morale.events.words import in_book as in_book
from morale.events.words import listed as listed
from morale.events.words import rebuilt as rebuilt

__all__ = ["Words", "counted", "english", "in_book", "listed"]
