"""The commands a Markdown page shows, run as the page says: the README's (tests/test_readme.py) and
every documentation page's (tests/test_docs.py).

Every ```sh block's lines run, in order, in a fresh folder, and so does every ```python block (a
program of its own, run by the venv's `python` where it stands among the commands, with what the
commands before it set in its environment: `os.environ["REFEREE"]`).

A small extractor of our own rather than a cram-style tool (prysk): the pages show commands with
comments, not transcripts of their output, and some of them start servers or follow a feed for
ever, which a transcript cannot express. What a line's trailing comment says decides how it runs:

- `# refused: ...`: the page says the command is refused, so it must exit 2 (and nothing else).
- `# runs until Ctrl-C...`: started in the background; a server must answer on its port, a follower
  must print something. It is stopped when the next one starts, or at the end.
- every other command must exit 0.

All the blocks of a run go into one bash script, so what one line sets (an activated venv,
`TOKEN=...`) holds for the next. The folder is a copy of the repository with `.venv` linked to the
suite's own, and `make` is told its install steps are done (`-o`): the suite never reinstalls
itself. The pages' ports (8000, and 8001 and 8002 for two nodes) become free ones, and their
PostgreSQL URL a database of this run's own. A server started in the background stops the one before
it on the same port, and the followers. `make test` is this suite itself: it is never run here.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from .served import ROOT

SUITE = "make test"
REFUSED = "refused:"
BACKGROUND = "runs until Ctrl-C"
PAGE_PORT = "8000"
PAGE_PORTS = (PAGE_PORT, "8001", "8002", "8003")  # the default, two nodes side by side, a webhook receiver
PAGE_DATABASE = "postgresql://morale:change-me@127.0.0.1:5432/morale"
EXIT_REFUSED = 2
SCRIPT_TIMEOUT_S = 600


@dataclass(frozen=True)
class Command:
    line: int  # in its page
    text: str  # the command without its comment (a Python block: the whole program)
    comment: str
    python: bool = False  # a ```python block, run as one program
    page: str = "README.md"  # the page it is shown on, relative to the repository

    @property
    def refused(self) -> bool:
        return self.comment.startswith(REFUSED)

    @property
    def background(self) -> bool:
        return self.comment.startswith(BACKGROUND)

    @property
    def key(self) -> str:
        """The name of what it printed, unique among the pages of one run: `docs-feed-md-42`."""
        return f"{re.sub(r'[^A-Za-z0-9]+', '-', self.page)}-{self.line}"

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


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


def page_commands(text: str, page: str = "README.md") -> list[Command]:
    """Every command of every ```sh block, in order (comment lines and blank lines are not commands),
    and every ```python block as one command, where it stands."""
    commands = []
    fence: str | None = None  # the language of the block being read ("" for a bare one); None outside
    program: list[str] = []
    start = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("```"):
            if fence == "python":
                commands.append(Command(start, "\n".join(program) + "\n", "", python=True, page=page))
            fence = line.strip().removeprefix("```") if fence is None else None
            program, start = [], number
            continue
        if fence == "python":
            program.append(line)
        elif fence == "sh" and line.strip() and not line.lstrip().startswith("#"):
            command, comment = split_comment(line)
            commands.append(Command(number, command, comment, page=page))
    return commands


def as_run_here(command: Command, ports: dict[str, int], database: str = PAGE_DATABASE) -> str:
    """The command as this suite runs it: on free ports, on this run's database, and `make` without
    installing anything."""
    text = command.text.replace(PAGE_DATABASE, database)
    for page_port, port in ports.items():
        text = text.replace(page_port, str(port))
    if text.startswith("make "):
        done = " ".join(f"-o .venv/.installed-{part}" for part in ("app", "test", "bench"))
        text = f"make {done} PORT={ports[PAGE_PORT]} {text.removeprefix('make ')}"
    return text


def port_of(command: Command) -> str:
    """The page's port a command serves or follows on (the default one if it names none)."""
    return next((p for p in PAGE_PORTS if p in command.text), PAGE_PORT)


