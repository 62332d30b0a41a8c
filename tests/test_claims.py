"""Confirm and dispute, in a battle played without a referee: what one side enters stands as a claim
until the other side confirms it, playing on confirms it, a dispute holds the phase end until it is
resolved (a ruling, a withdrawal, or a strike with what followed). Every refusal names its rule and
writes nothing; the ledger kept with the fold is the one the stored log gives."""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace
from support.cli import morale
from support.examples import EXAMPLE

from morale.app.corrections import plan_strike
from morale.app.notation.check import check
from morale.app.notation.reader import NotationError, read
from morale.app.notation.writer import write
from morale.app.report.page import page
from morale.app.roster import load_roster
from morale.app.service import claims_of, load, record, record_on, start_battle
from morale.core import rules
from morale.core.claims import ledger
from morale.core.rules import Refusal
from morale.events.codec import event_from_dict
from morale.events.store import SqliteEventStore
from morale.events.types import Author
from morale.projections.claims import claims_view
from morale.projections.report import report

BATTLE = "hive-tarsis"
REFEREE = Author(role="referee", via="cli", label="judge")
IMPERIUM = Author(role="player", via="console", side="imperium", token="1111aaaa", label="Anna's phone")
ORKS = Author(role="player", via="console", side="orks", token="2222bbbb", label="Boris's phone")
PLAYERS = {"imperium": IMPERIUM, "orks": ORKS}


def ev(**fields):
    return event_from_dict(fields)


def phase(turn: int, side: str, name: str, end: bool = False):
    return ev(type="phase_ended" if end else "phase_started", turn=turn, side=side, phase=name)


@pytest.fixture
def store(tmp_path) -> SqliteEventStore:
    return shooting(tmp_path)


def shooting(folder: Path) -> SqliteEventStore:
    """The example battle with confirmation on, at the start of the imperium's shooting phase, its
    clock run by the imperium's player (seq 6 is the phase start)."""
    opened = SqliteEventStore(folder / "claims.db")
    roster = load_roster(EXAMPLE / "roster.toml")
    start_battle(
        opened, BATTLE, replace(roster.started, confirmation=True, dice_policy="either"), roster.units, author=REFEREE
    )
    for name in ("movement", "psychic"):
        enter(opened, IMPERIUM, phase(1, "imperium", name), phase(1, "imperium", name, end=True))
    enter(opened, IMPERIUM, phase(1, "imperium", "shooting"))
    return opened


def enter(store, author, *events):
    return record(store, BATTLE, list(events), author=author)


def last(store) -> int:
    return store.last_seq(BATTLE)


def refused(store, author, event, rule: str | None = None, field: str | None = None) -> str:
    """The event is refused, naming the rule (or field), and the log is as it was."""
    before = last(store)
    with pytest.raises(Refusal) as refusal:
        enter(store, author, event)
    assert last(store) == before
    if rule:
        assert refusal.value.rule == rule, refusal.value
    if field:
        assert refusal.value.field == field, refusal.value
    return refusal.value.message


def view(store):
    return claims_view(BATTLE, store.read(BATTLE))


def loses(unit: str, count: int = 1):
    return ev(type="casualties_suffered", unit=unit, count=count)


def test_engine_claim_open_a_players_entry_awaits_the_other_side_and_the_referees_stands(store):
    [claim] = enter(store, ORKS, loses("grots"))
    enter(store, REFEREE, loses("lootas"))
    awaiting = view(store).awaiting
    assert [(row.seq, row.side, row.awaits) for row in awaiting] == [(claim.stored.seq, "orks", "imperium")]
    assert awaiting[0].said == "Gretchin Mob loses 1 model (9 left)"
    assert awaiting[0].by == "orks player (console, Boris's phone)"


def test_engine_claim_open_a_battle_that_asks_for_no_confirmation_refuses_confirmations(tmp_path):
    plain = SqliteEventStore(tmp_path / "plain.db")
    roster = load_roster(EXAMPLE / "roster.toml")
    start_battle(plain, BATTLE, roster.started, roster.units)
    message = refused(plain, ORKS, ev(type="entry_confirmed", seqs=[2]), rule=rules.CLAIM_OPEN)
    assert "does not ask the players to confirm" in message
    assert claims_view(BATTLE, plain.read(BATTLE)).confirmation is False


