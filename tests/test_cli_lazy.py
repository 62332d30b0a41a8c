"""`morale`'s commands are built as they are asked for, from the table in app/cli/commands.py (each
command's module and its line of help): the table must say what the modules register, in the order
`morale -h` lists them, or a command would be missing, misplaced or described in other words."""

from __future__ import annotations

import importlib
import subprocess
import sys

import typer.main

from morale.app.cli import app
from morale.app.cli.commands import COMMANDS


def registered() -> list[tuple[str, str, str]]:
    """What the command modules register on `app` once all are imported: each command's name, the
    module that defines it and its help shortened as `morale -h` has it, commands before groups, as
    Typer lists them."""
    for module in dict.fromkeys(listed.module for listed in COMMANDS.values()):
        importlib.import_module(f"morale.app.cli.{module}")
    found = []
    for command in app.registered_commands:
        assert command.callback is not None
        name = command.name or typer.main.get_command_name(command.callback.__name__)
        built = typer.main.get_command_from_info(command, pretty_exceptions_short=True, rich_markup_mode=None)
        found.append((name, command.callback.__module__, built.get_short_help_str(10**6)))
    for group in app.registered_groups:
        assert group.name is not None and group.typer_instance is not None
        callback = group.typer_instance.registered_callback
        assert callback is not None and callback.callback is not None
        built = typer.main.get_group_from_info(
            group, pretty_exceptions_short=True, rich_markup_mode=None, suggest_commands=True
        )
        found.append((group.name, callback.callback.__module__, built.get_short_help_str(10**6)))
    return found


def test_the_table_names_every_command_with_its_module_and_its_help():
    listed = {name: (f"morale.app.cli.{entry.module}", entry.help) for name, entry in COMMANDS.items()}
    assert listed == {name: (module, short) for name, module, short in registered()}


def test_the_table_lists_a_modules_commands_in_the_order_the_module_defines_them():
    # `morale -h` lists them in the table's order: a command added to a module goes beside its own.
    table = list(COMMANDS)
    for module in {listed.module for listed in COMMANDS.values()}:
        defined = [name for name, where, _ in registered() if where == f"morale.app.cli.{module}"]
        assert sorted(defined, key=table.index) == defined


def test_a_command_imports_its_own_module_and_not_the_others():
    script = (
        "import sys; sys.argv = ['morale', 'rules', '-h']\n"
        "from morale.app.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m.rsplit('.', 1)[1] for m in sys.modules if m.startswith('morale.app.cli.')))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    imported = set(done.stdout.splitlines()[-1].strip("[]").replace("'", "").split(", "))
    modules = {listed.module for listed in COMMANDS.values()}
    assert imported & modules == {"rules"}