def script(
    commands: list[Command], ports: dict[str, int], out: Path, database: str = PAGE_DATABASE, first: str = ":"
) -> str:
    """One bash script: each command's output in `out/KEY`, its exit code appended to `out/codes`.
    `first` runs before them all (the docs' pages: the venv activated, as the README says to)."""
    lines = [
        "set -a",  # what a line sets (TOKEN=...) reaches a command started in the background too
        "followers=''",
        *(f"server_{p}=''" for p in ports.values()),
        "stop() { for pid in $@; do kill -TERM -- -$pid 2>/dev/null; wait $pid; done; }",
        "trap 'stop $followers " + " ".join(f"$server_{p}" for p in ports.values()) + "' EXIT",
        first,
    ]
    for command in commands:
        log = out / command.key
        run = as_run_here(command, ports, database)
        port = ports[port_of(command)]
        if command.text == SUITE:
            continue
        if command.python:
            program = out / f"{command.key}.py"
            program.write_text(run)
            lines += [f"{{ python {program}\n}} >{log} 2>&1 </dev/null", f"echo {command.key} $? >>{out}/codes"]
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
                f"kill -0 $! 2>/dev/null; echo {command.key} $? >>{out}/codes",
            ]
        else:
            lines += [f"{{ {run}\n}} >{log} 2>&1 </dev/null", f"echo {command.key} $? >>{out}/codes"]
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
    codes: dict[str, int]  # by Command.key
    out: Path
    ports: dict[str, int]
    folder: Path  # the clone the commands ran in

    def printed(self, command: Command) -> str:
        return (self.out / command.key).read_text()

    def output(self, fragment: str) -> str:
        """What the first command containing `fragment` printed."""
        return self.printed(next(c for c in self.commands if fragment in c.text))

    def wrong_exits(self) -> list[str]:
        """Each command that exited otherwise than its page says, with the end of what it printed."""
        wrong = []
        for command in self.commands:
            if command.text == SUITE:
                continue
            expected = EXIT_REFUSED if command.refused else 0
            got = self.codes.get(command.key)
            if got != expected:
                printed = self.printed(command)[-2000:]
                wrong.append(f"{command.where}: {command.text!r} exited {got}, not {expected}\n{printed}")
        return wrong


IGNORED = shutil.ignore_patterns(
    ".git", ".venv*", "*.db", "*.db-*", "__pycache__", ".*_cache", ".hypothesis", "node_modules", "site", "screenshots"
)


def run_in_a_clone(commands: list[Command], workspace: Path, database: str, first: str = ":") -> Run:
    """Every command in a fresh copy of the repository under `workspace`, as one bash script."""
    folder = workspace / "morale"
    shutil.copytree(ROOT, folder, ignore=IGNORED)  # copy2 keeps mtimes, so make's stamps stay current
    (folder / ".venv").symlink_to(Path(sys.prefix))
    out = workspace / "output"
    out.mkdir()
    path = out / "commands.sh"
    ports = {page_port: free_port() for page_port in PAGE_PORTS}
    path.write_text(script(commands, ports, out, database, first))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MORALE_", "VIRTUAL_ENV"))}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if not p.startswith(sys.prefix))
    done = subprocess.run(
        ["bash", str(path)], cwd=folder, env=env, timeout=SCRIPT_TIMEOUT_S, start_new_session=True, check=False
    )
    assert done.returncode == 0
    codes = {key: int(code) for key, code in (row.split() for row in (out / "codes").read_text().splitlines())}
    return Run(commands, codes, out, ports, folder)


def nothing_listens(run: Run) -> list[int]:
    """The ports of the run's servers still answering (none should be, once its script ended)."""
    answering = []
    for port in run.ports.values():
        with socket.socket() as sock:
            try:
                sock.connect(("127.0.0.1", port))
            except ConnectionRefusedError:
                continue
            answering.append(port)
    return answering
