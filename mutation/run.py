"""Mutation testing of the referee: small changes to the rules code, each of which the suite should catch.

Run by hand (`make mutate`), never by `make test`. Each module of the rules is mutated by cosmic-ray
(one change at a time: a comparison flipped, `and` for `or`, True for False, a number changed, a
`not` added, a loop that never runs) and, for each change, the tests of that module's ruleset run;
a change that no test notices *survives*. A full run of every module takes hours on a 2-core
machine, so by default each module gets a seeded sample of its mutants (`--sample`; 0 for all).

    .venv/bin/python mutation/run.py                       # every module, 25 mutants each
    .venv/bin/python mutation/run.py --sample 0 core/rulesets/wh40k/sixth.py

It prints, for each module, how many mutants ran and were killed, and every survivor as a diff, and
writes the same into mutation/last-run.md. MUTATION.md holds the recorded score and why each
survivor we keep is harmless.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult

ROOT = Path(__file__).resolve().parents[1]
PYTEST = f"{sys.executable} -m pytest -x -q -p no:cacheprovider -o addopts="


def tests_of(*patterns: str) -> str:
    """The test files the patterns name, but the property tests and the CLI's: a mutant runs the fast
    tests that speak for its rules (hypothesis's and the subprocesses' minutes are for `make test`)."""
    found = sorted({p for pattern in patterns for p in ROOT.glob(pattern)})
    return " ".join(str(p.relative_to(ROOT)) for p in found if "properties" not in p.name and "_cli" not in p.name)


# The odds (`result_of`) are each ruleset's own reading of a roll: test_odds.py speaks for them all.
RULESET_TESTS = {
    "wh40k6": tests_of("tests/test_wh40k6_*.py", "tests/test_example_battle.py", "tests/test_odds.py"),
    "wh40k3": tests_of("tests/test_wh40k3_*.py", "tests/test_example_battle_wh40k3.py", "tests/test_odds.py"),
    "wfb8": tests_of("tests/test_wfb8_*.py", "tests/test_odds.py"),
    "gdb": tests_of("tests/test_gdb_*.py", "tests/test_odds.py"),
}
# The engine's own modules: every ruleset's example battle, the referee's and apply's tests and the
# 40K 6th rules.
ENGINE_TESTS = tests_of(
    "tests/test_wh40k6_*.py",
    "tests/test_referee.py",
    "tests/test_apply.py",
    "tests/test_odds.py",
    "tests/test_*example*.py",
)
ALL_RULES = " ".join(RULESET_TESTS.values())
# Each module, and the tests that speak for it.
MODULES = {
    "core/rulesets/wh40k/sixth.py": RULESET_TESTS["wh40k6"],
    "core/rulesets/wh40k/third.py": RULESET_TESTS["wh40k3"],
    "core/rulesets/wh40k/shared.py": RULESET_TESTS["wh40k6"] + " " + RULESET_TESTS["wh40k3"],
    "core/rulesets/wfb8/ruleset.py": RULESET_TESTS["wfb8"],
    "core/rulesets/wfb8/combat.py": RULESET_TESTS["wfb8"],
    **{
        f"core/rulesets/gdb/{name}.py": RULESET_TESTS["gdb"]
        for name in ("ruleset", "results", "triggers", "modifiers", "neighbours", "brigade", "profile", "tables")
    },
    **{f"core/{name}.py": ENGINE_TESTS for name in ("evolve", "reactions", "engine", "apply", "machine")},
    # The referee's checks and the rulesets' base serve every ruleset; only Fantasy orders its tests.
    **{f"core/{name}.py": ENGINE_TESTS + " " + ALL_RULES for name in ("rulesets/base", "referee")},
    "core/order.py": ENGINE_TESTS + " " + RULESET_TESTS["wfb8"],
}
# The changes that say something about a rule. Arithmetic swaps beyond + and - (x for /, << for %)
# and the variable-shuffling operators mostly make code that crashes at once: left out.
KEPT_OPERATORS = (
    "core/ReplaceComparisonOperator_",
    "core/ReplaceAndWithOr",
    "core/ReplaceOrWithAnd",
    "core/ReplaceTrueWithFalse",
    "core/ReplaceFalseWithTrue",
    "core/AddNot",
    "core/NumberReplacer",
    "core/ReplaceBinaryOperator_Add_Sub",
    "core/ReplaceBinaryOperator_Sub_Add",
    "core/ZeroIterationForLoop",
    "core/ReplaceUnaryOperator_Delete_Not",
    "core/ReplaceUnaryOperator_USub_UAdd",
)


def config(module: str, tests: str, timeout: float) -> str:
    return (
        "[cosmic-ray]\n"
        f'module-path = "{module}"\n'
        f"timeout = {timeout}\n"
        "excluded-modules = []\n"
        f'test-command = "bash -c \\"{PYTEST} {tests}\\""\n'
        '[cosmic-ray.distributor]\nname = "local"\n'
    )


# `==` for `is` (and back) on the short strings the rules compare gives the same answer: never a finding.
IDENTITY = re.compile(r"_(Is|IsNot)(_|$)")


def keep_sample(session: Path, size: int, seed: int) -> int:
    """Mark all but the kept operators, and all but `size` of those (0: all), as skipped."""
    skipped = WorkResult(worker_outcome=WorkerOutcome.SKIPPED, output="not in this run's sample")
    with use_db(str(session), WorkDB.Mode.open) as db:
        items = list(db.pending_work_items)
        kept = [
            i
            for i in items
            if all(
                m.operator_name.startswith(KEPT_OPERATORS) and not IDENTITY.search(m.operator_name) for m in i.mutations
            )
        ]
        chosen = kept if size == 0 or size >= len(kept) else random.Random(seed).sample(kept, size)
        ids = {i.job_id for i in chosen}
        for item in items:
            if item.job_id not in ids:
                db.set_result(item.job_id, skipped)
        return len(chosen)


def run_module(module: str, tests: str, sample: int, seed: int, timeout: float, work: Path) -> tuple[int, int, list]:
    name = module.replace("/", "_")
    cfg, session = work / f"{name}.toml", work / f"{name}.sqlite"
    if session.exists():  # a run stopped part-way (`--work`): cosmic-ray goes on with what is pending
        with use_db(str(session), WorkDB.Mode.open) as db:
            ran = sum(1 for _, r in db.completed_work_items if r.worker_outcome != WorkerOutcome.SKIPPED)
            ran += sum(1 for _ in db.pending_work_items)
        print(f"{module}: going on with the run in {session}", flush=True)
    else:
        cfg.write_text(config(module, tests, timeout))
        subprocess.run(["cosmic-ray", "init", str(cfg), str(session)], cwd=ROOT, check=True, env=_env())
        ran = keep_sample(session, sample, seed)
    subprocess.run(["cosmic-ray", "exec", str(cfg), str(session)], cwd=ROOT, check=True, env=_env())
    survivors, killed = [], 0
    with use_db(str(session), WorkDB.Mode.open) as db:
        for item, result in db.completed_work_items:
            if result.worker_outcome == WorkerOutcome.SKIPPED:
                continue
            if result.test_outcome == TestOutcome.SURVIVED:
                survivors.append((item.mutations[0], result.diff or ""))
            else:
                killed += 1
    return ran, killed, survivors


def _env() -> dict[str, str]:
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("modules", nargs="*", help="modules to mutate (default: every module of the rules)")
    parser.add_argument("--sample", type=int, default=25, help="mutants per module, seeded (0: all)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds a mutant's tests may take")
    parser.add_argument(
        "--work",
        type=Path,
        help="a folder to keep each module's results in: run again with the same folder, a stopped run goes on",
    )
    args = parser.parse_args()
    unknown = [m for m in args.modules if m not in MODULES]
    if unknown:
        parser.error(f"no tests are named for {', '.join(unknown)} (known: {', '.join(MODULES)})")
    baseline = subprocess.run(["bash", "-c", f"{PYTEST} {ALL_RULES}"], cwd=ROOT, env=_env())
    if baseline.returncode != 0:
        sys.exit("the rules' tests fail without any mutant: fix them first")
    lines, total, total_killed = [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work.resolve() if args.work else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        for module in args.modules or list(MODULES):
            ran, killed, survivors = run_module(module, MODULES[module], args.sample, args.seed, args.timeout, work)
            total, total_killed = total + ran, total_killed + killed
            found = [f"## {module}: {killed} of {ran} killed\n"]
            for mutation, diff in survivors:
                where = f"line {mutation.start_pos[0]}, {mutation.operator_name}"
                found.append(f"- survived: {where}\n\n```diff\n{diff.strip()}\n```\n")
            print(*found, sep="\n", flush=True)
            lines += found
    percent = 100 * total_killed / max(total, 1)
    score = (
        f"# Mutation run: {total_killed} of {total} killed ({percent:.0f}%), sample {args.sample}, seed {args.seed}\n\n"
    )
    (ROOT / "mutation" / "last-run.md").write_text(score + "\n".join(lines), encoding="utf-8")
    print(score)


if __name__ == "__main__":
    main()
