// The tests due now, first of all: for each, the dice, the target and the odds, why it is due, and
// big buttons to type the dice in (or the engine's roll where the battle allows it), the decisions
// and table facts that settle it instead, and who goes first where its player must choose.
import { el, words, fill } from "./dom.js";
import { cite, need } from "./cite.js";
import { mayActFor, state, testName, unitName } from "./state.js";
import { submit } from "./outbox.js";
import { t, tn } from "./i18n.js";

export function drawDue(holder) {
  const live = state.live;
  forgetPads();
  holder.dataset.when = live ? "now" : "then";
  fill(holder,
    el("h2", {}, heading(live, state.due.length)),
    state.due.length
      ? el("ol", { class: "tests" }, state.due.map((test) => el("li", {}, dueCard(test, live))))
      : el("p", { class: "hint", id: "nothing-due" }, t("Nothing to roll: no test is due.")),
  );
}

// Stepping back through the log, the tests listed are those due then, not now.
function heading(live, count) {
  if (live) return count ? t("Tests due ({count})", { count }) : t("Tests due");
  return count ? t("At event {seq}: tests due then ({count})", { seq: state.at, count })
    : t("At event {seq}: no test was due", { seq: state.at });
}

function dueCard(test, live) {
  const acts = live && mayActFor(test.unit);
  const label = `${unitName(test.unit)}: ${testName(test.test)}`;
  return el("section", { class: "test", dataset: { unit: test.unit, test: test.test }, "aria-label": label },
    el("h3", {}, test.reroll ? t("{label} (re-roll)", { label }) : label),
    el("p", { class: "need" }, need(test)),
    el("p", { class: "because" }, test.caused_by.length
      ? tn("Due by {rule} (event {events})", "Due by {rule} (event {events})", test.caused_by.length,
        { rule: cite(test.rule, { full: false }), events: test.caused_by.join(", ") })
      : t("Due by {rule}", { rule: cite(test.rule, { full: false }) })),
    test.modifiers.length ? el("ul", { class: "modifiers" }, test.modifiers.map(modifier)) : null,
    Object.keys(test.stated || {}).length
      ? el("p", { class: "stated" }, t("Stated: {facts}", { facts: Object.entries(test.stated).map(([k, v]) => `${namedAs(test.fact_names, k)} ${v}`).join(", ") }))
      : null,
    order(test, acts),
    acts ? actions(test) : el("p", { class: "hint" }, live ? t("{side} to roll", { side: words(sideOf(test.unit)) }) : ""),
  );
}

export function modifier(m) {
  const sign = m.value > 0 ? `+${m.value}` : String(m.value);
  return el("li", { class: m.ignored_by ? "ignored" : "" }, `${sign} ${m.reason} `, cite(m.rule, { full: false }),
    m.ignored_by ? el("span", { class: "ignored-by" }, t(" not counted: {rule}", { rule: cite(m.ignored_by, { full: false }) })) : null);
}

const sideOf = (unitId) => state.board.units.find((u) => u.unit === unitId)?.side ?? "";

function order(test, acts) {
  if (!test.order_rule) return null;
  if (test.first === test.unit) return el("p", { class: "hint" }, t("Chosen to test first."));
  if (test.first) return el("p", { class: "hint" }, t("Waits: {unit} tests first.", { unit: unitName(test.first) }));
  const first = t("{unit} tests first", { unit: unitName(test.unit) });
  return el("div", { class: "order" },
    el("p", {}, t("Several units must take this test: their player chooses who goes first. {rule}", { rule: cite(test.order_rule, { full: false }) })),
    acts ? el("button", { type: "button", class: "first",
      onclick: () => submit(first, "events",
        { events: [{ type: "player_decided", unit: test.unit, decision: "test_first" }] }) },
    first) : null);
}

function actions(test) {
  const parts = [];
  if (test.dice > 0) parts.push(dicePad(test));
  if (test.dice > 0 && state.info.engine_rolls) {
    parts.push(el("button", { type: "button", class: "engine",
      onclick: () => submit(t("engine roll: {unit} {test}", { unit: unitName(test.unit), test: testName(test.test) }), "roll",
        { unit: test.unit, test: test.test }) }, t("Let the engine roll {dice}D6", { dice: test.dice })));
  }
  for (const decision of test.decisions) {
    parts.push(el("button", { type: "button", class: "decision", dataset: { decision },
      onclick: () => submit(`${unitName(test.unit)}: ${namedAs(test.decision_names, decision)}`, "events",
        { events: [{ type: "player_decided", unit: test.unit, decision }] }) }, namedAs(test.decision_names, decision)));
  }
  for (const fact of test.facts) {
    parts.push(el("button", { type: "button", class: "fact", dataset: { fact },
      onclick: () => submit(`${unitName(test.unit)}: ${namedAs(test.fact_names, fact)}`, "events",
        { events: [{ type: "table_fact_recorded", unit: test.unit, fact, value: true }] }) }, namedAs(test.fact_names, fact)));
  }
  return el("div", { class: "actions" }, parts);
}

