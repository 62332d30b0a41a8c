"""The README is a contract: every shell block in it runs here, in order, in a fresh folder, and so
does every Python block (a program of its own, run by the venv's `python` where it stands among the
commands, with what the commands before it set in its environment: `os.environ["REFEREE"]`).

A small extractor of our own rather than a cram-style tool (prysk): the README shows commands with
comments, not transcripts of their output, and some of them start servers or follow a feed for
ever, which a transcript cannot express. What a line's trailing comment says decides how it runs:

- `# refused: ...`: the README says the command is refused, so it must exit 2 (and nothing else).
- `# runs until Ctrl-C...`: started in the background; a server must answer on its port, a follower
  must print something. It is stopped when the next one starts, or at the end.
- every other command must exit 0.

All blocks run as one bash script, so what one line sets (an activated venv, `TOKEN=...`) holds for
the next. The folder is a copy of the repository with `.venv` linked to the suite's own, and `make`
is told its install steps are done (`-o`): the suite never reinstalls itself. The README's ports
(8000, and 8001 and 8002 for two nodes) become free ones, and its PostgreSQL URL a database of this
run's own. A server started in the background stops the one before it on the same port, and the
followers. `make test` is this suite itself: it is not run again here, but `.ci/run` must run exactly it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from morale.core.replay import Replay
from morale.events.store import SqliteEventStore
from morale.projections.feed import follow

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
SUITE = "make test"
REFUSED = "refused:"
BACKGROUND = "runs until Ctrl-C"
README_PORT = "8000"
README_PORTS = (README_PORT, "8001", "8002", "8003")  # the default, two nodes side by side, a webhook receiver
README_DATABASE = "postgresql://morale:change-me@127.0.0.1:5432/morale"
EXIT_REFUSED = 2


@dataclass(frozen=True)
class Command:
    line: int  # in README.md
    text: str  # the command without its comment (a Python block: the whole program)
    comment: str
    python: bool = False  # a ```python block, run as one program

    @property
    def refused(self) -> bool:
        return self.comment.startswith(REFUSED)

    @property
    def background(self) -> bool:
        return self.comment.startswith(BACKGROUND)


def split_comment(line: str) -> tuple[str, str]:
    """The command and its trailing comment: a `#` after white space, outside quotes (a URL's `#`
    fragment or a quoted `#` belong to the command)."""
    quote = ""
    for i, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i + 1 :].strip()
    return line.rstrip(), ""


def readme_commands(text: str) -> list[Command]:
    """Every command of every ```sh block, in order (comment lines and blank lines are not commands),
    and every ```python block as one command, where it stands."""
    commands = []
    fence: str | None = None  # the language of the block being read ("" for a bare one); None outside
    program: list[str] = []
    start = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("```"):
            if fence == "python":
                commands.append(Command(start, "\n".join(program) + "\n", "", python=True))
            fence = line.strip().removeprefix("```") if fence is None else None
            program, start = [], number
            continue
        if fence == "python":
            program.append(line)
        elif fence == "sh" and line.strip() and not line.lstrip().startswith("#"):
            command, comment = split_comment(line)
            commands.append(Command(number, command, comment))
    return commands


def as_run_here(command: Command, ports: dict[str, int], database: str = README_DATABASE) -> str:
    """The command as this suite runs it: on free ports, on this run's database, and `make` without
    installing anything."""
    text = command.text.replace(README_DATABASE, database)
    for readme_port, port in ports.items():
        text = text.replace(readme_port, str(port))
    if text.startswith("make "):
        done = " ".join(f"-o .venv/.installed-{part}" for part in ("app", "test", "bench"))
        text = f"make {done} PORT={ports[README_PORT]} {text.removeprefix('make ')}"
    return text


def port_of(command: Command) -> str:
    """The README port a command serves or follows on (the default one if it names none)."""
    return next((p for p in README_PORTS if p in command.text), README_PORT)


def script(commands: list[Command], ports: dict[str, int], out: Path, database: str = README_DATABASE) -> str:
    """One bash script: each command's output in `out/LINE`, its exit code appended to `out/codes`."""
    lines = [
        "set -a",  # what a line sets (TOKEN=...) reaches a command started in the background too
        "followers=''",
        *(f"server_{p}=''" for p in ports.values()),
        "stop() { for pid in $@; do kill -TERM -- -$pid 2>/dev/null; wait $pid; done; }",
        "trap 'stop $followers " + " ".join(f"$server_{p}" for p in ports.values()) + "' EXIT",
    ]
    for command in commands:
        log = out / str(command.line)
        run = as_run_here(command, ports, database)
        port = ports[port_of(command)]
        if command.text == SUITE:
            continue
        if command.python:
            program = out / f"{command.line}.py"
            program.write_text(run)
            lines += [f"{{ python {program}\n}} >{log} 2>&1 </dev/null", f"echo {command.line} $? >>{out}/codes"]
            continue
        if command.background:
            # Its own process group, so that stopping it stops what it started (make -> morale serve).
            # A new server takes its port from the one before, and stops the followers; a follower
            # runs beside its server.
            started = f"server_{port}" if "serve" in command.text else "followers"
            lines += [
                f"stop $followers $server_{port}; followers=''" if "serve" in command.text else ":",
                f'setsid bash -c {quote(run)} >{log} 2>&1 & {started}="${started} $!"',
                f"for _ in $(seq 200); do (: </dev/tcp/127.0.0.1/{port}) 2>/dev/null && [ -s {log} ] && break;"
                " kill -0 $! 2>/dev/null || break; sleep 0.1; done",
                f"kill -0 $! 2>/dev/null; echo {command.line} $? >>{out}/codes",
            ]
        else:
            lines += [f"{{ {run}\n}} >{log} 2>&1 </dev/null", f"echo {command.line} $? >>{out}/codes"]
    return "\n".join(lines) + "\n"


def quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Run:
    commands: list[Command]
    codes: dict[int, int]
    out: Path
    ports: dict[str, int]
    folder: Path  # the clone the commands ran in

    def output(self, fragment: str) -> str:
        """What the first command containing `fragment` printed."""
        command = next(c for c in self.commands if fragment in c.text)
        return (self.out / str(command.line)).read_text()


@pytest.fixture(scope="module")
def readme_run(tmp_path_factory, pg_server) -> Run:
    folder = tmp_path_factory.mktemp("clone") / "morale"
    ignored = shutil.ignore_patterns(
        ".git", ".venv*", "*.db", "*.db-*", "__pycache__", ".*_cache", ".hypothesis", "node_modules"
    )
    shutil.copytree(REPO, folder, ignore=ignored)  # copy2 keeps mtimes, so make's stamps stay current
    (folder / ".venv").symlink_to(Path(sys.prefix))
    out = tmp_path_factory.mktemp("readme-output")
    commands = readme_commands(README.read_text(encoding="utf-8"))
    path = out / "readme.sh"
    ports = {readme_port: free_port() for readme_port in README_PORTS}
    path.write_text(script(commands, ports, out, pg_server.database()))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MORALE_", "VIRTUAL_ENV"))}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if not p.startswith(sys.prefix))
    done = subprocess.run(["bash", str(path)], cwd=folder, env=env, timeout=600, start_new_session=True)
    assert done.returncode == 0
    codes = dict(tuple(map(int, row.split())) for row in (out / "codes").read_text().splitlines())
    return Run(commands, codes, out, ports, folder)


def test_the_readme_starts_with_the_two_commands_and_ci_runs_its_test_command():
    first = readme_commands(README.read_text(encoding="utf-8"))[:2]
    assert [c.text for c in first] == ["make demo", SUITE]
    ci = [line for line in (REPO / ".ci" / "run").read_text().splitlines() if line and not line.startswith("#")]
    assert ci[-1] == SUITE


def test_every_command_in_the_readme_exits_as_the_readme_says(readme_run):
    wrong = []
    for command in readme_run.commands:
        if command.text == SUITE:
            continue
        expected = EXIT_REFUSED if command.refused else 0
        got = readme_run.codes.get(command.line)
        if got != expected:
            printed = (readme_run.out / str(command.line)).read_text()[-2000:]
            wrong.append(f"README.md:{command.line}: {command.text!r} exited {got}, not {expected}\n{printed}")
    assert not wrong, "\n\n".join(wrong)


def test_a_refused_command_says_why_in_one_line(readme_run):
    refused = [c for c in readme_run.commands if c.refused]
    assert refused, "the README shows at least one refusal"
    for command in refused:
        printed = (readme_run.out / str(command.line)).read_text().strip().splitlines()
        assert len(printed) == 1 and printed[0].startswith("refused: "), (command.line, printed)


def test_the_walkthrough_reaches_a_due_test_rolls_it_and_shows_the_unit_fall_back(readme_run):
    due = readme_run.output("morale due hive-tarsis")
    assert "kraak" in due and "2D6" in due
    rows = re.split(r"\n│ (?=imperium|orks)", readme_run.output("morale board hive-tarsis"))
    (kraak,) = [row for row in rows if "kraak" in row]
    assert "falling back" in kraak and "7/10" in kraak
    assert "wh40k6.fall_back.start" in readme_run.output("morale explain hive-tarsis kraak")


def test_the_feed_shown_in_the_readme_delivers_the_battle(readme_run):
    followed = readme_run.output("curl ")
    assert '"seq":1' in followed and '"battle":"hive-tarsis"' in followed