def test_engine_claim_confirm_the_other_side_or_the_referee_confirms_and_a_confirmation_is_final(store):
    [grots] = enter(store, ORKS, loses("grots"))
    [lootas] = enter(store, ORKS, loses("lootas"))
    refereed = enter(store, REFEREE, loses("nobz"))[0].stored.seq
    g, lo = grots.stored.seq, lootas.stored.seq
    assert "the other side confirms it" in refused(
        store, ORKS, ev(type="entry_confirmed", seqs=[g]), rules.CLAIM_CONFIRM
    )
    assert "no player's claim" in refused(
        store, IMPERIUM, ev(type="entry_confirmed", seqs=[refereed]), rules.CLAIM_CONFIRM
    )
    [confirmed] = enter(store, IMPERIUM, ev(type="entry_confirmed", seqs=[g]))
    assert "already confirmed" in refused(store, IMPERIUM, ev(type="entry_confirmed", seqs=[g]), rules.CLAIM_CONFIRM)
    enter(store, REFEREE, ev(type="entry_confirmed", seqs=[lo]))
    assert view(store).awaiting == []
    assert "a confirmation is final" in refused(
        store, REFEREE, ev(type="event_retracted", seq=confirmed.stored.seq, reason="oops"), rules.CLAIM_CONFIRM
    )


def test_engine_claim_tacit_the_other_sides_next_entry_confirms_but_a_dispute_or_a_seed_does_not(store):
    [first] = enter(store, ORKS, loses("grots"))
    [second] = enter(store, ORKS, loses("lootas"))
    enter(store, IMPERIUM, ev(type="entry_disputed", seq=second.stored.seq, reason="the lootas were out of sight"))
    enter(store, IMPERIUM, ev(type="seed_committed", side="imperium", commitment="a" * 64))
    assert [row.seq for row in view(store).awaiting] == [first.stored.seq]  # neither confirmed it
    enter(store, IMPERIUM, loses("kraak"))  # the imperium plays on
    kept = ledger(("imperium", "orks"), store.read(BATTLE))
    assert kept.claims[first.stored.seq].tacit and not kept.claims[first.stored.seq].open
    assert kept.claims[second.stored.seq].open  # disputed: playing on does not settle a dispute
    assert [row.seq for row in view(store).awaiting] == [last(store)]  # the imperium's own entry, for the orks


def test_engine_claim_phase_end_waits_for_the_enders_own_claims_and_confirms_the_others(store):
    [orks_claim] = enter(store, ORKS, loses("grots"))
    [own] = enter(store, IMPERIUM, loses("kraak"))  # confirms the grots' loss: the imperium played on
    end = phase(1, "imperium", "shooting", end=True)
    message = refused(store, IMPERIUM, end, rules.CLAIM_PHASE_END)
    assert message == f"the phase does not end while claims await confirmation by orks (awaiting: {own.stored.seq})"
    enter(store, ORKS, ev(type="entry_confirmed", seqs=[own.stored.seq]))
    enter(store, IMPERIUM, end)
    assert ledger(("imperium", "orks"), store.read(BATTLE)).claims[orks_claim.stored.seq].tacit


def test_engine_dispute_open_only_the_other_side_disputes_an_unconfirmed_claim_once(store):
    [claim] = enter(store, ORKS, loses("grots", 2))
    seq = claim.stored.seq
    dispute = ev(type="entry_disputed", seq=seq, reason="only one was hit")
    assert "the other side disputes it" in refused(store, ORKS, dispute, rules.DISPUTE_OPEN)
    assert "the referee rules on it" in refused(store, REFEREE, dispute, rules.DISPUTE_OPEN)
    assert "no event 99" in refused(store, IMPERIUM, ev(type="entry_disputed", seq=99, reason="x"), field="seq")
    enter(store, IMPERIUM, dispute)
    assert "already disputed" in refused(store, IMPERIUM, dispute, rules.DISPUTE_OPEN)
    assert "resolve the dispute instead" in refused(
        store, IMPERIUM, ev(type="entry_confirmed", seqs=[seq]), rules.CLAIM_CONFIRM
    )
    [later] = enter(store, ORKS, loses("lootas"))
    enter(store, IMPERIUM, loses("kraak"))  # confirms the lootas' loss by playing on
    assert "confirmed by event" in refused(
        store, IMPERIUM, ev(type="entry_disputed", seq=later.stored.seq, reason="late"), rules.DISPUTE_OPEN
    )


