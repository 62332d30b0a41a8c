"""Writes the project's own list builder rosters (BattleScribe's roster schema, rosterSchema
namespace): examples/*/roster.rosz, the example battles as a player's list builder would export
them, and tests/fixtures/battlescribe/*.ros. Run `python -m tests.support.list_rosters` to write
them again after changing a unit here; the files are kept in the repository as written.

Each unit is (custom name, entry name, [models], [rule names], [upgrade names]) and each model
(entry name, count, {characteristic: value}, and any mount's (name, {characteristic: value}) in the
same selection). Ids are made from the names, so the files are the same at every run
(tests/test_list_rosters.py checks the kept files are these).
"""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path
from xml.etree import ElementTree
from xml.sax.saxutils import quoteattr

ROOT = Path(__file__).resolve().parents[2]
NAMESPACE = "http://www.battlescribe.net/schema/rosterSchema"
FORTY_K = ("WS", "BS", "S", "T", "W", "I", "A", "Ld", "Sv")
FANTASY = ("M", "WS", "BS", "S", "T", "W", "I", "A", "Ld")


def ident(*parts: str) -> str:
    digest = hashlib.sha256("/".join(parts).encode()).hexdigest()
    return f"{digest[0:4]}-{digest[4:8]}-{digest[8:12]}-{digest[12:16]}"


def characteristics(names: tuple[str, ...], values: dict[str, str], extra: tuple[str, ...]) -> str:
    rows = [
        f'<characteristic name={quoteattr(n)} typeId="{ident("characteristic", n)}">'
        f"{values.get(n, '-')}</characteristic>"
        for n in (*names, *extra)
    ]
    return "<characteristics>" + "".join(rows) + "</characteristics>"


def model(unit: str, spec: tuple, names: tuple[str, ...], kind: str) -> str:
    """A model selection: its profile, and its mount's (a knight's warhorse) in the same selection,
    as list builders give a cavalry model: one model of two profiles."""
    entry, count, values, *mount = spec
    extra = ("Unit Type",) if kind == "40k" else ("Troop Type",)
    profile_type = "Unit" if kind == "40k" else "Profile"
    profiles = "".join(
        f'<profile id="{ident("profile", unit, name)}" name={quoteattr(name)} hidden="false" '
        f'typeId="{ident("type", profile_type)}" typeName="{profile_type}">'
        f"{characteristics(names, stats, extra)}</profile>"
        for name, stats in [(entry, values), *mount]
    )
    return (
        f'<selection id="{ident(unit, entry)}" name={quoteattr(entry)} entryId="{ident("entry", entry)}" '
        f'number="{count}" type="model"><profiles>{profiles}</profiles>'
        f'<costs><cost name="pts" typeId="{ident("pts")}" value="{5 * count}.0"/></costs></selection>'
    )


def unit(spec: tuple, names: tuple[str, ...], kind: str) -> str:
    custom, entry, models, rules, upgrades = spec
    rule_xml = "".join(
        f'<rule id="{ident("rule", r)}" name={quoteattr(r)} hidden="false">'
        "<description>See the rulebook.</description></rule>"
        for r in rules
    )
    upgrade_xml = "".join(
        f'<selection id="{ident(custom, u)}" name={quoteattr(u)} entryId="{ident("entry", u)}" '
        'number="1" type="upgrade">'
        f'<costs><cost name="pts" typeId="{ident("pts")}" value="10.0"/></costs></selection>'
        for u in upgrades
    )
    inner = "".join(model(custom, m, names, kind) for m in models)
    named = f" customName={quoteattr(custom)}" if custom != entry else ""
    return (
        f'<selection id="{ident(custom)}" name={quoteattr(entry)}{named} entryId="{ident("entry", entry)}" '
        f'number="1" type="unit">'
        + (f"<rules>{rule_xml}</rules>" if rules else "")
        + f"<selections>{inner}{upgrade_xml}</selections>"
        + f'<categories><category id="{ident("cat", custom)}" name="Troops" '
        + f'entryId="{ident("troops")}" primary="true"/>'
        + "</categories></selection>"
    )


def roster(name: str, system: str, forces: list[tuple[str, list[tuple]]], kind: str) -> str:
    names = FORTY_K if kind == "40k" else FANTASY
    force_xml = "".join(
        f'<force id="{ident("force", catalogue)}" name="Standard" entryId="{ident("standard")}" '
        f'catalogueId="{ident("catalogue", catalogue)}" catalogueRevision="1" catalogueName={quoteattr(catalogue)}>'
        "<selections>"
        # the configuration a list builder adds to every force: an upgrade, no unit
        f'<selection id="{ident(catalogue, "configuration")}" name="Battle Size" entryId="{ident("size")}" '
        'number="1" type="upgrade"/>' + "".join(unit(u, names, kind) for u in units) + "</selections></force>"
        for catalogue, units in forces
    )
    xml = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        f'<roster id="{ident("roster", name)}" name={quoteattr(name)} battleScribeVersion="2.03" '
        f'gameSystemId="{ident("system", system)}" gameSystemName={quoteattr(system)} gameSystemRevision="1" '
        'xmlns="http://www.battlescribe.net/schema/rosterSchema">'
        f'<costs><cost name="pts" typeId="{ident("pts")}" value="500.0"/></costs>'
        f"<forces>{force_xml}</forces></roster>\n"
    )
    return pretty(xml)


