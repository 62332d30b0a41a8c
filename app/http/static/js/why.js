// Why a unit is where it is: every test it took and every change to it. For a test: what made it
// due (trigger), the modifiers (those a rule cancels shown as not counted), the target, the odds,
// the dice, and the result with the clause that decided it; each rule ID with its clause's words.
import { el, fill } from "./dom.js";
import { cite } from "./cite.js";
import { modifier } from "./due.js";

export function drawWhy(holder, why, { goTo, back }) {
  fill(holder, 
    el("div", { class: "panel-head" },
      el("h2", { tabindex: "-1" }, `Why is ${why.name} ${why.state_name}?`),
      el("button", { type: "button", class: "back", onclick: back }, "Back to the board")),
    el("p", { class: "meta" }, `${why.models}/${why.starting_models} models · at event ${why.at}`),
    el("ol", { class: "steps", dataset: { unit: why.unit, state: why.state } },
      why.steps.map((step) => el("li", { class: `step ${step.kind}`, dataset: { seq: step.seq, kind: step.kind, rule: step.rule } },
        el("button", { type: "button", class: "where", onclick: () => goTo(step.seq) },
          `event ${step.seq}${step.status ? ` · ${step.status}` : ""}`),
        el("p", { class: "text" }, step.text),
        enteredBy(step),
        step.kind === "test" ? test(step) : step.rule ? el("p", { class: "rule" }, cite(step.rule)) : null,
        step.caused_by.length
          ? el("ul", { class: "causes" }, step.caused_by.map((cause) => el("li", {},
            el("button", { type: "button", class: "cause", onclick: () => goTo(cause.seq) },
              `because of event ${cause.seq}: ${cause.text}`))))
          : null))),
  );
}

function test(step) {
  const roll = step.roll;
  const rows = [
    ["Trigger", cite(step.trigger)],
    step.modifiers.length || roll?.modifiers?.length
      ? ["Modifiers", el("ul", { class: "modifiers" }, (roll?.modifiers?.length ? roll.modifiers : step.modifiers).map(modifier))]
      : null,
    (roll?.target ?? step.target) !== null && (roll?.target ?? step.target) !== undefined
      ? ["Target", `${roll?.target ?? step.target} or less`]
      : null,
    step.chance !== null && step.chance !== undefined
      ? ["Odds", `${Math.round(step.chance * 100)}% to pass (${step.chance_ways})`]
      : null,
    roll ? ["Dice", `${roll.dice.join(" + ")}${roll.total !== null ? ` = ${roll.total}` : ""}${roll.detail ? ` (${roll.detail})` : ""}`]
      : step.automatic ? ["Dice", "none: settled without a roll"] : null,
    step.status && step.status !== "due" ? ["Result", el("span", {}, `${step.status} `, cite(step.rule))] : null,
  ].filter(Boolean);
  return el("dl", { class: "test-detail" }, rows.map(([term, value]) => el("div", {}, el("dt", {}, term), el("dd", {}, value))));
}

// Who entered the event behind a step, and its dice where another entered them, in the server's words.
function enteredBy(step) {
  if (!step.by) return null;
  const dice = step.roll?.by && step.roll.by !== step.by ? step.roll.by : "";
  return el("p", { class: "by" }, `entered by: ${step.by}`, dice ? el("span", { class: "dice-by" }, ` · dice entered by: ${dice}`) : null);
}
