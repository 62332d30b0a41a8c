// The banner: the tests due now, each with its dice, its target and its odds, and the last test
// resolved, with the dice it rolled, its result and the odds it had. Its sentences are the story's
// (an item's `story` has one line per outcome, in the order of `caused`, after the event's own).
// With ?side=, only the tests of that side's units.
import { overlay } from "./page.js";
import { OUTCOME_KINDS } from "../js/kinds.js";
import { percent, say } from "./words.js";

const banner = document.querySelector("#banner");
const dueList = document.querySelector("#due");
const result = document.querySelector("#result");
const NOT_TAKEN = OUTCOME_KINDS.find((kind) => kind === "test_not_taken");  // a due test withdrawn

const paragraph = (className, text) => {
  const p = document.createElement("p");
  p.className = className;
  p.textContent = text;
  return p;
};

const faces = (rolled) => {
  const dice = document.createElement("p");
  dice.className = "dice";
  for (const face of rolled) {
    const die = document.createElement("span");
    die.className = "die";
    die.textContent = String(face);
    dice.append(die);
  }
  return dice;
};

overlay(({ side }) => {
  const due = new Map();  // "unit test" -> {test, unitName}
  const draw = () => {
    dueList.replaceChildren(
      ...[...due.values()].map(({ test, unitName }) => {
        const entry = document.createElement("li");
        entry.className = "test";
        entry.dataset.unit = test.unit;
        const values = { name: test.name, unit: unitName, dice: test.dice, target: test.target };
        entry.append(paragraph("what", say(test.target != null ? "due" : "dueNoTarget", values)));
        if (test.odds) entry.append(paragraph("odds", say("chance", { percent: percent(test.odds.chance) })));
        return entry;
      }),
    );
    banner.dataset.showing = due.size ? "due" : result.hidden ? "nothing" : "result";
  };
  return (item) => {
    const lines = (item.story || []).filter((line) => line.kind === "outcome");
    const mine = (unit) => !side || item.units?.[unit]?.side === side;
    (item.caused || []).forEach((outcome, index) => {
      if (outcome.kind === NOT_TAKEN) due.delete(`${outcome.unit} ${outcome.test}`);
    });
    if (item.event.type === "phase_started") result.hidden = true;  // an old result leaves with its phase
    for (const test of item.tests || []) {
      if (!mine(test.unit)) continue;
      const key = `${test.unit} ${test.test}`;
      const unitName = item.units?.[test.unit]?.name || test.unit;
      if (test.passed === undefined) {
        due.set(key, { test, unitName });
        continue;
      }
      due.delete(key);
      result.className = test.passed ? "passed" : "failed";
      result.dataset.unit = test.unit;
      result.replaceChildren(paragraph("what", lines[test.outcome]?.text || test.name));
      if (test.rolled?.length) result.append(faces(test.rolled));
      if (test.odds) result.append(paragraph("odds", say("hadChance", { percent: percent(test.odds.chance) })));
      result.hidden = false;
    }
    draw();
  };
});
