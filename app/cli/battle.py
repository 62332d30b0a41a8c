"""The battle at the table: `morale new`, append, roll, next-phase, board, due, log, replay,
battles, tokens, revoke, serve and rulesets. Every command reads the battle's log from the store, so there
is no other state to keep in sync.
"""

from __future__ import annotations

import dataclasses
import errno
import gc
import json
import socket
import sys
from pathlib import Path
from typing import Annotated, Any

import msgspec
import msgspec.structs
import typer

from morale.core.rules import Refusal
from morale.core.rulesets import rulesets
from morale.core.words import Words, counted
from morale.events.codec import MalformedEvent, decode_event, event_from_dict
from morale.events.locate import is_database_url, shown
from morale.events.types import EVENT_TYPES, AnyEvent
from morale.projections.log import log_rows
from morale.projections.narrative import Line, describe_event, narrate
from morale.projections.timeline import turn_span

from .. import language
from ..access import (
    credentials,
    issue_token,
    issue_tokens,
    replace_all_tokens,
    revoke_tokens,
    role_of,
    utc_now,
)
from ..authors import cli_author, side_player_author
from ..battlescribe import Unanswered, template
from ..files import MAX_LOG_BYTES, check_line_lengths, read_bounded
from ..origins import check_origin
from ..roster import refusal_in_roster
from ..service import clock_event, fold_to_append_to, load, load_head, record_anew, record_on, roll_for, start_battle
from ..webhooks.settings import DELIVERY
from . import join_links, render
from .base import (
    DEFAULT_DB,
    EXIT_REFUSED,
    BattleArg,
    Db,
    Expect,
    Json,
    Side,
    app,
    emit_json,
    err,
    error_fields,
    open_store,
    out,
    refusals,
    refuse,
    report,
    words_of,
)
from .list_answers import at_a_terminal, roster_of


