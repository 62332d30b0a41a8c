// Why a unit is where it is. First the answer: its state now, the step that put it there and what
// caused that (the test, with its dice, target and odds). Below it, folded away, the rest of its
// history in order: every other test it took and change to it. Each rule ID is cited with its
// clause's words the first time the screen cites it, by its title after that: a clause is read
// once, not under Trigger and again under Result.
import { el, fill } from "./dom.js";
import { cite } from "./cite.js";
import { modifier } from "./due.js";
import { t, tn } from "./i18n.js";

export function drawWhy(holder, why, { goTo, back }) {
  const seen = new Set();  // the rules whose words the screen shows already
  const cited = (rule) => {
    const full = Boolean(rule) && !seen.has(rule);
    if (rule) seen.add(rule);
    return cite(rule, { full });
  };
  const answer = answerOf(why);
  const history = why.steps.filter((step) => !answer.includes(step));
  // In the answer, a change's "because of" is the cause drawn right below it: not said twice.
  const draw = (step) => stepItem(step, { goTo, cited, causes: !(answer.length > 1 && step === answer[0]) });
  fill(holder,
    el("h2", { tabindex: "-1" }, t("Why is {unit} {state}?", { unit: why.name, state: why.state_name })),
    el("p", { class: "meta" }, tn("{models}/{n} models · at event {seq}", "{models}/{n} models · at event {seq}", why.starting_models,
      { models: why.models, seq: why.at })),
    el("ol", { class: "steps now", "aria-label": t("why, now"), dataset: { unit: why.unit, state: why.state } },
      answer.map(draw)),
    history.length
      ? el("details", { class: "history" },
        el("summary", {}, tn("Its history: {n} more step", "Its history: {n} more steps", history.length)),
        el("ol", { class: "steps" }, history.map(draw)))
      : null,
    el("button", { type: "button", class: "back", onclick: back }, t("Back to the board")),
  );
}

// The step that put the unit in its state now (the last change to that state), and the test or
// event that step came from; a unit never moved from its first state: the event it joined in.
function answerOf(why) {
  const steps = why.steps;
  const change = steps.findLast((s) => s.to_state === why.state) ?? steps.findLast((s) => s.to_state);
  if (!change) return steps.slice(0, 1);
  const from = new Set(change.caused_by.map((c) => c.seq));
  const cause = steps.findLast((s) => s !== change && s.kind === "test" && from.has(s.settled_at))
    ?? steps.findLast((s) => s !== change && s.kind === "event" && from.has(s.seq));
  return cause ? [change, cause] : [change];
}

// A settled test reads as its result ("fails the morale test"): it is numbered by the event that
// settled it (its dice), and says beside it the event where it fell due.
function shownAt(step) {
  return step.kind === "test" && step.settled_at !== null && step.settled_at !== undefined ? step.settled_at : step.seq;
}

function stepItem(step, { goTo, cited, causes = true }) {
  const at = shownAt(step);
  return el("li", { class: `step ${step.kind}`, dataset: { seq: step.seq, kind: step.kind, rule: step.rule, status: step.status } },
    // Where a settled test fell due, on its button's line: no line more, so the answer stays on a
    // phone's first screen.
    el("button", { type: "button", class: "where", onclick: () => goTo(at) },
      [t("event {seq}", { seq: at }), statusWords(step.status), at !== step.seq ? t("due at event {seq}", { seq: step.seq }) : ""]
        .filter(Boolean).join(" · ")),
    el("p", { class: "text" }, step.text),
    enteredBy(step),
    step.kind === "test" ? test(step, cited) : step.rule ? el("p", { class: "rule" }, cited(step.rule)) : null,
    causes && step.caused_by.length
      ? el("ul", { class: "causes" }, step.caused_by.map((cause) => el("li", {},
        el("button", { type: "button", class: "cause", onclick: () => goTo(cause.seq) },
          t("because of event {seq}: {text}", { seq: cause.seq, text: cause.text })))))
      : null);
}

// A step's status (a machine value: the step's data-status) in words.
function statusWords(status) {
  if (!status) return "";
  const said = { due: t("due"), passed: t("passed"), failed: t("failed"), "not taken": t("not taken"), moved: t("moved") };
  return said[status] ?? status;
}

function test(step, cited) {
  const roll = step.roll;
  const rows = [
    [t("Trigger"), cited(step.trigger)],
    step.modifiers.length || roll?.modifiers?.length
      ? [t("Modifiers"), el("ul", { class: "modifiers" }, (roll?.modifiers?.length ? roll.modifiers : step.modifiers).map(modifier))]
      : null,
    (roll?.target ?? step.target) !== null && (roll?.target ?? step.target) !== undefined
      ? [t("Target"), t("{target} or less", { target: roll?.target ?? step.target })]
      : null,
    step.chance !== null && step.chance !== undefined
      ? [t("Odds"), t("{percent}% to pass ({ways})", { percent: Math.round(step.chance * 100), ways: step.chance_ways })]
      : null,
    // `said`: the dice in the server's words (two opposed rolls side by side, never one sum); the
    // detail of an opposed roll is those same words, so it is not said twice.
    roll ? [t("Dice"), roll.detail && !roll.opposed?.length ? `${roll.said} (${roll.detail})` : roll.said]
      : step.automatic ? [t("Dice"), t("none: settled without a roll")] : null,
    step.status && step.status !== "due" ? [t("Result"), el("span", {}, `${statusWords(step.status)} `, cited(step.rule))] : null,
  ].filter(Boolean);
  return el("dl", { class: "test-detail" }, rows.map(([term, value]) => el("div", {}, el("dt", {}, term), " ", el("dd", {}, value))));
}

// Who entered the event behind a step, and its dice where another entered them, in the server's words.
// A consequence is the engine's doing: who entered what caused it is said on that step, once.
function enteredBy(step) {
  if (!step.by || step.kind === "consequence") return null;
  const dice = step.roll?.by && step.roll.by !== step.by ? step.roll.by : "";
  return el("p", { class: "by" }, t("entered by: {by}", { by: step.by }),
    dice ? el("span", { class: "dice-by" }, " · ", t("dice entered by: {by}", { by: dice })) : null);
}
