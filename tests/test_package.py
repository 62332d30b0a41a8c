"""What `pip install` of the built wheel gives: `python -m build` makes an sdist and, from it, a
wheel; `twine check` passes on both; the wheel installed (no dependencies) into a fresh venv gives a
working `morale`, with its example battles, its notation grammar, the report's styles and the
viewer's static files. The fresh venv borrows its dependencies from this suite's venv (installed
from requirements/lock.txt) through a .pth line, so the test needs no network; the repository is
not importable there."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BOUND_S = 300  # the most any one step may take


def run(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=BOUND_S)
    assert done.returncode == 0, f"{' '.join(map(str, args))} exited {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """sdist and wheel, built from a clean copy of the repository (no build/ or egg-info left here)."""
    source = tmp_path_factory.mktemp("source") / "morale"
    ignored = shutil.ignore_patterns(
        ".git",
        ".venv*",
        "*.db",
        "*.db-*",
        "__pycache__",
        ".*_cache",
        ".hypothesis",
        "screenshots",
        "build",
        "dist",
        "*.egg-info",
    )
    shutil.copytree(REPO, source, ignore=ignored)
    out = tmp_path_factory.mktemp("dist")
    run(sys.executable, "-m", "build", "--no-isolation", "--outdir", out, source, cwd=source)
    return out


def test_build_makes_an_sdist_and_a_wheel_that_twine_check_passes(dist):
    built = sorted(p.name for p in dist.iterdir())
    assert [name.split("-")[0] for name in built] == ["morale", "morale"]
    assert any(name.endswith(".whl") for name in built) and any(name.endswith(".tar.gz") for name in built)
    checked = run(sys.executable, "-m", "twine", "check", "--strict", *sorted(dist.iterdir()), cwd=dist)
    assert checked.stdout.count("PASSED") == 2


@pytest.fixture(scope="module")
def installed(dist, tmp_path_factory) -> Path:
    """A fresh venv holding the wheel; its `bin` folder."""
    home = tmp_path_factory.mktemp("fresh") / "venv"
    venv.create(home, with_pip=True)
    python = home / "bin" / "python"
    (wheel,) = dist.glob("*.whl")
    run(python, "-m", "pip", "install", "--no-deps", "--no-index", "--quiet", wheel, cwd=home)
    site = run(python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))", cwd=home).stdout.strip()
    Path(site, "suite-dependencies.pth").write_text(str(dependencies(tmp_path_factory.mktemp("borrowed"))) + "\n")
    return home / "bin"


def dependencies(folder: Path) -> Path:
    """The suite's site-packages as the fresh venv borrows it: every entry linked into `folder` but
    those of the games `make test` installs beside morale (examples/*/): a venv holding only the
    wheel has not installed them, and their metadata alone would name entry points it cannot load."""
    games = {
        tomllib.loads(project.read_text())["project"]["name"].replace("-", "_").lower()
        for project in REPO.glob("examples/*/pyproject.toml")
    }
    for entry in Path(sysconfig.get_path("purelib")).iterdir():
        name = entry.name.removeprefix("__editable__.").replace("-", "_").lower()
        if not any(name.startswith(game) for game in games):
            (folder / entry.name).symlink_to(entry)
    return folder


def test_the_installed_morale_comes_from_the_wheel_not_the_repository(installed, tmp_path):
    where = run(installed / "python", "-c", "import morale.app.cli as m; print(m.__file__)", cwd=tmp_path).stdout
    assert where.startswith(str(installed.parent)) and str(REPO) not in where
    assert run(installed / "morale", "--version", cwd=tmp_path).stdout.startswith("morale ")


def test_the_installed_morale_says_it_is_typed_so_a_game_of_its_own_package_type_checks_against_it(installed, tmp_path):
    where = run(installed / "python", "-c", "import morale.core as m; print(m.__file__)", cwd=tmp_path).stdout.strip()
    for package in ("core", "events", "projections", "app", "testing"):
        assert (Path(where).parent.parent / package / "py.typed").is_file(), package


