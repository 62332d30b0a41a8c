"""The referee's console driven as a person drives it: taps on its tabs, forms, chips, steppers and
dice buttons, never a keyboard and never the API behind its back. `play` records an event of a
shipped example battle through whichever screen a referee would use for it."""

from __future__ import annotations

from dataclasses import dataclass, field

from .browser import WAIT_MS


@dataclass
class Console:
    page: object
    wide: bool  # the board stays beside the other screens (from 960 px)
    changes: list[tuple[int, str, str]] = field(default_factory=list)  # (seq, unit, state) a roll caused

    # -- moving around ------------------------------------------------------------------------------
    def tab(self, name: str) -> None:
        """Go to a screen, as a person does: a tap on its tab, unless it is the one shown."""
        if name == "board" and self.wide:
            return
        if self.page.get_attribute("body", "data-tab") == name:
            return
        self.page.locator(f"#tab-{name}").click()
        self.page.wait_for_selector(f"body[data-tab='{name}']", timeout=WAIT_MS)

    @property
    def last(self) -> int:
        return int(self.page.get_attribute("body", "data-last"))

    def recorded(self, seq: int) -> None:
        """Wait until the page shows the board after event `seq`, live; fail on a refusal shown."""
        self.page.wait_for_selector(f"body[data-last='{seq}'][data-seq='{seq}']", timeout=WAIT_MS)
        problem = self.page.locator("#problem")
        assert not problem.is_visible(), problem.inner_text()

    def card(self, unit: str):
        return self.page.locator(f"#board .unit[data-unit='{unit}']")

    def shown_card(self, unit: str):
        """The card, unfolded first where it is folded away: a unit out of play is one line of its
        side until that line is tapped."""
        card = self.card(unit)
        fold = self.page.locator("#board details.gone", has=self.page.locator(f".unit[data-unit='{unit}']"))
        if fold.count() and fold.get_attribute("open") is None:
            fold.locator("summary").click()
        return card

    def state_of(self, unit: str) -> str:
        return self.card(unit).get_attribute("data-state")

    # -- recording ----------------------------------------------------------------------------------
    def form(self, name: str) -> object:
        self.tab("record")
        pick = self.page.locator(f"#record .menu [data-form='{name}']")
        if pick.get_attribute("aria-expanded") != "true":
            pick.click()
        return self.page.locator(f"#record form.record[data-form='{name}']")

    @staticmethod
    def chip(form, name: str, value: object) -> None:
        text = {True: "true", False: "false"}.get(value, str(value))  # type: ignore[call-overload]
        button = form.locator(f"fieldset[data-name='{name}'] button[data-value='{text}']")
        if button.get_attribute("aria-pressed") != "true":
            button.click()

    @staticmethod
    def step(form, name: str, target: int, start: int = 0) -> None:
        fieldset = form.locator(f"fieldset[data-name='{name}']")
        for _ in range(abs(target - start)):
            fieldset.locator(".more" if target > start else ".less").click()
        assert fieldset.locator("output").inner_text() == str(target)

    def submit(self, form) -> None:
        form.locator("button.submit").click()

    def next_phase(self) -> None:
        self.tab("record")
        self.page.locator("#next-phase").click()

    def casualties(self, unit: str, count: int, cause: str = "") -> None:
        form = self.form("casualties")
        self.chip(form, "unit", unit)
        self.step(form, "count", count, start=1)
        causes = form.locator(f"fieldset[data-name='cause'] button[data-value='{cause}']")
        if cause and causes.count():
            causes.click()
        self.submit(form)

    def charge(self, charger: str, targets: list[str], in_range: list[str], flank: list[str]) -> None:
        form = self.form("charge")
        self.chip(form, "unit", charger)
        for name, units in (("targets", targets), ("in_range", in_range), ("flank", flank)):
            for unit in units:
                self.chip(form, name, unit)
        self.submit(form)

    def combat(self, sides: list[dict]) -> None:
        form = self.form("combat")
        for side in sides:
            name = side["side"]
            for unit in side["units"]:
                self.chip(form, f"units-{name}", unit)
            self.step(form, f"wounds-{name}", side["wounds_inflicted"])
            self.step(form, f"bonus-{name}", side.get("bonus", 0))
            detail = {**{f"ranks-{u}": n for u, n in side.get("ranks", {}).items()}}
            detail |= {f"unit_bonus-{u}": n for u, n in side.get("unit_bonus", {}).items()}
            if detail or side.get("left_combat"):
                form.locator("details", has_text=f"{name.replace('_', ' ')}: ranks").locator("summary").click()
            for stepper, value in detail.items():
                self.step(form, stepper, value)
            for unit in side.get("left_combat", ()):
                self.chip(form, f"left-{unit}", True)
        self.submit(form)

    def fact(self, unit: str, fact: str, value: object) -> None:
        form = self.form("fact")
        self.chip(form, "unit", unit)
        self.chip(form, "fact", fact)
        kind = form.locator("fieldset[data-name='value']")
        if kind.count() and kind.locator(".count").count():  # inches: a stepper from 3
            self.step(form, "value", int(value), start=3)  # type: ignore[call-overload]
        elif kind.count():
            self.chip(form, "value", value)
        self.submit(form)

    def roll(self, unit: str, test: str, dice: list[int]) -> None:
        self.tab("due")
        card = self.page.locator(f"#due .test[data-unit='{unit}'][data-test='{test}']")
        for die in dice:
            card.locator(f".face[data-face='{die}']").click()
        card.locator("button.send").click()

    def engine_roll(self, unit: str, test: str) -> None:
        self.tab("due")
        self.page.locator(f"#due .test[data-unit='{unit}'][data-test='{test}'] button.engine").click()

    def decide(self, unit: str, decision: str) -> None:
        self.tab("due")
        due = self.page.locator(f"#due .test[data-unit='{unit}']")
        if decision == "test_first":
            due.first.locator("button.first").click()
        elif due.locator(f"button.decision[data-decision='{decision}']").count():
            due.locator(f"button.decision[data-decision='{decision}']").first.click()
        else:
            self.decide_freely(unit, decision)

    def decide_freely(self, unit: str, decision: str) -> None:
        """A decision no test due asks for (General de Brigade's reform), on the Record screen's form."""
        form = self.form("decision")
        self.chip(form, "unit", unit)
        self.chip(form, "decision", decision)
        self.submit(form)

    def change(self, unit: str, changes: dict) -> None:
        """A unit's profile changed at the table (a formation, a commander...): one field at a time,
        as the form takes them."""
        (name, value), *more = changes.items()
        assert not more, "the unit-change form records one field at a time"
        form = self.form("unit")
        self.chip(form, "unit", unit)
        self.chip(form, "field", name)
        if isinstance(value, int) and not isinstance(value, bool):
            self.step(form, "value", value)
        else:
            self.chip(form, "value", value)
        self.submit(form)

    def play(self, event: dict, *, engine: bool = False) -> None:
        """Record one event of a shipped example through the page, and wait for the board it leaves."""
        expected = self.last + 1
        before = {}
        match event["type"]:
            case "phase_started" | "phase_ended":
                self.next_phase()
            case "casualties_suffered":
                self.casualties(event["unit"], event["count"], event.get("cause", ""))
            case "charge_declared":
                self.charge(event["charger"], event["targets"], event.get("in_range", []), event.get("flank", []))
            case "combat_resolved":
                self.combat(event["sides"])
            case "table_fact_recorded":
                self.fact(event["unit"], event["fact"], event.get("value", True))
            case "dice_rolled":
                before = {event["unit"]: self.state_of(event["unit"])}
                if engine:
                    self.engine_roll(event["unit"], event["test"])
                else:
                    self.roll(event["unit"], event["test"], event["dice"])
            case "player_decided":
                self.decide(event["unit"], event["decision"])
            case "unit_changed":
                self.change(event["unit"], event["changes"])
            case other:
                raise AssertionError(f"no screen records {other} in this driver")
        self.recorded(expected)
        for unit, state in before.items():
            if self.state_of(unit) != state:
                self.changes.append((expected, unit, self.state_of(unit)))

    def phase(self, turn: int, side: str, phase: str) -> None:
        """Jump to where a phase starts, from the log's list of phases."""
        self.tab("log")
        jump = self.page.locator("#log details.phases")
        if jump.get_attribute("open") is None:
            jump.locator("summary").click()
        jump.locator(f"button[data-turn='{turn}'][data-side='{side}'][data-phase='{phase}']").click()

    def why(self, unit: str, state: str) -> str:
        """Tap a card's "Why?": the explanation of its state, as the page shows it."""
        self.tab("board")
        self.shown_card(unit).locator("button.why").click()
        self.page.wait_for_selector(f"#why ol.steps[data-unit='{unit}'][data-state='{state}']", timeout=WAIT_MS)
        self.open_history()
        return self.page.locator("#why").inner_text()

    def open_history(self) -> None:
        """Unfold the history below "Why?"'s answer (the screen opens on the state now and its cause)."""
        history = self.page.locator("#why details.history")
        if history.count() and history.get_attribute("open") is None:
            history.locator("summary").click()

    def rule(self, unit: str, state: str, reason: str) -> None:
        form = self.form("ruling")
        self.chip(form, "unit", unit)
        self.chip(form, "state", state)
        self.chip(form, "reason", reason)
        self.submit(form)

    def strike(self, seq: int, reason: str) -> None:
        self.tab("log")
        entry = self.page.locator(f"#log ol.log > li[data-seq='{seq}']")
        entry.locator("button.strike").click()
        entry.locator("button.reason", has_text=reason).click()

    def go_to(self, seq: int) -> None:
        """Tap an entry of the log: the board as it stood right after it."""
        self.tab("log")
        entry = self.page.locator(f"#log ol.log > li[data-seq='{seq}'] button.go")
        while not entry.count():  # the log comes a page at a time: ask for the one before
            oldest = self.page.locator("#log ol.log > li").last.get_attribute("data-seq")
            self.page.locator("#log button.earlier").click()
            self.page.wait_for_function(
                "(seq) => document.querySelector('#log ol.log > li:last-child').dataset.seq !== seq",
                arg=oldest,
                timeout=WAIT_MS,
            )
        entry.click()
        self.page.wait_for_selector(f"body[data-seq='{seq}']", timeout=WAIT_MS)
