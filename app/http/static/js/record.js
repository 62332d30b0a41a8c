// Recording what happened at the table, one small form each, built from the ruleset's vocabulary
// (its facts and the values each takes, its decisions, causes and profile fields) and the board's
// units. A player is offered their own side's units only; the clock, combat results, rulings and
// retractions (in the log) are the referee's, except in a battle the players confirm (no referee
// at the table): there a player runs the clock of their own side's phases and resolves the combats
// their side fights.
import { el, words, fill } from "./dom.js";
import { cite } from "./cite.js";
import { inPlay, isReferee, mayActFor, mayRecord, phaseName, state, stateName, unitName, vocab } from "./state.js";
import { chips, stepper, unitOptions, yesNo } from "./pickers.js";
import { submit } from "./outbox.js";
import * as outbox from "./outbox.js";
import { allAwaiting, confirming, mineAwaiting, openDisputes } from "./claims.js";

// What a player may do beyond their own units when there is no referee (access.py's
// `_played_without_referee`): the clock of their own side's phases, and combat results.
const withoutReferee = () => confirming() && state.info.caller.role === "player";
const runsClock = (next) => isReferee() || (withoutReferee() && next.side === state.info.caller.side);

let open = null;  // the form shown, by name
let built = null;  // that form as the user is filling it in: kept while the board redraws around it

export function drawRecord(holder) {
  if (!mayRecord()) {
    fill(holder, el("h2", {}, "Record"), el("p", { class: "hint" }, "A spectator's token reads and follows the battle."));
    return;
  }
  const forms = FORMS.filter((f) => f.shown());
  fill(holder, 
    el("h2", {}, "Record"),
    unsent(),
    state.live ? null : el("p", { class: "hint" }, "You are looking at the past: go back to now to record."),
    clock(),
    el("div", { class: "menu", role: "group", "aria-label": "what to record" }, forms.map((f) => el("button", {
      type: "button", class: "pick", dataset: { form: f.name }, "aria-expanded": String(open === f.name),
      disabled: !state.live, onclick: () => { open = open === f.name ? null : f.name; built = null; drawRecord(holder); },
    }, f.label))),
    open && state.live ? form(holder) : null,
  );
}

function form(holder) {
  if (built?.dataset.form !== open) {
    const done = () => { open = null; built = null; drawRecord(holder); };
    built = el("form", { class: "record", dataset: { form: open }, onsubmit: (e) => e.preventDefault(),
      // A tap on a chip may complete the form (or not): each Record button looks again.
      onclick: (e) => { for (const b of e.currentTarget.querySelectorAll("button.submit")) b.recheck?.(); } },
    FORMS.find((f) => f.name === open).build(done));
  }
  return built;
}

function unsent() {
  const { queue, held } = outbox.pending();
  if (!queue.length && !held.length) return null;
  return el("section", { class: "outbox", "aria-label": "not sent" },
    el("h3", {}, "Not recorded yet"),
    el("ul", {}, queue.map((w) => el("li", { class: "queued" }, `${w.label}: waiting to be sent`)),
      held.map((w) => el("li", { class: "held" }, `${w.label}: not sent, the battle moved on (`,
        w.conflict.map((c) => `${c.seq}. ${c.summary}`).join("; "), ")",
        el("div", { class: "row" },
          el("button", { type: "button", onclick: () => outbox.sendAgain(w.id) }, "Send again"),
          el("button", { type: "button", onclick: () => outbox.discard(w.id) }, "Discard"))))));
}

function clock() {
  const next = state.board.next_clock;
  if (!next || !runsClock(next)) return null;
  const label = next.type === "phase_ended"
    ? `End the ${phaseName(next.phase)} phase (${words(next.side)}, turn ${next.turn})`
    : `Start turn ${next.turn} · ${words(next.side)} · ${phaseName(next.phase)}`;
  if (state.due.length) return clockWaits(next);
  if (next.type === "phase_ended" && confirming()) {
    const waits = claimsWait(next);
    if (waits) return waits;
  }
  return el("button", { type: "button", id: "next-phase", disabled: !state.live,
    onclick: () => submit(label, "next-phase", {}) }, label);
}