def pretty(xml: str) -> str:
    """The XML indented, as a list builder writes it, so a fixture reads well in a diff."""
    ElementTree.register_namespace("", NAMESPACE)
    root = ElementTree.fromstring(xml)
    ElementTree.indent(root, space="  ")
    return (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        + ElementTree.tostring(root, encoding="unicode")
        + "\n"
    )


def stat(**values: int | str) -> dict[str, str]:
    return {("Unit Type" if k == "type" else "Troop Type" if k == "troop" else k): str(v) for k, v in values.items()}


INF = "Infantry"
WH40K6 = roster(
    "Skirmish at the Hive Tarsis refinery",
    "Warhammer 40,000 6th Edition",
    [
        (
            "Space Marines",
            [
                (
                    "Tactical Squad Varro",
                    "Tactical Squad",
                    [
                        ("Space Marine Sergeant", 1, stat(Ld=8, I=4, type=INF)),
                        ("Space Marine", 4, stat(Ld=8, I=4, type=INF)),
                    ],
                    ["Combat Squads"],
                    ["Bolter", "Frag Grenades"],
                ),
            ],
        ),
        (
            "Imperial Guard",
            [
                (
                    "Sergeant Kraak's Guardsmen",
                    "Infantry Squad",
                    [("Sergeant", 1, stat(Ld=8, I=3, type=INF)), ("Guardsman", 9, stat(Ld=7, I=3, type=INF))],
                    ["Combined Squad"],
                    ["Lasgun"],
                ),
                (
                    "Attilan Rough Riders",
                    "Rough Rider Squad",
                    [
                        ("Rough Rider Sergeant", 1, stat(Ld=7, I=3, type="Cavalry")),
                        ("Rough Rider", 4, stat(Ld=7, I=3, type="Cavalry")),
                    ],
                    ["Hammer of Wrath"],
                    ["Hunting Lance"],
                ),
                (
                    "Combat Servitors",
                    "Combat Servitors",
                    [("Servitor", 4, stat(Ld=8, I=2, type=INF))],
                    ["Mindlock"],
                    [],
                ),
            ],
        ),
        (
            "Orks",
            [
                ("Ork Boyz", "Boyz", [("Ork Boy", 20, stat(Ld=7, I=2, type=INF))], ["Mob Rule", "Furious Charge"], []),
                ("Nobz", "Nobz", [("Nob", 5, stat(Ld=7, I=3, type=INF))], ["Mob Rule", "Furious Charge"], []),
                ("Gretchin Mob", "Gretchin", [("Gretchin", 10, stat(Ld=5, I=2, type=INF))], [], []),
                (
                    "Lootas",
                    "Lootas",
                    [("Loota", 6, stat(Ld=7, I=2, type=INF))],
                    ["Always Passes Morale", "Mob Rule"],
                    [],
                ),
            ],
        ),
    ],
    "40k",
)
WH40K3 = roster(
    "Raid on Vorn's Ridge",
    "Warhammer 40,000 3rd Edition",
    [
        (
            "Imperial Guard",
            [
                (
                    "Cadian Squad Vorn",
                    "Infantry Squad",
                    [("Sergeant", 1, stat(Ld=7, I=3, type=INF)), ("Guardsman", 9, stat(Ld=7, I=3, type=INF))],
                    [],
                    [],
                ),
                (
                    "Lieutenant Hask's Command Squad",
                    "Command Squad",
                    [("Lieutenant", 1, stat(Ld=8, I=3, type=INF)), ("Veteran", 2, stat(Ld=7, I=3, type=INF))],
                    [],
                    [],
                ),
                ("Leman Russ Iron Vow", "Leman Russ", [("Leman Russ", 1, stat(Ld="-", I="-", type="Tank"))], [], []),
            ],
        ),
        (
            "Space Marines",
            [
                (
                    "Tactical Squad Aurelian",
                    "Tactical Squad",
                    [("Space Marine", 5, stat(Ld=8, I=4, type=INF))],
                    ["And They Shall Know No Fear"],
                    [],
                ),
            ],
        ),
        (
            "Witch Hunters",
            [
                (
                    "Sisters Repentia",
                    "Sisters Repentia",
                    [("Repentia", 6, stat(Ld=8, I=4, type=INF))],
                    ["Always passes Morale checks"],
                    [],
                ),
            ],
        ),
        (
            "Dark Eldar",
            [
                ("Kabalite Warriors", "Warrior Squad", [("Warrior", 10, stat(Ld=8, I=5, type=INF))], [], []),
                ("Wych Cult Strife", "Wyches", [("Wych", 8, stat(Ld=8, I=6, type=INF))], ["Dodge"], []),
                ("Scourges", "Scourges", [("Scourge", 5, stat(Ld=8, I=5, type="Jump Infantry"))], [], []),
                ("Grotesques", "Grotesques", [("Grotesque", 4, stat(Ld=8, I=3, type=INF))], ["Fearless"], []),
            ],
        ),
    ],
    "40k",
)
WFB8_EMPIRE = (
    "The Empire",
    [
        ("Grünburg Halberdiers", "Halberdiers", [("Halberdier", 25, stat(Ld=7, I=3, troop=INF))], [], []),
        ("Spearmen of the Reik", "Spearmen", [("Spearman", 20, stat(Ld=7, I=3, troop=INF))], [], []),
        ("Nuln Handgunners", "Handgunners", [("Handgunner", 10, stat(Ld=7, I=3, troop=INF))], [], []),
        (
            "Knights of the Blazing Sun",
            "Knightly Order",
            [("Knight", 6, stat(Ld=8, I=3, troop="Cavalry"), ("Barded Warhorse", stat(Ld=5, I=3, troop="Cavalry")))],
            [],
            [],
        ),
        (
            "Carroburg Greatswords",
            "Greatswords",
            [("Greatsword", 15, stat(Ld=8, I=4, troop=INF))],
            ["Stubborn"],
            ["Battle Standard Bearer"],
        ),
        (
            "Flagellant Warband",
            "Flagellants",
            [("Flagellant", 10, stat(Ld=7, I=3, troop=INF))],
            ["Unbreakable", "Frenzy", "Hatred"],
            [],
        ),
    ],
)
WFB8_ORCS = (
    "Orcs & Goblins",
    [
        ("Orc Boyz", "Orc Boyz", [("Orc Boy", 30, stat(Ld=7, I=2, troop=INF))], ["Animosity"], []),
        ("Night Goblins", "Night Goblins", [("Night Goblin", 20, stat(Ld=5, I=3, troop=INF))], ["Animosity"], []),
        (
            "Goblin Wolf Riders",
            "Goblin Wolf Riders",
            [
                (
                    "Goblin Wolf Rider",
                    5,
                    stat(Ld=6, I=2, troop="Cavalry"),
                    ("Giant Wolf", stat(Ld=3, I=3, troop="Cavalry")),
                )
            ],
            ["Animosity", "Fast Cavalry"],
            [],
        ),
        ("Orc Arrer Boyz", "Orc Arrer Boyz", [("Arrer Boy", 8, stat(Ld=7, I=2, troop=INF))], ["Animosity"], []),
        ("Black Orcs", "Black Orcs", [("Black Orc", 15, stat(Ld=8, I=2, troop=INF))], ["Quell Animosity"], []),
    ],
)
WFB8 = roster("The fight at the Grünburg bridge", "Warhammer Fantasy 8th Edition", [WFB8_EMPIRE, WFB8_ORCS], "fantasy")


