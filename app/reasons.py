"""An exception's words, to be put into the sentence of another refusal: a notation's line and
column, a roster's table, a tag of the header say where, and the words they wrap say what.

The refusals of the layers below (the log's, the rules') are raised with `Words` as their one
argument; the readers here wrap them in a sentence of their own (`Words("{where}: {problem}", ...)`),
and the edge says the whole in the reader's language. A third party's exception (tomllib's, a zip
file's) is put in as its text, which stays English: its words are not ours to translate.
"""

from __future__ import annotations

from morale.core.rules import Refusal
from morale.core.words import Words


def words_of(exc: BaseException) -> str:
    """What `exc` says: the `Words` it was raised with (a rule's refusal after the rule ID or field
    it names, as its str says it), else its text."""
    if isinstance(exc, Refusal):
        where = exc.rule or exc.field
        return Words("{where}: {problem}", where=where, problem=exc.message) if where else exc.message
    first = exc.args[0] if len(exc.args) == 1 else None
    return first if isinstance(first, Words) else str(exc)