def test_engine_dispute_meanwhile_the_disputed_entry_stands_and_play_goes_on_but_the_phase_waits(store):
    [claim] = enter(store, ORKS, loses("grots", 2))
    enter(store, IMPERIUM, ev(type="entry_disputed", seq=claim.stored.seq, reason="only one was hit"))
    grots = load(store, BATTLE).state().units["grots"]
    assert grots.models == 8  # the disputed loss stands as entered
    enter(store, ORKS, loses("lootas"))  # play goes on
    message = refused(store, IMPERIUM, phase(1, "imperium", "shooting", end=True), rules.DISPUTE_MEANWHILE)
    assert message == f"the phase does not end while a dispute is open (disputed: {claim.stored.seq})"
    assert view(store).disputes[0].status == "open"


def test_engine_dispute_resolve_by_the_referees_ruling_or_the_disputers_withdrawal_never_the_claimants(store):
    [first] = enter(store, ORKS, loses("grots", 2))
    [second] = enter(store, ORKS, loses("lootas", 2))
    for claim in (first, second):
        enter(store, IMPERIUM, ev(type="entry_disputed", seq=claim.stored.seq, reason="only one was hit"))
    stands = ev(type="dispute_resolved", seq=first.stored.seq, ruling="it stands")
    assert "by imperium withdrawing it" in refused(store, ORKS, stands, rules.DISPUTE_RESOLVE)
    enter(store, REFEREE, replace(stands, ruling="both were hit: the template covered them"))
    enter(store, IMPERIUM, ev(type="dispute_resolved", seq=second.stored.seq, ruling="measured again"))
    assert "not under dispute" in refused(store, REFEREE, stands, field="seq")
    rows = view(store).disputes
    assert [(row.entry, row.status) for row in rows] == [(first.stored.seq, "stands"), (second.stored.seq, "withdrawn")]
    assert rows[0].said == (
        f"Event {first.stored.seq} was disputed by imperium: only one was hit. It stands, ruled by referee"
        f" (command line, judge) at #{rows[0].ended_at}: both were hit: the template covered them."
    )
    assert "a dispute ends only by its resolution" in refused(
        store, IMPERIUM, ev(type="event_retracted", seq=rows[1].seq, reason="x"), rules.DISPUTE_RESOLVE
    )
    enter(store, IMPERIUM, phase(1, "imperium", "shooting", end=True))  # nothing holds the phase now


def test_engine_dispute_resolve_a_strike_of_the_disputed_entry_by_its_own_side_ends_it_struck(store):
    [claim] = enter(store, ORKS, loses("grots", 6))
    enter(store, IMPERIUM, ev(type="entry_disputed", seq=claim.stored.seq, reason="the grots were in cover"))
    fold = load(store, BATTLE)
    plan = plan_strike(fold, claim.stored.seq)
    record_on(store, fold, plan.retractions("agreed: they were in cover"), expected_seq=fold.seq, author=ORKS)
    [row] = view(store).disputes
    assert (row.status, row.ruling, row.ended_by) == (
        "struck",
        "agreed: they were in cover",
        "orks player (console, Boris's phone)",
    )
    assert load(store, BATTLE).state().units["grots"].models == 10
    enter(store, IMPERIUM, phase(1, "imperium", "shooting", end=True))


def test_the_ledger_kept_with_the_fold_is_the_one_the_stored_log_gives_after_a_refused_batch(store):
    fold = load(store, BATTLE)
    record_on(store, fold, [loses("grots")], expected_seq=fold.seq, author=ORKS)
    before = last(store)
    with pytest.raises(Refusal):
        bad = [loses("kraak"), ev(type="entry_confirmed", seqs=[before + 1])]  # the imperium confirms its own
        record_on(store, fold, bad, expected_seq=fold.seq, author=IMPERIUM)
    assert last(store) == before
    fold = load(store, BATTLE)
    kept = claims_of(store, fold)
    assert kept == ledger(("imperium", "orks"), store.read(BATTLE))


ANSWERS = st.lists(
    st.tuples(
        st.sampled_from(["confirm", "dispute", "resolve", "strike", "lose", "end"]),
        st.sampled_from(["imperium", "orks", "referee"]),
        st.integers(min_value=6, max_value=14),
    ),
    max_size=12,
)


@settings(max_examples=40, deadline=None)
@given(steps=ANSWERS)
def test_any_sequence_of_answers_leaves_a_refused_one_unwritten_and_the_kept_ledger_equal_to_the_logs(steps):
    """Whatever players and referee try, a refused entry writes nothing, and the ledger the service
    keeps beside the fold is the ledger folded afresh from the stored log (twice: the same)."""
    with tempfile.TemporaryDirectory() as folder:
        store = shooting(Path(folder))
        try:
            _answer(store, steps)
        finally:
            store.close()


