"""Every `morale` command by name, in the order `morale -h` lists them: the module of app/cli/ that
defines it, and its one line of help (the first sentence of its docstring, which Click shortens to
the terminal). The group (`base.RefusingGroup`) imports a command's module only when that command
is run or its own help asked for, so a command pays for its own imports and not all 41's: Typer
builds a command's parameters from its signature, and the modules import the engine, the
projections, the server, signing and list builders' formats between them.

A command added to a module must be added here too, or it is not found; `tests/test_cli_lazy.py`
fails when this table and the commands the modules register differ in name, order or help.
"""

from __future__ import annotations

from typing import NamedTuple


class Listed(NamedTuple):
    module: str  # of morale.app.cli
    help: str  # what `morale -h` shows beside the name


COMMANDS: dict[str, Listed] = {
    "new": Listed("battle", "Create a battle from a roster: its rules, its sides and its units."),
    "append": Listed(
        "battle",
        "Record events: from TYPE and FIELD=VALUE pairs, from JSON, or from an NDJSON file (all or nothing).",
    ),
    "roll": Listed(
        "battle",
        "Roll for a due test: type in the table's dice, or let the engine roll them (recorded either way).",
    ),
    "next-phase": Listed("battle", "End the phase in progress, or start the next one in the ruleset's order."),
    "board": Listed("reads", "The status board: each unit's state, models left, restrictions and tests due."),
    "due": Listed("reads", "The tests due now, with the number to roll, the modifiers and why each is due."),
    "log": Listed("battle", "Every stored event, in order, with its hash link."),
    "replay": Listed(
        "battle",
        "Fold the battle from its log as a narrative, turn by turn, each consequence citing its rule ID.",
    ),
    "battles": Listed("battle", "The battles in the store."),
    "tokens": Listed(
        "battle",
        "List a battle's tokens (never their secrets); --issue one more for a role, or --replace-all.",
    ),
    "revoke": Listed(
        "battle",
        "Revoke one token by its id, or every token of a role; every other token of the battle keeps working.",
    ),
    "serve": Listed(
        "battle",
        "Serve the store over HTTP: the API (OpenAPI at /schema), the live feed and the viewer (/view).",
    ),
    "rulesets": Listed("battle", "The rulesets this engine knows, with their versions."),
    "strike": Listed(
        "corrections",
        "Strike an event and the later events that stood on it, in one append, after showing the list.",
    ),
    "undo": Listed(
        "corrections",
        "Strike the last event you entered at this machine (with what stood on it, after showing the list).",
    ),
    "confirm": Listed("claims", "Confirm the other side's entries as they were entered."),
    "dispute": Listed(
        "claims",
        "Dispute an entry of the other side that you have not confirmed; the phase waits for its resolution.",
    ),
    "resolve": Listed(
        "claims",
        "End a dispute with the entry standing: the referee's ruling, or (with --side) its disputer withdrawing it.",
    ),
    "disputes": Listed(
        "claims",
        "Every dispute of the battle and how it ended, and the entries still awaiting confirmation.",
    ),
    "cors": Listed(
        "cors",
        "List the web origins allowed to call the server about a battle; --allow or --remove some (all or none).",
    ),
    "explain": Listed(
        "reads",
        "Why a unit is in its state: every test (why due, target, modifiers, chance, roll, result) and every "
        "change, each with its rule ID, back to the start.",
    ),
    "at": Listed(
        "audit",
        "The board at any point of the battle: after event N, or at the start or end of a turn or phase.",
    ),
    "diff": Listed("audit", "Which units changed between two points, how, and why."),
    "what-if": Listed("audit", "Fold the battle with events amended, struck or inserted; the log is never touched."),
    "verify": Listed(
        "audit",
        "Check the hash chain, re-derive the board at every phase end, and recompute every engine roll once the "
        "dice secret is revealed, and check the signed heads.",
    ),
    "reveal": Listed(
        "audit",
        "Publish the battle's dice secret in its log: every engine roll made with it can then be recomputed by anyone.",
    ),
    "luck": Listed(
        "audit",
        "Each side's rolled tests against the exact chance each had: expected passes, actual, and the luck "
        "percentile (the chance of passing fewer at those odds, an equal number counting half).",
    ),
    "export": Listed(
        "audit",
        "The battle as NDJSON: one stored event per line, hashes included (what `import` reads).",
    ),
    "import": Listed(
        "audit",
        "Load an exported battle into this store: the hash chain and every event are checked first; a refusal "
        "names the line and sequence number, and nothing is written.",
    ),
    "schema": Listed(
        "audit",
        "The JSON Schema of every event (with --json), or a table of the event types and their versions.",
    ),
    "seed": Listed(
        "seeds",
        "Commit a side's seed for the engine's dice (a fresh one, printed to keep, or --commit HASH of one made "
        "elsewhere), or reveal it (--reveal SEED) once both sides have committed.",
    ),
    "rules": Listed("rules", "The rule catalogue: every clause the engine cites, in a ruleset, or one clause in full."),
    "graph": Listed(
        "rules",
        "A ruleset's unit states and the clauses that move a unit between them, as a Mermaid diagram (drawn by "
        "`transitions` from the rows the engine fires).",
    ),
    "tables": Listed(
        "tables",
        "Write a battle's derived tables (units, tests, state_changes, boards) beside its log, stamped with the "
        "engine and head hash they come from; tables already derived from that log are kept, stale ones rebuilt.",
    ),
    "report": Listed(
        "report",
        "The battle report as one HTML file that opens anywhere, offline: the narrative turn by turn, the board "
        "at each turn's end, every test with its odds and dice, each side's luck, charts of each unit's state and"
        " of cumulative luck, and the head hash to check against the log.",
    ),
    "examples": Listed(
        "examples",
        "The example battles shipped with morale (roster, events as NDJSON and in notation), one a ruleset.",
    ),
    "copy": Listed(
        "stores",
        "Copy battles into another store, each checked as `morale import` checks a file: identical hashes, with "
        "its dice secret and its tokens' hashes.",
    ),
    "hook": Listed(
        "hooks",
        "A battle's webhooks: its feed items posted to a URL, signed (add, list, log, resume, remove).",
    ),
    "key": Listed("signed", "The store's signing key: its public key for a judge (show), and a new key (rotate)."),
    "notation": Listed(
        "notation",
        "The battle notation: a battle as text to type, read, share and load back (export, import, grammar).",
    ),
}