// A decision or a fact in the ruleset's words (the due list gives them), else its machine name as words.
const namedAs = (names, slug) => names?.[slug] || words(slug);

// The pads on screen, by due test: dice half typed in survive the board redrawn around them.
const pads = new Map();
const padKey = (test) => `${test.unit}/${test.test}/${test.rule}/${test.caused_by.join(",")}/${test.reroll}`;

function dicePad(test) {
  const key = padKey(test);
  if (!pads.has(key)) pads.set(key, newPad(test));
  return pads.get(key);
}

export function forgetPads() {
  const due = new Set(state.due.map(padKey));
  for (const key of pads.keys()) if (!due.has(key)) pads.delete(key);
}

// Big 1-6 buttons: each tap adds a die; the roll is sent only when the user says so.
function newPad(test) {
  const dice = [];
  const slots = el("output", { class: "dice", "aria-live": "polite" });
  const send = el("button", { type: "button", class: "send", disabled: true, onclick: () => {
    const event = { type: "dice_rolled", unit: test.unit, test: test.test, dice: [...dice] };
    if (test.reroll) event.reroll = true;
    submit(`${unitName(test.unit)} ${testName(test.test)}: ${dice.join(" + ")}`, "events", { events: [event] });
  } }, t("Record the roll"));
  const undo = el("button", { type: "button", class: "undo", disabled: true, onclick: () => { dice.pop(); show(); } },
    t("Undo die"));
  const preview = el("div", { class: "preview", "aria-live": "polite" });
  const show = () => {
    drawPreview(preview, test, dice);
    slots.textContent = Array.from({ length: test.dice }, (_, i) => dice[i] ?? "·").join("  ");
    send.disabled = dice.length !== test.dice;
    send.textContent = dice.length === test.dice ? t("Record {dice}", { dice: dice.join(" + ") }) : t("Record the roll");
    undo.disabled = !dice.length;
    for (const b of faces) b.disabled = dice.length >= test.dice;
  };
  const faces = [1, 2, 3, 4, 5, 6].map((n) => el("button", { type: "button", class: "face", dataset: { face: n },
    "aria-label": t("die shows {n}", { n }), onclick: () => { if (dice.length < test.dice) dice.push(n); show(); } }, String(n)));
  show();
  return el("div", { class: "pad", role: "group", "aria-label": t("dice for {unit}", { unit: unitName(test.unit) }) },
    el("p", { class: "slots" }, t("Dice: {dice}", { dice: slots })), el("div", { class: "faces" }, faces), preview,
    el("div", { class: "row" }, undo, send));
}

// What the dice typed in will give, before they are recorded: the server's due list says, for each
// result, every roll that gives it and what follows (in the rules' words); the page only looks up
// the roll. Nothing is said where the ruleset gives no odds (a results table with modifiers).
function drawPreview(holder, test, dice) {
  holder.replaceChildren();
  holder.hidden = true;
  if (dice.length !== test.dice || !test.results?.length) return;
  const roll = dice.join("");
  const found = test.results.find((r) => r.rolls.includes(roll));
  if (!found) return;
  const total = dice.reduce((a, b) => a + b, 0);
  const sum = `${dice.join(" + ")} = ${total}`;
  const said = { sum, target: test.target };
  const head = test.target === null || test.target === undefined
    ? (found.passed ? t("{sum}: passes", said) : t("{sum}: fails", said))
    : (found.passed ? t("{sum} against {target}: passes", said) : t("{sum} against {target}: fails", said));
  holder.hidden = false;
  holder.dataset.verdict = found.passed ? "passed" : "failed";
  holder.append(el("p", { class: "verdict" }, found.follows.length ? el("strong", {}, head)
    : t("{verdict} (nothing follows)", { verdict: el("strong", {}, head) })));
  if (found.follows.length) holder.append(el("ul", { class: "follows" }, found.follows.map((line) => el("li", {}, line))));
}