// While a test is due the clock cannot move (engine.clock.tests_first): the button stands back,
// says why, and leads to the tests instead of sending a write the server would refuse.
function clockWaits(next) {
  const count = state.due.length;
  const why = next.type === "phase_ended"
    ? (count === 1 ? `The ${phaseName(next.phase)} phase cannot end yet: 1 test is due.`
      : `The ${phaseName(next.phase)} phase cannot end yet: ${count} tests are due.`)
    : (count === 1 ? `The ${phaseName(next.phase)} phase cannot start yet: 1 test is due.`
      : `The ${phaseName(next.phase)} phase cannot start yet: ${count} tests are due.`);
  return el("div", { class: "clock-waits", id: "clock-waits" },
    el("p", {}, why, " ", cite("engine.clock.tests_first", { full: false })),
    el("button", { type: "button", id: "next-phase", class: "secondary", dataset: { waits: "tests" },
      onclick: () => goToDue() }, count === 1 ? "Roll the test due first" : `Roll the ${count} tests due first`));
}

// In a battle the players confirm, the phase does not end on an open dispute (engine.dispute.meanwhile)
// or on the ender's own claims the other side has not confirmed (engine.claim.phase_end): said here,
// where the button would be, rather than sent and refused.
function claimsWait(next) {
  const open = openDisputes();
  const phase = phaseName(next.phase);
  if (open) {
    return el("div", { class: "clock-waits", id: "clock-waits", dataset: { waits: "disputes" } },
      el("p", {}, open === 1 ? `The ${phase} phase cannot end yet: 1 dispute is open.`
        : `The ${phase} phase cannot end yet: ${open} disputes are open.`, " ", cite("engine.dispute.meanwhile", { full: false })));
  }
  // The side ending the phase confirms the other's claims by ending it; the referee confirms none.
  const mine = isReferee() ? allAwaiting() : mineAwaiting();
  if (!mine.length) return null;
  const count = mine.length;
  return el("div", { class: "clock-waits", id: "clock-waits", dataset: { waits: "claims" } },
    el("p", {}, isReferee() ? (count === 1 ? `The ${phase} phase cannot end yet: 1 entry awaits a player's confirmation.`
      : `The ${phase} phase cannot end yet: ${count} entries await a player's confirmation.`)
      : count === 1 ? `The ${phase} phase cannot end yet: 1 of your entries awaits the other side's confirmation.`
        : `The ${phase} phase cannot end yet: ${count} of your entries await the other side's confirmation.`,
    " ", cite("engine.claim.phase_end", { full: false })));
}

let goToDue = () => {};
// main.js says how to reach the Tests due screen (the record screen does not move between screens).
export function onDueAsked(fn) { goToDue = fn; }

const mine = (filter = inPlay) => state.board.units.filter((u) => filter(u) && mayActFor(u.unit));
const enemiesOf = (id) => state.board.units.filter((u) => inPlay(u) && u.side !== sideOf(id));
const sideOf = (id) => state.board.units.find((u) => u.unit === id)?.side;
const send = (label, events, done) => { submit(label, "events", { events }); done(); };
// The form's Record button. Given `missing` (what is still to choose, in words, or ""), it stays
// disabled and says what to choose until nothing is: a half-filled form is never sent.
function record(onclick, missing = null) {
  const button = el("button", { type: "button", class: "submit", onclick }, "Record");
  if (!missing) return button;
  const hint = el("p", { class: "hint missing", "aria-live": "polite" });
  button.recheck = () => {
    const still = missing();
    button.disabled = Boolean(still);
    hint.textContent = still ? `Choose ${still} first.` : "";
    hint.hidden = !still;
  };
  button.recheck();
  return [hint, button];
}

// Pick a unit, then the rest of the form follows from it (rebuilt when the unit changes).
function unitFirst(legend, units, rest) {
  const holder = el("div", { class: "rest" });
  const picker = chips({ legend, name: "unit", options: unitOptions(units), onChange: (id) => fill(holder, ...rest(id)) });
  return [picker.node, holder];
}