def _answer(store: SqliteEventStore, steps) -> None:
    fold = load(store, BATTLE)
    units = {"imperium": "kraak", "orks": "grots", "referee": "lootas"}
    for kind, who, seq in steps:
        author = PLAYERS.get(who, REFEREE)
        event = {
            "confirm": ev(type="entry_confirmed", seqs=[seq]),
            "dispute": ev(type="entry_disputed", seq=seq, reason="no"),
            "resolve": ev(type="dispute_resolved", seq=seq, ruling="yes"),
            "strike": ev(type="event_retracted", seq=seq, reason="no"),
            "lose": loses(units[who]),
            "end": phase(1, "imperium", "shooting", end=True),
        }[kind]
        before = last(store)
        try:
            record_on(store, fold, [event], expected_seq=fold.seq, author=author)
        except Refusal:
            assert last(store) == before
            fold = load(store, BATTLE)
        if kind == "end" and last(store) != before:
            break  # the phase is over: the rest would be refused by the clock alone
    kept = claims_of(store, fold)
    afresh = ledger(("imperium", "orks"), store.read(BATTLE))
    assert kept == afresh == ledger(("imperium", "orks"), store.read(BATTLE))


def test_morale_disputes_lists_each_dispute_and_how_it_ended_and_the_claims_left(store, tmp_path):
    [claim] = enter(store, ORKS, loses("grots", 2))
    enter(store, IMPERIUM, ev(type="entry_disputed", seq=claim.stored.seq, reason="only one was hit"))
    enter(store, ORKS, loses("lootas"))
    db = tmp_path / "claims.db"
    shown = morale(db, "disputes", BATTLE)
    assert shown.exit_code == 0, shown.output
    assert (
        f"#{claim.stored.seq + 1} [open] Event {claim.stored.seq} is disputed by imperium: only one was hit."
        in shown.stdout
    )
    assert (
        f"#{claim.stored.seq} Gretchin Mob loses 2 models (8 left) (entered by orks player (console, Boris's phone))"
        in shown.stdout
    )
    assert f"#{last(store)} Lootas loses 1 model (5 left): a claim of orks, for imperium to confirm" in shown.stdout
    as_json = morale(db, "disputes", BATTLE, "--json")
    assert as_json.exit_code == 0 and '"status":"open"' in as_json.stdout


def test_the_hot_seat_cli_confirms_disputes_and_resolves_as_a_sides_player_held_to_its_units(store, tmp_path):
    db = tmp_path / "claims.db"
    typed = morale(db, "append", BATTLE, "casualties_suffered", "unit=grots", "count=2", "--side", "orks")
    assert typed.exit_code == 0, typed.output
    seq = last(store)
    foreign = morale(db, "append", BATTLE, "casualties_suffered", "unit=kraak", "count=1", "--side", "orks")
    assert foreign.exit_code == 2 and "'kraak' is not a unit of orks" in foreign.output
    assert morale(db, "dispute", BATTLE, str(seq), "--reason", "one", "--side", "nobody").exit_code == 2
    own = morale(db, "dispute", BATTLE, str(seq), "--reason", "one", "--side", "orks")
    assert own.exit_code == 2 and "engine.dispute.open" in own.output
    assert morale(db, "dispute", BATTLE, str(seq), "--reason", "one", "--side", "imperium").exit_code == 0
    assert morale(db, "resolve", BATTLE, str(seq), "--ruling", "measured", "--side", "imperium").exit_code == 0
    assert view(store).disputes[0].status == "withdrawn"
    assert last(store) == seq + 2


def test_the_notation_writes_confirmations_disputes_and_resolutions_and_reads_them_back(store):
    [claim] = enter(store, ORKS, loses("grots", 2))
    enter(store, IMPERIUM, ev(type="entry_disputed", seq=claim.stored.seq, reason="only one was hit"))
    enter(store, IMPERIUM, ev(type="dispute_resolved", seq=claim.stored.seq, ruling="measured again"))
    [lootas] = enter(store, ORKS, loses("lootas"))
    enter(store, IMPERIUM, ev(type="entry_confirmed", seqs=[lootas.stored.seq]))
    stored = list(store.read(BATTLE))
    text = write(BATTLE, [s.event for s in stored], [s.author for s in stored])
    uncommented = [line.split("  ; ")[0] for line in text.splitlines()]
    assert '[Confirmation "on"]' in uncommented
    for line in (f'dispute {claim.stored.seq} "only one was hit"', f'resolve {claim.stored.seq} "measured again"'):
        assert line in uncommented
    assert f"confirm {lootas.stored.seq}" in uncommented
    # each line that cites an entry by number says which line that entry is
    confirm = next(line for line in text.splitlines() if line.startswith("confirm "))
    assert confirm.endswith(f"; #{lootas.stored.seq} is line {uncommented.index('lootas loses 1') + 1}: lootas loses 1")
    assert check(read(text), "notation").events == [s.event for s in stored]