def test_the_feed_in_the_readme_names_its_messages_and_carries_what_a_screen_shows(readme_run):
    sse = readme_run.output("feed?after=18")
    assert "event: dice_rolled\nid: 19\n" in sse and "event: test_resolved\nid: 19\n" in sse
    item = json.loads(readme_run.output("after=18&follow=false"))
    assert item["seq"] == 19 and item["units"] == {"nobz": {"name": "Nobz", "side": "orks"}}
    assert item["tests"][0]["name"] == "Morale test" and item["tests"][0]["odds"]["pass_ways"] == 21
    assert item["story"][1]["text"] == "Nobz fails the morale test: 5 + 4 = 9 against 7"
    described = json.loads(readme_run.output("asyncapi.json"))
    assert described["asyncapi"].startswith("3.") and "x-sse" in described["channels"]["sse"]


def test_the_python_client_in_the_readme_follows_appends_and_meets_a_conflict(readme_run):
    (example,) = [c for c in readme_run.commands if c.python and "BattleClient" in c.text]
    printed = (readme_run.out / str(example.line)).read_text().splitlines()
    assert printed[0] == "103 PhaseStarted(turn=3, side='orks', phase='assault')"  # typed, not a dict
    assert printed[1].startswith("104 PhaseEnded(turn=3, side='orks', phase='assault', state_digest='")
    assert printed[2].startswith("105 PhaseStarted(turn=4, side='imperium', phase='movement') Author(role='referee'")
    assert "label='python client'" in printed[2]
    assert printed[3:] == ["not written: the log ends at 105, not 104"]


def test_the_overlay_urls_in_the_readme_carry_the_overlay_token_in_the_fragment_and_are_served(readme_run):
    url = readme_run.output("/overlay/banner?size=large").strip()
    port = readme_run.ports["8000"]
    assert url.startswith(f"http://127.0.0.1:{port}/overlay/banner?size=large#battle=hive-tarsis&token=")
    assert len(url.split("token=")[1]) > 20  # the token the README issued, not an empty variable
    assert readme_run.output("overlay/ticker?theme=light").strip() == "200"
    refused = json.loads(readme_run.output("overlay/ticker?delay=later"))
    assert refused["status"] == 400 and refused["field"] == "delay"


def test_the_rules_command_prints_the_clause(readme_run):
    assert "table edge" in readme_run.output("morale rules wh40k6 wh40k6.fall_back.edge")


def test_the_two_nodes_in_the_readme_serve_one_battle_copied_from_sqlite(readme_run):
    copied = readme_run.output("morale copy --from served.db")
    assert "1 of 1 battles copied" in copied
    (verify,) = [c for c in readme_run.commands if c.text == "morale verify hive-tarsis"]  # on PostgreSQL
    head = re.search(r"head ([0-9a-f]{64})", copied)[1]  # type: ignore[index]
    # 105 events: the example battle's 104, and the one the Python client's example appended.
    assert f"OK (105 events, head {head})" in (readme_run.out / str(verify.line)).read_text()
    followed = readme_run.output("after=100")  # a follower of node two: the battle copied from SQLite
    assert '"seq":101' in followed and '"seq":105' in followed
    appended = readme_run.output("127.0.0.1:8001/battles/hive-tarsis/events")
    assert '"seq":106' in appended and '"phase":"movement"' in appended
    served = readme_run.output("after=105&follow=false")  # what node one took, as node two serves it
    assert [json.loads(line)["seq"] for line in served.splitlines() if line.strip()] == [106]


def test_no_server_started_by_the_readme_is_left_running(readme_run):
    for port in readme_run.ports.values():
        with socket.socket() as sock, pytest.raises(ConnectionRefusedError):
            sock.connect(("127.0.0.1", port))


@pytest.mark.parametrize(
    ("line", "command", "comment"),
    [
        ("morale due b   # why", "morale due b", "why"),
        ("open 'http://x/view#battle=b'  # a page", "open 'http://x/view#battle=b'", "a page"),
        ("curl http://x/view#battle=b", "curl http://x/view#battle=b", ""),
        ("morale roll b u morale 7 1  # refused: a die", "morale roll b u morale 7 1", "refused: a die"),
    ],
)
def test_a_comment_starts_at_a_hash_after_white_space_outside_quotes(line, command, comment):
    assert split_comment(line) == (command, comment)


def test_every_readme_command_is_one_line():
    # A `\\` continuation would be run as two commands: the README keeps each on one line.
    assert not [c.line for c in readme_commands(README.read_text(encoding="utf-8")) if c.text.endswith("\\")]


def test_the_webhook_receiver_in_the_readme_verifies_each_delivery_and_prints_its_story(readme_run):
    said = readme_run.output("examples/webhooks/chat.py").splitlines()
    assert said[0].startswith("listening on http://127.0.0.1:")
    # The hook was registered from event 101: items 101 to 105 (the Python client's), each once, in order.
    store = SqliteEventStore(readme_run.folder / "served.db")
    items = [i for i in follow(Replay("hive-tarsis"), store.read("hive-tarsis")) if 101 <= i.seq <= 105]
    assert said[1:] == [line.text for item in items for line in item.story], said