const FORMS = [
  { name: "casualties", label: "Casualties", shown: () => true, build: (done) => unitFirst("Which unit lost models?", mine(), (id) => {
    const unit = state.board.units.find((u) => u.unit === id);
    const count = stepper({ legend: "Models lost", min: 1, max: unit.models, value: 1, name: "count", typed: true });
    // The ruleset's own causes, in its words; chosen beforehand only where one is the phase's own
    // (shooting in the Shooting phase), never the phase's name ("loses 2 models to movement").
    const causes = vocab().causes;
    const initial = causes.find((c) => c.id === state.board.phase)?.id ?? "";
    const cause = chips({ legend: "Cause", name: "cause", initial, options: [
      ...causes.map((c) => ({ value: c.id, label: c.name })), { value: "", label: "not said" }] });
    return [count.node, cause.node, record(() => send(`${unit.name}: ${count.value()} lost`,
      [{ type: "casualties_suffered", unit: id, count: count.value(), ...(cause.value() ? { cause: cause.value() } : {}) }], done))];
  }) },
  { name: "charge", label: "Charge", shown: () => true, build: (done) => unitFirst("Who charges?", mine(), (id) => {
    const options = unitOptions(enemiesOf(id));
    const targets = chips({ legend: "Targets", name: "targets", multiple: true, options });
    const reach = chips({ legend: "In range (as measured)", name: "in_range", multiple: true, options });
    const flank = chips({ legend: "In the flank or rear", name: "flank", multiple: true, options });
    return [targets.node, reach.node, flank.node, record(() => {
      const event = { type: "charge_declared", charger: id, targets: targets.value() };
      if (reach.value().length) event.in_range = reach.value();
      if (flank.value().length) event.flank = flank.value();
      send(`${unitName(id)} charges ${targets.value().map(unitName).join(", ")}`, [event], done);
    }, () => (targets.value().length ? "" : "the targets"))];
  }) },
  { name: "combat", label: "Combat result", shown: () => (isReferee() || withoutReferee()) && vocab().combat_reports, build: combatForm },
  { name: "fact", label: "Table fact", shown: () => vocab().facts.length > 0, build: (done) => unitFirst("About which unit?", mine(), (id) => {
    const value = el("div", { class: "value" });
    let read = () => true;
    const fact = chips({ legend: "What the table says", name: "fact", options: vocab().facts.map((f) => ({ value: f.id, label: words(f.id) })),
      onChange: (chosen) => {
        const widget = factValue(vocab().facts.find((f) => f.id === chosen), id);
        value.replaceChildren(...(widget ? [widget.node] : []));
        read = widget ? widget.value : () => true;
      } });
    return [fact.node, value, record(() => send(`${unitName(id)}: ${words(fact.value())} ${fieldWords(read())}`,
      [{ type: "table_fact_recorded", unit: id, fact: fact.value(), value: read() }], done),
    () => (fact.value() === null ? "the fact" : read() === null ? "the answer" : ""))];
  }) },
  { name: "decision", label: "Decision", shown: () => vocab().free_decisions.length + vocab().decisions.length > 0,
    build: (done) => unitFirst("Whose decision?", mine(), (id) => {
      const options = [...vocab().free_decisions, ...vocab().decisions].map((d) => ({ value: d.id, label: words(d.id) }));
      const decision = chips({ legend: "Decision", name: "decision", options });
      return [decision.node, record(() => send(`${unitName(id)}: ${words(decision.value())}`,
        [{ type: "player_decided", unit: id, decision: decision.value() }], done),
      () => (decision.value() === null ? "the decision" : ""))];
    }) },
  { name: "unit", label: "Unit change", shown: () => vocab().profile.some((f) => f.changeable),
    build: (done) => unitFirst("Which unit?", mine(), (id) => {
      const fields = vocab().profile.filter((f) => f.changeable);
      const holder = el("div", { class: "value" });
      let read = () => null;
      const field = chips({ legend: "What changes", name: "field", options: fields.map((f) => ({ value: f.id, label: words(f.id) })),
        onChange: (chosen) => { const w = profileValue(fields.find((f) => f.id === chosen)); fill(holder, w.node); read = w.value; } });
      return [field.node, holder, record(() => send(`${unitName(id)}: ${words(field.value())} ${fieldWords(read())}`,
        [{ type: "unit_changed", unit: id, changes: { [field.value()]: read() } }], done),
      () => (field.value() === null ? "what changes" : read() === null ? `the ${words(field.value())}` : ""))];
    }) },
  { name: "ruling", label: "Ruling", shown: isReferee, build: (done) => unitFirst("Which unit?", state.board.units, (id) => {
    const to = chips({ legend: "Put it in the state", name: "state", initial: "",
      options: [{ value: "", label: "unchanged" }, ...vocab().states.map((s) => ({ value: s.id, label: stateName(s.id) }))] });
    const waive = yesNo({ legend: "Waive its tests due", initial: false, name: "waive_tests" });
    const reason = chips({ legend: "Reason (stays in the log)", name: "reason", initial: RULING_REASONS[0],
      options: RULING_REASONS.map((r) => ({ value: r, label: r })) });
    return [to.node, waive.node, reason.node, el("p", { class: "hint" }, cite("engine.ruling")), record(() => {
      const event = { type: "referee_ruled", unit: id, reason: reason.value() };
      if (to.value()) event.state = to.value();
      if (waive.value()) event.waive_tests = true;
      send(`ruling on ${id}`, [event], done);
    })];
  }) },
];

