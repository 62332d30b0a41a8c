"""Several writers at once, and a writer killed half-way. Whoever wins a race, the store holds one
consistent battle: one creator, its dice secret matching the commitment in its log, every append
kept once or refused, and a batch all there or not at all.

The races run the installed `morale` command in separate processes, as several terminals would;
what a race cannot be made to do every time (lose at the one unlucky moment) is also forced
in-process, so the test fails on the old code every time and not only on an unlucky run.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from msgspec.structs import replace
from support.cli import morale
from support.served import BATTLE, LiveServer, creation_body

from morale.app.http.server import create_app
from morale.app.roster import load_roster
from morale.app.service import load, reveal, start_battle
from morale.core.dice import commitment
from morale.core.referee import next_phase
from morale.events.codec import encode
from morale.events.store import BattleExists, SqliteEventStore
from morale.events.types import AnyEvent, BattleStarted, CasualtiesSuffered, PhaseEnded, PhaseStarted
from morale.projections.verify import verify

ROOT = Path(__file__).resolve().parent.parent
ROSTER = ROOT / "examples" / "wh40k6" / "roster.toml"
MORALE = str(Path(sys.executable).parent / "morale")  # the installed command, as a shell runs it
WAIT_S = 60.0  # the most a test waits for a process: a bound for a hung one, never a reason to pass
WRITERS = 6


def either_roster(tmp_path: Path) -> Path:
    """The example roster with dice the engine may roll: `morale new` keeps a secret for it."""
    roster = tmp_path / "either.toml"
    roster.write_text(ROSTER.read_text().replace('dice = "table"', 'dice = "either"', 1))
    return roster


def at_once(commands: list[list[str]]) -> list[subprocess.CompletedProcess]:
    """Start every command before waiting for any, and collect how each ended."""
    started = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for c in commands]
    done = []
    for command, process in zip(commands, started, strict=True):
        out, err = process.communicate(timeout=WAIT_S)
        done.append(subprocess.CompletedProcess(command, process.returncode, out, err))
    return done


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([MORALE, *args], capture_output=True, text=True, timeout=WAIT_S)


def started_event(store: SqliteEventStore, battle: str) -> BattleStarted:
    first = next(store.read(battle)).event
    assert isinstance(first, BattleStarted)
    return first


# -- starting one battle from several writers -------------------------------------------------------
def test_six_processes_starting_one_battle_leave_one_battle_whose_dice_secret_matches_it(tmp_path):
    db = str(tmp_path / "race.db")  # not there yet: the six also race to set up the store
    done = at_once([[MORALE, "new", str(either_roster(tmp_path)), "--battle", "r1", "--db", db]] * WRITERS)
    assert sorted(d.returncode for d in done) == [0] + [2] * (WRITERS - 1), [d.stderr for d in done]
    assert {d.stderr for d in done if d.returncode} == {"refused: battle: battle 'r1' already exists in this store\n"}
    store = SqliteEventStore(db)
    assert store.battles() == ["r1"] and store.last_seq("r1") == 9  # one battle_started, 8 units
    assert commitment(store.dice_secret("r1")) == started_event(store, "r1").dice_commitment
    revealed = run("reveal", "r1", "--db", db)
    assert revealed.returncode == 0, revealed.stderr
    assert verify("r1", store.raw_rows("r1")).ok


class RivalFirst(SqliteEventStore):
    """A store on which a rival writer starts the same battle, from its own connection, just after
    this writer has looked and found no such battle: the unlucky moment of a real race, every time."""

    def __init__(self, path: Path, rival: Callable[[], None]) -> None:
        super().__init__(path)
        self.rival: Callable[[], None] | None = rival

    def last_seq(self, battle: str) -> int:
        seen = super().last_seq(battle)
        if self.rival is not None:
            rival, self.rival = self.rival, None
            rival()
        return seen


def test_a_writer_that_loses_the_race_to_start_a_battle_keeps_the_winners_dice_secret(tmp_path):
    roster = load_roster(ROSTER)
    started = replace(roster.started, dice_policy="either")
    path = tmp_path / "race.db"
    SqliteEventStore(path).close()
    rival = SqliteEventStore(path)
    loser = RivalFirst(path, lambda: start_battle(rival, roster.battle, started, roster.units) and None)
    with pytest.raises(BattleExists, match="battle 'hive-tarsis' already exists"):
        start_battle(loser, roster.battle, started, roster.units)
    assert loser.last_seq(roster.battle) == 9  # the rival's battle, alone
    assert commitment(loser.dice_secret(roster.battle)) == started_event(loser, roster.battle).dice_commitment
    reveal(loser, load(loser, roster.battle))  # refused if the secret no longer hashes to the commitment
    assert verify(roster.battle, loser.raw_rows(roster.battle)).ok


def test_six_clients_creating_one_battle_over_http_get_one_201_and_five_409s(tmp_path):
    db = tmp_path / "served.db"
    body = creation_body(dice="either")
    answers: list[httpx.Response] = []
    with LiveServer(create_app(db)) as server:
        go = threading.Barrier(WRITERS)

        def create() -> None:
            with httpx.Client(base_url=server.url, timeout=WAIT_S) as client:
                go.wait(WAIT_S)
                answers.append(client.post("/battles", json=body))

        threads = [threading.Thread(target=create) for _ in range(WRITERS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(WAIT_S)
    assert sorted(a.status_code for a in answers) == [201] + [409] * (WRITERS - 1), [a.text for a in answers]
    refused = [a.json() for a in answers if a.status_code == 409]
    assert all(r["field"] == "battle" and "already exists" in r["detail"] for r in refused)
    store = SqliteEventStore(db)
    assert commitment(store.dice_secret(BATTLE)) == started_event(store, BATTLE).dice_commitment


def test_a_store_being_set_up_by_another_process_is_waited_for_not_refused_as_locked(tmp_path):
    # Another `morale new` is half-way through creating the same new file: SQLite refuses at once,
    # without waiting, to switch a file to WAL while another connection writes it.
    path = tmp_path / "new.db"
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    other.execute("CREATE TABLE being_set_up (x)")
    finish = threading.Timer(0.3, lambda: other.execute("COMMIT"))
    finish.start()
    try:
        created = morale(path, "new", str(ROSTER))
    finally:
        finish.join()
        other.close()
    assert created.exit_code == 0, created.stderr
    assert SqliteEventStore(path).battles() == ["hive-tarsis"]


# -- appending from several writers -----------------------------------------------------------------
@pytest.fixture
def db(tmp_path: Path) -> Path:
    """The example battle, created by `morale new`, with its first phase (movement) started."""
    path = tmp_path / "battles.db"
    assert morale(path, "new", str(ROSTER)).exit_code == 0
    assert morale(path, "next-phase", BATTLE).exit_code == 0
    return path


def rival_first(monkeypatch: pytest.MonkeyPatch, db: Path, event: AnyEvent) -> None:
    """The next append to `db` is beaten by a rival writing `event` from its own connection just
    before it: the unlucky moment of a real race, every time."""
    real = SqliteEventStore.append
    pending = [event]

    def append(self: SqliteEventStore, battle: str, events, expected_seq: int, *args, **kwargs):
        if pending:
            rival = SqliteEventStore(db)
            real(rival, battle, [pending.pop()], expected_seq)
            rival.close()
        return real(self, battle, events, expected_seq, *args, **kwargs)

    monkeypatch.setattr(SqliteEventStore, "append", append)


def logged(db: Path) -> list[tuple[int, AnyEvent]]:
    return [(stored.seq, stored.event) for stored in SqliteEventStore(db).read(BATTLE)]


def test_an_append_without_expect_that_another_writer_beat_is_decided_again_and_kept(db, monkeypatch):
    rival = CasualtiesSuffered(unit="boyz", count=1, cause="rival")
    rival_first(monkeypatch, db, rival)
    appended = morale(db, "append", BATTLE, "casualties_suffered", "unit=kraak", "count=1")
    assert appended.exit_code == 0, appended.stderr
    assert logged(db)[-2:] == [(11, rival), (12, CasualtiesSuffered(unit="kraak", count=1))]
    assert verify(BATTLE, SqliteEventStore(db).raw_rows(BATTLE)).ok


def test_an_append_decided_again_is_refused_if_the_new_position_forbids_it(db, monkeypatch):
    rival_first(monkeypatch, db, PhaseEnded(turn=1, side="imperium", phase="movement"))
    ended = morale(db, "append", BATTLE, "phase_ended", "turn=1", "side=imperium", "phase=movement")
    assert ended.exit_code == 2
    assert ended.stderr.startswith("refused: engine.clock.order: cannot end turn 1, imperium, movement: no phase")
    assert [type(event) for _, event in logged(db)[-2:]] == [PhaseStarted, PhaseEnded]  # the rival's alone


def test_an_append_with_expect_that_another_writer_beat_is_refused_as_it_asked(db, monkeypatch):
    rival = CasualtiesSuffered(unit="boyz", count=1, cause="rival")
    rival_first(monkeypatch, db, rival)
    appended = morale(db, "append", BATTLE, "--expect", "10", "casualties_suffered", "unit=kraak", "count=1")
    assert appended.exit_code == 2
    assert "is at sequence 11, not 10; another writer got there first" in appended.stderr
    assert logged(db)[-1] == (11, rival)


# -- several processes at once, and one killed -------------------------------------------------------
APPENDS = 2
WRITING = list(enumerate(("boyz", "kraak", "grots")))  # (writer, its unit): no unit loses its last model


def test_several_processes_appending_at_once_lose_nothing_and_double_nothing(db):
    # Each writer records its casualties one `morale append` at a time, each tagged in its `cause`;
    # it prints the tag of any append that was refused.
    script = 'for i in $(seq "$3"); do "$0" append "$1" casualties_suffered unit="$2" count=1 cause="$4-$i" '
    script += '--db "$5" >/dev/null || echo "$4-$i"; done'
    done = at_once([["sh", "-c", script, MORALE, BATTLE, u, str(APPENDS), f"w{k}", str(db)] for k, u in WRITING])
    refused = {tag for d in done for tag in d.stdout.split()}
    # A refusal, if a writer lost every attempt, may only be the race itself: nothing else is wrong.
    assert all("another writer got there first" in line for d in done for line in d.stderr.splitlines())
    kept = [event.cause for _, event in logged(db) if isinstance(event, CasualtiesSuffered)]
    tags = {f"w{k}-{i}" for k, _ in WRITING for i in range(1, APPENDS + 1)}
    assert sorted(kept) == sorted(tags - refused)  # each kept append once, no refused one, nothing else
    assert verify(BATTLE, SqliteEventStore(db).raw_rows(BATTLE)).ok  # seqs 1..N, unbroken chain


def clock_events(db: Path, count: int) -> list[bytes]:
    """`count` valid events after the log's end: phases started and ended, in the ruleset's order."""
    fold = load(SqliteEventStore(db), BATTLE)
    lines = []
    for seq in range(fold.seq + 1, fold.seq + count + 1):
        state = fold.state()
        if state.phase_open:
            event: AnyEvent = PhaseEnded(turn=state.turn, side=state.active_side or "", phase=state.phase or "")
        else:
            turn, side, phase = next_phase(state)
            event = PhaseStarted(turn=turn, side=side, phase=phase)
        fold.advance(seq, event)
        lines.append(encode(event))
    return lines


def size_of(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:  # not there yet, or gone with the last connection to its store
        return 0


def test_a_batch_killed_while_it_is_written_leaves_all_of_it_or_none(db, tmp_path):
    batch = tmp_path / "batch.ndjson"
    batch.write_bytes(b"\n".join(clock_events(db, 5000)) + b"\n")
    before = SqliteEventStore(db).last_seq(BATTLE)
    wal = Path(f"{db}-wal")
    size = size_of(wal)
    command = [MORALE, "append", BATTLE, "--file", str(batch), "--db", str(db)]
    writer = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    try:
        # Kill it (SIGKILL) as soon as its one transaction starts writing pages to the WAL, or at
        # once if it has ended. Wherever the kill lands, the answer must be the same: all or nothing.
        while writer.poll() is None and size_of(wal) <= size:
            time.sleep(0.0005)
        writer.kill()
    finally:
        writer.wait(WAIT_S)
    store = SqliteEventStore(db)
    after = store.last_seq(BATTLE)
    assert after in (before, before + 5000)
    assert verify(BATTLE, store.raw_rows(BATTLE)).ok
    # And the store is not left locked: the next writer records the next phase.
    assert morale(db, "next-phase", BATTLE).exit_code == 0
    assert store.last_seq(BATTLE) == after + 1