@app.command()
def new(
    roster: Annotated[
        list[Path],
        typer.Argument(
            metavar="ROSTER",
            help="A roster file (TOML): [battle] and [[unit]] tables. Or list builders' rosters (.ros, .rosz:"
            " BattleScribe, New Recruit), one a player or one with every force.",
            show_default=False,
        ),
    ],
    battle: Annotated[str | None, typer.Option(help="The battle's id (default: battle.id in the roster).")] = None,
    answers: Annotated[
        Path | None,
        typer.Option(
            "--answers",
            help="What list builders' rosters cannot say (a unit's Leadership, what a rule means here), as TOML;"
            " at a terminal, morale asks for the rest.",
        ),
    ] = None,
    tokens: Annotated[bool, typer.Option(help="Also issue the battle's tokens for `morale serve`.")] = False,
    confirmation: Annotated[
        bool | None,
        typer.Option(
            "--confirmation/--no-confirmation",
            help="Players confirm or dispute each other's entries, for a battle without a referee"
            " (default: battle.confirmation in the roster, else off).",
        ),
    ] = None,
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """Create a battle from a roster: its rules, its sides and its units."""
    with refusals(as_json):
        ask = _ask if at_a_terminal() and not as_json else None
        try:
            parsed = roster_of(roster, battle, answers, ask)
        except Unanswered as exc:
            if as_json:
                questions = [
                    {"key": q.key, "asks": language.say(q.asks), "choices": list(q.choices)} for q in exc.questions
                ]
                refuse(words_of(exc), {**error_fields(exc), "questions": questions}, as_json)  # type: ignore[dict-item]
            # The refusal's one line on stderr; the answers file to fill in on stdout, to redirect to a file.
            said = Words("refused: {reason} (the answers file to fill in is on standard output)", reason=words_of(exc))
            err.print(language.say(said), markup=False)
            sys.stdout.write(template(exc.questions))
            raise typer.Exit(EXIT_REFUSED) from None
        if confirmation is not None:
            parsed = dataclasses.replace(
                parsed, started=msgspec.structs.replace(parsed.started, confirmation=confirmation)
            )
        language.battle_default(parsed.started.language)  # the battle speaks its own from its first line
        store = open_store(db, create=True)
        try:
            recorded = start_battle(store, parsed.battle, parsed.started, parsed.units, author=cli_author())
        except Refusal as refusal:  # named as the roster spells it (unit[2].ld, unit."Ork Boyz".ld), as over HTTP
            raise refusal_in_roster(parsed, refusal) from None
        issued = issue_tokens(store, parsed.battle, parsed.started.sides) if tokens else None
        if as_json:
            created = {"battle": parsed.battle, "seq": recorded[-1].stored.seq}
            emit_json({**created, "tokens": issued} if issued else created)
        else:
            created = counted(
                "Battle {battle} created with {n} unit in {db}.",
                "Battle {battle} created with {n} units in {db}.",
                n=len(parsed.units),
                battle=parsed.battle,
                db=shown(db),
            )
            out.print(render.styled(created, "battle", parsed.battle, "bold"))  # Text: a path may hold "["
            if issued:
                render.print_tokens(out, issued)


def _ask(shown: str) -> str:
    return typer.prompt(shown, default="", show_default=False, err=True)


@app.command()
def append(
    battle: BattleArg,
    event_type: Annotated[
        str | None, typer.Argument(metavar="TYPE", help="Event type, e.g. casualties_suffered.")
    ] = None,
    fields: Annotated[list[str] | None, typer.Argument(metavar="FIELD=VALUE...", help="The event's fields.")] = None,
    json_text: Annotated[str | None, typer.Option("--json-event", "-j", help="The event as one JSON object.")] = None,
    file: Annotated[
        Path | None, typer.Option("--file", "-f", help="Events as NDJSON (one per line); - for stdin.")
    ] = None,
    side: Side = None,
    expect: Expect = None,
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """Record events: from TYPE and FIELD=VALUE pairs, from JSON, or from an NDJSON file (all or nothing)."""
    with refusals(as_json):
        events = _events_from(event_type, fields or [], json_text, file)
        store = open_store(db)
        via = "import" if file is not None else "cli"  # a file of events is an import
        if side is not None:
            fold = load_head(store, battle, events)
            author = side_player_author(fold, side, events, via)
            recorded = record_on(store, fold, events, expected_seq=expect, describe=describe_event, author=author)
            report(fold, recorded, as_json)
            return
        author = cli_author(via)
        if expect is None:  # no precondition: another writer getting there first is no refusal
            fold, recorded = record_anew(store, battle, events, describe=describe_event, author=author)
        else:
            fold = fold_to_append_to(store, battle, events)
            recorded = record_on(store, fold, events, expected_seq=expect, describe=describe_event, author=author)
        report(fold, recorded, as_json)


# A die typed as -1 is a die showing -1, refused as a die (dice[0]: a die shows 1 to 6, not -1), not
# an option Click does not know.
@app.command(context_settings={"ignore_unknown_options": True})
def roll(
    battle: BattleArg,
    unit: Annotated[str, typer.Argument(help="The unit whose test the dice are for.")],
    test: Annotated[str, typer.Argument(help="The due test: morale, regroup, pinning, fall_back...")],
    dice: Annotated[
        list[int] | None, typer.Argument(help="The dice as rolled at the table; none: the engine rolls.")
    ] = None,
    reroll: Annotated[
        bool, typer.Option("--reroll", help="The dice re-roll the unit's failed result (where a rule grants it).")
    ] = False,
    expect: Expect = None,
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """Roll for a due test: type in the table's dice, or let the engine roll them (recorded either way)."""
    with refusals(as_json):
        store = open_store(db)
        fold = load_head(store, battle)
        if dice:
            fields: dict[str, Any] = {"type": "dice_rolled", "unit": unit, "test": test, "dice": dice}
            if reroll:
                fields["reroll"] = True
            event = event_from_dict(fields)
            recorded = record_on(store, fold, [event], expected_seq=expect, author=cli_author())
        else:
            recorded = roll_for(store, fold, unit, test, expected_seq=expect, author=cli_author())
        report(fold, recorded, as_json)


@app.command("next-phase")
def next_phase_command(
    battle: BattleArg,
    side: Side = None,
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """End the phase in progress, or start the next one in the ruleset's order."""
    with refusals(as_json):
        store = open_store(db)
        fold = load_head(store, battle)
        event = clock_event(fold)
        author = side_player_author(fold, side, [event]) if side is not None else cli_author()
        report(fold, record_on(store, fold, [event], author=author), as_json)


@app.command("log")
def log_command(battle: BattleArg, db: Db = DEFAULT_DB, as_json: Json = False) -> None:
    """Every stored event, in order, with its hash link."""
    with refusals(as_json):
        store = open_store(db)
        load(store, battle)
        rows = log_rows(battle, store.read(battle))
        emit_json(rows) if as_json else render.print_log(out, rows)


@app.command("replay")
def replay_command(
    battle: BattleArg,
    turn: Annotated[int | None, typer.Option(help="Only this game turn.")] = None,
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """Fold the battle from its log as a narrative, turn by turn, each consequence citing its rule ID."""
    with refusals(as_json):
        store = open_store(db)
        load(store, battle)
        lines = narrate(battle, store.read(battle))
        if turn is not None:
            lines = _turn_only(battle, lines, turn)
        emit_json(lines) if as_json else render.print_narrative(out, lines)


def _turn_only(battle: str, lines: list[Line], turn: int) -> list[Line]:
    """The narrative of one game turn; a turn the battle never reached is refused, not shown empty."""
    if turn < 1 or not any(line.turn == turn for line in lines):
        span = turn_span(line.turn for line in lines)
        raise Refusal(
            Words("battle {battle!r} has no turn {turn}: it has {span}", battle=battle, turn=turn, span=span),
            field="turn",
        )
    return [line for line in lines if line.turn == turn]


@app.command("battles")
def battles_command(db: Db = DEFAULT_DB, as_json: Json = False) -> None:
    """The battles in the store."""
    with refusals(as_json):
        store = open_store(db)
        rows = [{"battle": b, "events": store.last_seq(b)} for b in store.battles()]
    if as_json:
        emit_json(rows)
    else:
        for row in rows:
            said = counted("{battle}  ({n} event)", "{battle}  ({n} events)", n=row["events"], battle=row["battle"])
            out.print(language.say(said))


@app.command("tokens")
def tokens_command(
    battle: BattleArg,
    issue: Annotated[
        str | None,
        typer.Option(
            metavar="ROLE",
            help="Issue one more token for this role (referee, spectator, overlay or a side's name); the others"
            " keep working.",
        ),
    ] = None,
    label: Annotated[str | None, typer.Option(help="The new token's label, e.g. \"Anna's phone\".")] = None,
    replace_all: Annotated[
        bool,
        typer.Option(
            "--replace-all",
            help="Issue a fresh set and revoke every earlier token but the overlays' (logs everyone out).",
        ),
    ] = False,
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """List a battle's tokens (never their secrets); --issue one more for a role, or --replace-all."""
    with refusals(as_json):
        if issue is not None and replace_all:
            said = Words("--issue adds one token and --replace-all replaces them all: give one of them")
            raise Refusal(said, field="issue")
        if label is not None and issue is None and not replace_all:
            raise Refusal(Words("--label names a token being issued: give it with --issue ROLE"), field="label")
        store = open_store(db)
        sides = load_head(store, battle).state().sides
        if issue is not None:
            role, side = role_of(issue, sides)
            issued = issue_token(store, battle, role, side, label or "")
        elif replace_all:
            replaced = replace_all_tokens(store, battle, sides, label or f"replaced all {utc_now()}")
        else:
            listed = credentials(store, battle)
    if issue is not None:
        if as_json:
            emit_json(issued)
        else:
            # The secret alone on stdout, for `TOKEN=$(morale tokens ... --issue ...)`; the words on stderr.
            said = Words(
                "Token {id} ({holder}) of {battle}, labelled {label!r}: shown once.",
                id=issued.id,
                holder=render.holder(issued),
                battle=battle,
                label=issued.label,
            )
            err.print(language.say(said), markup=False)
            out.print(issued.token, markup=False)
    elif replace_all:
        if as_json:
            emit_json(
                {"battle": battle, "tokens": replaced.tokens, "logged_out": replaced.logged_out, "kept": replaced.kept}
            )
        else:
            render.print_logged_out(out, battle, replaced.logged_out)
            render.print_kept(out, battle, replaced.kept)
            render.print_tokens(out, replaced.tokens)
    else:
        emit_json(listed) if as_json else render.print_credentials(out, battle, listed)


@app.command("revoke")
def revoke_command(
    battle: BattleArg,
    which: Annotated[
        str, typer.Argument(metavar="ID|ROLE", help="A token's id (`morale tokens` lists them), or a whole role.")
    ],
    reissue: Annotated[bool, typer.Option("--reissue", help="Issue a fresh token in its place (shown once).")] = False,
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """Revoke one token by its id, or every token of a role; every other token of the battle keeps working."""
    with refusals(as_json):
        store = open_store(db)
        sides = load_head(store, battle).state().sides
        done = revoke_tokens(store, battle, which, sides, reissue=reissue)
    if as_json:
        emit_json({"battle": battle, "revoked": done.revoked, "token": done.token})
        return
    for gone in done.revoked:
        said = Words(
            "Token {id} ({holder}) of {battle} no longer works.", id=gone.id, holder=render.holder(gone), battle=battle
        )
        err.print(language.say(said), markup=False)
    if done.token is None:
        out.print(language.say(Words("The other tokens of {battle} still work.", battle=battle)), markup=False)
    else:
        out.print(done.token, markup=False)


@app.command("serve")
def serve_command(
    db: Db = DEFAULT_DB,
    host: Annotated[
        str | None,
        typer.Option(help="Address to listen on (default: loopback; every interface with --table)."),
    ] = None,
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port to listen on.")] = 8000,
    heartbeat: Annotated[float, typer.Option(help="Seconds between heartbeats on an idle feed.")] = 15.0,
    poll: Annotated[
        float, typer.Option(help="SQLite: seconds between looks for events other processes append (PostgreSQL tells).")
    ] = 0.5,
    max_body: Annotated[int, typer.Option(help="Largest request body accepted, in bytes.")] = 1_000_000,
    create_token: Annotated[
        str | None,
        typer.Option(envvar="MORALE_CREATE_TOKEN", help="Require this Bearer token to create battles."),
    ] = None,
    allow_origin: Annotated[
        list[str] | None,
        typer.Option(
            help="A web origin allowed to call the API about every battle (CORS); repeatable."
            " `morale cors BATTLE --allow` allows one battle's, without a restart."
        ),
    ] = None,
    pool_size: Annotated[
        int, typer.Option(min=1, help="PostgreSQL: the most connections this node opens to the database.")
    ] = 10,
    table: Annotated[
        str | None,
        typer.Option(
            metavar="BATTLE",
            help="Serve a table: listen on the network and print a join link and QR code per role of BATTLE.",
        ),
    ] = None,
    public_url: Annotated[
        str | None, typer.Option(help="Where join links point, e.g. https://club.example (a proxy, TLS).")
    ] = None,
    ssl_certfile: Annotated[Path | None, typer.Option(help="Serve over TLS with this certificate (PEM).")] = None,
    ssl_keyfile: Annotated[Path | None, typer.Option(help="The certificate's private key (PEM).")] = None,
    webhooks: Annotated[
        bool,
        typer.Option(
            help="Deliver the battles' webhooks (`morale hook`): of the nodes serving a store, one at a time does."
        ),
    ] = True,
    webhook_attempts: Annotated[
        int, typer.Option(min=1, help="Failed attempts in a row before a webhook is paused.")
    ] = DELIVERY.attempts,
    webhook_retry: Annotated[
        float, typer.Option(min=0.01, help="Seconds before a failed delivery is tried again, doubled each time.")
    ] = DELIVERY.retry_first_s,
    webhook_lease: Annotated[
        float,
        typer.Option(min=0.3, help="Seconds the delivering node's lease lasts: how soon another node takes over."),
    ] = DELIVERY.lease_s,
) -> None:
    """Serve the store over HTTP: the API (OpenAPI at /schema), the live feed and the viewer (/view)."""
    from ..http.node import serve as serve_node
    from ..http.server import Settings, create_app
    from ..join import check_public_url  # segno, for the join links: for this command alone

    host = host or (join_links.ANY_ADDRESS[0] if table else "127.0.0.1")
    with refusals():
        tls = join_links.check_tls(ssl_certfile, ssl_keyfile)
        public_url = check_public_url(public_url) if public_url else None
        if table is not None and port == 0:
            raise Refusal(Words("--table needs a port of its own for the links to name (not 0)"), field="port")
        origins = tuple(check_origin(origin, "--allow-origin") for origin in allow_origin or ())
    scheme = "https" if tls else "http"
    # Where people open it: the LAN's address when listening on every interface. The table's links
    # and the Share screen's (whatever address the referee's own page was opened on) both name it.
    address = join_links.link_host(host, out) if host in join_links.ANY_ADDRESS else host
    base = public_url or f"{scheme}://{address}:{port}"
    settings = Settings(
        poll_s=poll,
        heartbeat_s=heartbeat,
        max_body_bytes=max_body,
        create_token=create_token,
        allow_origins=origins,
        pool_size=pool_size,
        public_url=base if table is not None else public_url,
        webhooks=dataclasses.replace(
            DELIVERY, attempts=webhook_attempts, retry_first_s=webhook_retry, lease_s=webhook_lease, poll_s=poll
        )
        if webhooks
        else None,
    )
    with refusals():
        _check_port(host, port)  # first: a busy port must not leave a new store behind
        # Clients create battles over the API, so serving may create the store; the line below says
        # when it did, for a mistyped --db to show at once.
        fresh = not is_database_url(db) and not Path(db).exists()
        if table is not None:
            store = open_store(db)
            tokens = join_links.table_tokens(store, table, load(store, table).state().sides)
        served = create_app(db, settings)
    url = f"{scheme}://{address}:{port}/"
    if fresh:
        serving = Words("Serving a new store {db} on {url} (viewer: /view, API: /schema)", db=shown(db), url=url)
    else:
        serving = Words("Serving the store {db} on {url} (viewer: /view, API: /schema)", db=shown(db), url=url)
    out.print(language.say(serving), markup=False)
    if table is not None:
        join_links.print_join_links(out, base, table, tokens)
    # The code and the app live as long as the process: out of the cyclic collector's full passes,
    # which otherwise walk them again and again, and whose pauses were the live feed's slowest
    # deliveries (bench/feed.py; the figures are in bench/README.md).
    gc.collect()
    gc.freeze()
    serve_node(served, host, port, ssl_certfile=ssl_certfile, ssl_keyfile=ssl_keyfile)


def _check_port(host: str, port: int) -> None:
    """Refuse an address that cannot be listened on before saying "Serving": uvicorn finds out only
    after, and prints a log line and a traceback. Bound and let go at once, as uvicorn binds it
    (SO_REUSEADDR: a port left in TIME_WAIT by a server just stopped is free, one in use is not)."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as exc:
        raise Refusal(Words("--host {host}: {error}", host=host, error=exc.strerror)) from None
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise Refusal(Words("port {port} on {host} is taken", port=port, host=host)) from None
            said = Words("cannot listen on port {port} of {host}: {error}", port=port, host=host, error=exc.strerror)
            raise Refusal(said) from None


@app.command("rulesets")
def rulesets_command(as_json: Json = False) -> None:
    """The rulesets this engine knows, with their versions."""
    with refusals(as_json):  # a game installed whose entry point gives no ruleset is named, on one line
        known = rulesets()
    rows = [{"id": r.id, "version": r.version, "title": r.title, "phases": r.phases} for r in known.values()]
    if as_json:
        emit_json(rows)
    else:
        for row in rows:
            said = Words(
                "{id} v{version}: {title} (phases: {phases})",
                id=row["id"],
                version=row["version"],
                title=row["title"],
                phases=", ".join(row["phases"]),
            )
            out.print(language.say(said))


# -- reading events from the command line -------------------------------------------------------
def _events_from(event_type: str | None, fields: list[str], json_text: str | None, file: Path | None) -> list[AnyEvent]:
    given = sum(x is not None for x in (event_type, json_text, file))
    if given != 1:
        raise MalformedEvent(Words("give exactly one of: TYPE FIELD=VALUE..., --json-event, --file"))
    if json_text is not None:
        return [decode_event(json_text)]
    if file is not None:
        text = _read(file)
        events = []
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    events.append(decode_event(line))
                except MalformedEvent as exc:
                    raise exc.within(Words("{file} line {number}", file=file, number=number)) from None
        if not events:
            raise MalformedEvent(Words("{file}: no events in the file", file=file))
        return events
    assert event_type is not None
    return [event_from_dict({"type": event_type, **_parse_fields(event_type, fields)})]


def _read(path: Path) -> str:
    """The text of a file of events, or of standard input for -: no line longer than an event may be."""
    data = read_bounded(path, MAX_LOG_BYTES)
    check_line_lengths(data, str(path))  # before the text is decoded, as well as before its events are
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:  # a binary file, or text in another encoding
        raise MalformedEvent(Words("{path}: not UTF-8 text (byte {byte})", path=path, byte=exc.start)) from None


def _parse_fields(event_type: str, fields: list[str]) -> dict[str, Any]:
    """FIELD=VALUE pairs: a value is read as JSON when it parses (numbers, true, lists), else as text;
    a list field also takes comma-separated text (targets=boyz,nobz)."""
    cls = EVENT_TYPES.get(event_type)
    if cls is None:
        known = ", ".join(EVENT_TYPES)
        raise MalformedEvent(Words("type: unknown event type {type!r} (known: {known})", type=event_type, known=known))
    list_fields = {f.name for f in msgspec.inspect.type_info(cls).fields if _takes_sequence(f.type)}
    parsed: dict[str, Any] = {}
    for pair in fields:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise MalformedEvent(Words("{pair!r}: write fields as FIELD=VALUE", pair=pair))
        try:
            value: Any = json.loads(raw)
        except (ValueError, RecursionError):  # text, or JSON too deep to be any field's value
            value = raw
        if key in list_fields and not isinstance(value, list):
            value = [_scalar(v) for v in str(raw).split(",") if v]
        parsed[key] = value
    return parsed


# Every kind of field a comma-separated value can fill: the events declare their lists as tuples
# (immutable all the way down), but a list, set or fixed-length tuple reads the same from `a,b`.
_SEQUENCE_TYPES = (
    msgspec.inspect.ListType,
    msgspec.inspect.VarTupleType,
    msgspec.inspect.TupleType,
    msgspec.inspect.SetType,
    msgspec.inspect.FrozenSetType,
)


def _takes_sequence(field_type: msgspec.inspect.Type) -> bool:
    """A sequence field, also behind constraints (`Annotated[..., Meta(...)]`) or `| None`."""
    if isinstance(field_type, msgspec.inspect.Metadata):
        return _takes_sequence(field_type.type)
    if isinstance(field_type, msgspec.inspect.UnionType):
        return any(_takes_sequence(member) for member in field_type.types)
    return isinstance(field_type, _SEQUENCE_TYPES)


def _scalar(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return text