def rosz(path: Path, xml: str) -> None:
    """A .rosz as BattleScribe writes one: a zip holding the one .ros, deflated."""
    info = zipfile.ZipInfo(path.with_suffix(".ros").name, date_time=(2026, 1, 1, 0, 0, 0))
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(info, xml, compress_type=zipfile.ZIP_DEFLATED)


def main(root: Path = ROOT) -> None:
    """The files, written under `root` (the repository, or a folder to compare it with)."""
    fixtures = root / "tests/fixtures/battlescribe"
    fixtures.mkdir(parents=True, exist_ok=True)
    for name, xml in (("wh40k6", WH40K6), ("wh40k3", WH40K3), ("wfb8", WFB8)):
        (root / "examples" / name).mkdir(parents=True, exist_ok=True)
        rosz(root / "examples" / name / "roster.rosz", xml)
        (fixtures / f"{name}.ros").write_text(xml, encoding="utf-8")
    # The wfb8 battle as two players bring it: one list each.
    (fixtures / "wfb8-empire.ros").write_text(
        roster("Grünburg garrison", "Warhammer Fantasy 8th Edition", [WFB8_EMPIRE], "fantasy"), encoding="utf-8"
    )
    (fixtures / "wfb8-orcs.ros").write_text(
        roster("Grimgut's Waaagh", "Warhammer Fantasy 8th Edition", [WFB8_ORCS], "fantasy"), encoding="utf-8"
    )


if __name__ == "__main__":
    main()