def test_the_installed_morale_finds_its_games_and_its_pytest_plugin_through_their_entry_points(installed, tmp_path):
    listed = run(installed / "morale", "rulesets", "--json", cwd=tmp_path).stdout
    assert [r["id"] for r in json.loads(listed)] == ["wh40k6", "wh40k3", "wfb8", "gdb"]
    clauses = run(installed / "morale", "rules", "gdb", "--json", cwd=tmp_path).stdout  # its catalogue, shipped
    assert "gdb.results_table" in {c["id"] for c in json.loads(clauses)}
    plugin = "from importlib.metadata import entry_points as e; print(e(group='pytest11')['morale'].load().__name__)"
    assert run(installed / "python", "-c", plugin, cwd=tmp_path).stdout.strip() == "morale.testing.plugin"


def test_the_installed_morale_plays_reports_and_shares_its_examples(installed, tmp_path):
    morale = installed / "morale"
    run(morale, "examples", "--to", "examples", cwd=tmp_path)
    for name in ("wh40k6", "wh40k3", "wfb8", "gdb"):
        list_builder = {"roster.rosz", "answers.toml"} if name != "gdb" else set()
        assert {p.name for p in (tmp_path / "examples" / name).iterdir()} == {
            "roster.toml",
            "battle.ndjson",
            "battle.notation",
            *list_builder,
        }
    # the list builder's file and its answers are shipped too (defusedxml installed with morale)
    listed = "examples/wfb8/roster.rosz", "--answers", "examples/wfb8/answers.toml", "--db", "listed.db"
    assert "grunburg-bridge" in run(morale, "new", *listed, cwd=tmp_path).stdout
    run(morale, "new", "examples/wh40k6/roster.toml", cwd=tmp_path)
    run(morale, "append", "hive-tarsis", "--file", "examples/wh40k6/battle.ndjson", cwd=tmp_path)
    assert "OK" in run(morale, "verify", "hive-tarsis", cwd=tmp_path).stdout
    run(morale, "notation", "import", "examples/gdb/battle.notation", cwd=tmp_path)  # the grammar is shipped
    same = run(
        morale, "notation", "import", "examples/wh40k6/battle.notation", "--verify-against", "morale.db", cwd=tmp_path
    )
    assert "the same" in same.stdout
    run(morale, "report", "hive-tarsis", "-o", "report.html", cwd=tmp_path)
    assert "Gretchin Mob" in (tmp_path / "report.html").read_text(encoding="utf-8")  # the styles are inlined too
    run(morale, "tables", "--all", cwd=tmp_path)


def test_the_installed_server_serves_the_consoles_static_files(installed, tmp_path):
    """The console's page, its modules, styles, the Redoc that draws /schema and the stream overlays come
    with the wheel."""
    script = (
        "from litestar.testing import TestClient\n"
        "from morale.app.http.server import create_app\n"
        "with TestClient(create_app('served.db')) as client:\n"
        "    page = client.get('/view')\n"
        "    assert page.status_code == 200 and '/static/js/main.js' in page.text, page.status_code\n"
        "    for name in ('js/main.js', 'js/api.js', 'console.css', 'vendor/redoc.standalone.js'):\n"
        "        assert client.get('/static/' + name).status_code == 200, name\n"
        "    assert 'redoc.standalone.js' in client.get('/schema').text\n"
        "    assert '/static/overlay/banner.js' in client.get('/overlay/banner').text\n"
        "    for name in ('banner.js', 'worker.js', 'stream.js', 'overlay.css'):\n"
        "        assert client.get('/static/overlay/' + name).status_code == 200, name\n"
        "print('served')\n"
    )
    assert run(installed / "python", "-c", script, cwd=tmp_path).stdout.strip() == "served"
