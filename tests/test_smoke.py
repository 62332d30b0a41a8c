from support.table import Table, unit


def test_marines_fall_back_after_heavy_shooting():
    table = Table(unit("marines", models=5), unit("boyz", "orks", ld=7, models=20))
    table.go_to(1, "orks", "shooting")
    table.casualties("marines", 2)
    caused = table.end_phase()
    assert table.due() == ["marines:morale"]
    caused = table.roll("marines", "morale", 6, 5)
    print(caused)
    assert table.state("marines") == "falling_back"
    table.roll("marines", "fall_back", 3, 4)
    table.go_to(2, "imperium", "movement")
    assert table.due() == ["marines:regroup"]
    print(table.roll("marines", "regroup", 2, 3))
    assert table.state("marines") == "regrouped"
    table.go_to(2, "orks", "movement")
    assert table.state("marines") == "steady"
    assert table.replayed().battle is not None
