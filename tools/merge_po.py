"""A git merge driver for the message catalogues: two branches that each added messages to one
`messages.<lang>.po` (sorted by message, so their additions often sit side by side) are merged as
the union of their messages, never as a conflict. A message both branches translated differently
keeps ours, and the driver says which (exit 0: the merge goes on; review the line it prints).

    git config merge.po-union.driver "python tools/merge_po.py %O %A %B"
    # .gitattributes: *.po merge=po-union

After a merge, `make catalogues` compiles the merged `.po` again (the `.mo`, merged as ours, is
otherwise stale, which tests/test_language.py would find).
"""

from __future__ import annotations

import io
import sys

from babel.messages.pofile import read_po, write_po


def main(base: str, ours: str, theirs: str) -> None:
    with open(ours, "rb") as fp:
        merged = read_po(fp)
    with open(theirs, "rb") as fp:
        other = read_po(fp)
    for message in other:
        if not message.id:
            continue
        mine = merged.get(message.id)
        if mine is None:
            merged[message.id] = message
        elif not _said(mine.string) and _said(message.string):
            mine.string = message.string
        elif _said(message.string) and message.string != mine.string:
            print(f"merge_po: {message.id!r}: kept {mine.string!r}, not {message.string!r}", file=sys.stderr)
    out = io.BytesIO()
    write_po(out, merged, width=0, sort_output=True, include_lineno=False, ignore_obsolete=True)
    with open(ours, "wb") as fp:
        fp.write(out.getvalue())


def _said(string: object) -> bool:
    return all(string) if isinstance(string, tuple | list) else bool(string)


if __name__ == "__main__":
    main(*sys.argv[1:4])