def test_a_confirmation_tag_other_than_on_or_off_is_refused_naming_it(store):
    stored = list(store.read(BATTLE))
    text = write(BATTLE, [s.event for s in stored]).replace('[Confirmation "on"]', '[Confirmation "maybe"]')
    with pytest.raises(NotationError) as error:
        read(text)
    assert '[Confirmation] is "on" or "off", not \'maybe\'' in str(error.value)


def test_the_report_lists_every_dispute_and_how_it_ended(store):
    [claim] = enter(store, ORKS, loses("grots", 2))
    enter(store, IMPERIUM, ev(type="entry_disputed", seq=claim.stored.seq, reason="only one was hit"))
    enter(store, REFEREE, ev(type="dispute_resolved", seq=claim.stored.seq, ruling="both were hit"))
    html = page(report(BATTLE, store.read(BATTLE)), "morale test")
    section = html[html.index('<section id="disputes">') :]
    section = section[: section.index("</section>")]
    assert f'data-entry="{claim.stored.seq}" data-status="stands"' in section
    assert "only one was hit" in section and "both were hit" in section
    assert "Gretchin Mob loses 2 models (8 left)" in section
    assert '<a href="#disputes">Disputes</a>' in html


def test_morale_tables_writes_each_dispute_and_how_it_ended_for_sql(store, tmp_path):
    [claim] = enter(store, ORKS, loses("grots", 2))
    enter(store, IMPERIUM, ev(type="entry_disputed", seq=claim.stored.seq, reason="only one was hit"))
    db = tmp_path / "claims.db"
    assert morale(db, "tables", BATTLE).exit_code == 0
    with sqlite3.connect(db) as conn:
        found = conn.execute("SELECT entry, side, reason, status, entry_summary FROM disputes").fetchall()
    assert found == [(claim.stored.seq, "imperium", "only one was hit", "open", "Gretchin Mob loses 2 models (8 left)")]


def test_a_hot_seat_player_undoes_their_own_mistyped_loss_and_nothing_of_the_referees(store, tmp_path):
    db = tmp_path / "claims.db"
    enter(store, REFEREE, loses("lootas"))  # the referee's, at the same keyboard: not the player's to undo
    assert morale(db, "append", BATTLE, "casualties_suffered", "unit=grots", "count=7", "--side", "orks").exit_code == 0
    mistyped = last(store)
    undone = morale(db, "undo", BATTLE, "--side", "orks", "--yes", "--reason", "meant 1, not 7")
    assert undone.exit_code == 0, undone.output
    assert load(store, BATTLE).state().units["grots"].models == 10
    [struck] = [s for s in store.read(BATTLE) if s.seq == last(store)]
    assert (struck.event.seq, struck.author.side, struck.author.role) == (mistyped, "orks", "player")
    again = morale(db, "undo", BATTLE, "--side", "orks", "--yes")
    assert again.exit_code == 2 and "nothing in this battle that still stands to undo" in again.output


def test_a_disputed_entry_is_described_with_the_count_it_left_not_the_count_now(store):
    """The evidence two sides argue over: "8 left" when the loss was entered, whatever came after."""
    [claim] = enter(store, ORKS, loses("grots", 2))
    enter(store, IMPERIUM, ev(type="entry_disputed", seq=claim.stored.seq, reason="only one was hit"))
    enter(store, ORKS, loses("grots", 3))
    [row] = view(store).disputes
    assert row.entry_said == "Gretchin Mob loses 2 models (8 left)"
    assert view(store).awaiting[0].said == "Gretchin Mob loses 3 models (5 left)"


def test_the_hot_seat_clock_is_a_sides_own_phases(store, tmp_path):
    db = tmp_path / "claims.db"
    others = morale(db, "next-phase", BATTLE, "--side", "orks")
    assert others.exit_code == 2 and "phase_ended is for the referee" in others.output
    assert morale(db, "next-phase", BATTLE, "--side", "imperium").exit_code == 0
    [ended] = [s for s in store.read(BATTLE) if s.seq == last(store)]
    assert ended.event.__struct_config__.tag == "phase_ended" and ended.author.side == "imperium"