const RULING_REASONS = ["the referee's call at the table", "the players agreed", "a rule the engine does not cover"];

function factValue(fact, id) {
  const others = state.board.units.filter((u) => u.unit !== id);
  const pick = (units, legend, extra = []) => chips({ legend, name: "value", options: [...unitOptions(units), ...extra] });
  switch (fact?.kind) {
    case "bool": return yesNo({ legend: "As measured", name: "value", initial: null });  // never a yes nobody chose
    case "number": return stepper({ legend: "Inches", min: 0.5, max: 48, step: 0.5, value: 3, name: "value", unit: "″" });
    case "unit": return pick(others, "Which other unit?");
    case "friend": return pick(others.filter((u) => u.side === sideOf(id)), "Which friend?");
    case "enemy": return pick(others.filter((u) => u.side !== sideOf(id)), "Which enemy?");
    case "enemy_or_false": return pick(others.filter((u) => u.side !== sideOf(id)), "Which enemy?", [{ value: false, label: "no longer in combat" }]);
    case "choice": return chips({ legend: "Which?", name: "value", options: fact.choices.map((c) => ({ value: c, label: words(c) })) });
    default: return null;
  }
}

// The new value of a profile field: nothing chosen beforehand (a change the referee did not pick is
// never sent), a whole number from 0.
function profileValue(field) {
  if (field.kind === "bool") return yesNo({ legend: words(field.id), name: "value", initial: null });
  if (field.kind === "int") return stepper({ legend: words(field.id), min: 0, max: 99, name: "value" });
  return chips({ legend: words(field.id), name: "value", options: field.choices.map((c) => ({ value: c, label: words(c) })) });
}

// A value in words: yes or no, a unit's name (a fact naming a unit), or the slug's words.
const fieldWords = (value) => (value === true ? "yes" : value === false ? "no" : words(unitName(value)));

function combatForm(done) {
  const detail = new Set(vocab().combat_detail);
  const sides = state.info.sides.map((side) => {
    const units = state.board.units.filter((u) => u.side === side && inPlay(u));
    const chosen = chips({ legend: `${words(side)}: units in the combat`, name: `units-${side}`, multiple: true, options: unitOptions(units) });
    const wounds = stepper({ legend: `${words(side)}: wounds inflicted`, name: `wounds-${side}` });
    const bonus = stepper({ legend: `${words(side)}: bonus`, min: -10, max: 20, value: 0, name: `bonus-${side}` });
    const perUnit = units.map((u) => ({ unit: u.unit,
      ranks: detail.has("ranks") ? stepper({ legend: `${u.name}: ranks`, name: `ranks-${u.unit}` }) : null,
      bonus: detail.has("unit_bonus") ? stepper({ legend: `${u.name}: its own bonus`, min: -10, max: 20, value: 0, name: `unit_bonus-${u.unit}` }) : null,
      left: detail.has("left_combat") ? yesNo({ legend: `${u.name}: left the combat`, initial: false, name: `left-${u.unit}` }) : null }));
    const read = () => {
      const part = { side, units: chosen.value(), wounds_inflicted: wounds.value() };
      if (bonus.value()) part.bonus = bonus.value();
      const rows = perUnit.filter((p) => chosen.value().includes(p.unit));
      const ranks = Object.fromEntries(rows.filter((p) => p.ranks).map((p) => [p.unit, p.ranks.value()]));
      const ub = Object.fromEntries(rows.filter((p) => p.bonus && p.bonus.value()).map((p) => [p.unit, p.bonus.value()]));
      const left = rows.filter((p) => p.left && p.left.value()).map((p) => p.unit);
      if (Object.keys(ranks).length) part.ranks = ranks;
      if (Object.keys(ub).length) part.unit_bonus = ub;
      if (left.length) part.left_combat = left;
      return part;
    };
    const extra = perUnit.flatMap((p) => [p.ranks?.node, p.bonus?.node, p.left?.node]).filter(Boolean);
    return { read, node: el("div", { class: "combat-side" }, chosen.node, wounds.node, bonus.node,
      extra.length ? el("details", {}, el("summary", {}, `${words(side)}: ranks and bonuses per unit`), extra) : null) };
  });
  return [...sides.map((s) => s.node), record(() => send("combat result",
    [{ type: "combat_resolved", sides: sides.map((s) => s.read()) }], done))];
}
