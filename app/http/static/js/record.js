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
import { t, tn } from "./i18n.js";

// What a player may do beyond their own units when there is no referee (access.py's
// `_played_without_referee`): the clock of their own side's phases, and combat results.
const withoutReferee = () => confirming() && state.info.caller.role === "player";
const runsClock = (next) => isReferee() || (withoutReferee() && next.side === state.info.caller.side);

let open = null;  // the form shown, by name
let built = null;  // that form as the user is filling it in: kept while the board redraws around it

export function drawRecord(holder) {
  if (!mayRecord()) {
    fill(holder, el("h2", {}, t("Record")), el("p", { class: "hint" }, t("A spectator's token reads and follows the battle.")));
    return;
  }
  const forms = FORMS.filter((f) => f.shown());
  fill(holder, 
    el("h2", {}, t("Record")),
    unsent(),
    state.live ? null : el("p", { class: "hint" }, t("You are looking at the past: go back to now to record.")),
    clock(),
    el("div", { class: "menu", role: "group", "aria-label": t("what to record") }, forms.map((f) => el("button", {
      type: "button", class: "pick", dataset: { form: f.name }, "aria-expanded": String(open === f.name),
      disabled: !state.live, onclick: () => { open = open === f.name ? null : f.name; built = null; drawRecord(holder); },
    }, f.label()))),
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
  return el("section", { class: "outbox", "aria-label": t("not sent") },
    el("h3", {}, t("Not recorded yet")),
    el("ul", {}, queue.map((w) => el("li", { class: "queued" }, t("{label}: waiting to be sent", { label: w.label }))),
      held.map((w) => el("li", { class: "held" }, t("{label}: not sent, the battle moved on ({events})",
        { label: w.label, events: w.conflict.map((c) => `${c.seq}. ${c.summary}`).join("; ") }),
        el("div", { class: "row" },
          el("button", { type: "button", onclick: () => outbox.sendAgain(w.id) }, t("Send again")),
          el("button", { type: "button", onclick: () => outbox.discard(w.id) }, t("Discard")))))));
}

function clock() {
  const next = state.board.next_clock;
  if (!next || !runsClock(next)) return null;
  const at = { phase: phaseName(next.phase), side: words(next.side), turn: next.turn };
  const label = next.type === "phase_ended"
    ? t("End the {phase} phase ({side}, turn {turn})", at)
    : t("Start turn {turn} · {side} · {phase}", at);
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
  const phase = { phase: phaseName(next.phase) };
  const why = next.type === "phase_ended"
    ? tn("The {phase} phase cannot end yet: {n} test is due.", "The {phase} phase cannot end yet: {n} tests are due.", count, phase)
    : tn("The {phase} phase cannot start yet: {n} test is due.", "The {phase} phase cannot start yet: {n} tests are due.", count, phase);
  return el("div", { class: "clock-waits", id: "clock-waits" },
    el("p", {}, why, " ", cite("engine.clock.tests_first", { full: false })),
    el("button", { type: "button", id: "next-phase", class: "secondary", dataset: { waits: "tests" },
      onclick: () => goToDue() }, count === 1 ? t("Roll the test due first")
        : tn("Roll the {n} tests due first", "Roll the {n} tests due first", count)));
}

// In a battle the players confirm, the phase does not end on an open dispute (engine.dispute.meanwhile)
// or on the ender's own claims the other side has not confirmed (engine.claim.phase_end): said here,
// where the button would be, rather than sent and refused.
function claimsWait(next) {
  const open = openDisputes();
  const phase = phaseName(next.phase);
  if (open) {
    return el("div", { class: "clock-waits", id: "clock-waits", dataset: { waits: "disputes" } },
      el("p", {}, tn("The {phase} phase cannot end yet: {n} dispute is open.", "The {phase} phase cannot end yet: {n} disputes are open.", open, { phase }),
        " ", cite("engine.dispute.meanwhile", { full: false })));
  }
  // The side ending the phase confirms the other's claims by ending it; the referee confirms none.
  const mine = isReferee() ? allAwaiting() : mineAwaiting();
  if (!mine.length) return null;
  const count = mine.length;
  return el("div", { class: "clock-waits", id: "clock-waits", dataset: { waits: "claims" } },
    el("p", {}, isReferee()
      ? tn("The {phase} phase cannot end yet: {n} entry awaits a player's confirmation.",
        "The {phase} phase cannot end yet: {n} entries await a player's confirmation.", count, { phase })
      : tn("The {phase} phase cannot end yet: {n} of your entries awaits the other side's confirmation.",
        "The {phase} phase cannot end yet: {n} of your entries await the other side's confirmation.", count, { phase }),
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
  const button = el("button", { type: "button", class: "submit", onclick }, t("Record"));
  if (!missing) return button;
  const hint = el("p", { class: "hint missing", "aria-live": "polite" });
  button.recheck = () => {
    const still = missing();
    button.disabled = Boolean(still);
    hint.textContent = still ? t("Choose {what} first.", { what: still }) : "";
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
  { name: "casualties", label: () => t("Casualties"), shown: () => true, build: (done) => unitFirst(t("Which unit lost models?"), mine(), (id) => {
    const unit = state.board.units.find((u) => u.unit === id);
    const count = stepper({ legend: t("Models lost"), min: 1, max: unit.models, value: 1, name: "count", typed: true });
    // The ruleset's own causes, in its words; chosen beforehand only where one is the phase's own
    // (shooting in the Shooting phase), never the phase's name ("loses 2 models to movement").
    const causes = vocab().causes;
    const initial = causes.find((c) => c.id === state.board.phase)?.id ?? "";
    const cause = chips({ legend: t("Cause"), name: "cause", initial, options: [
      ...causes.map((c) => ({ value: c.id, label: c.name })), { value: "", label: t("not said") }] });
    return [count.node, cause.node, record(() => send(t("{unit}: {count} lost", { unit: unit.name, count: count.value() }),
      [{ type: "casualties_suffered", unit: id, count: count.value(), ...(cause.value() ? { cause: cause.value() } : {}) }], done))];
  }) },
  { name: "charge", label: () => t("Charge"), shown: () => true, build: (done) => unitFirst(t("Who charges?"), mine(), (id) => {
    const options = unitOptions(enemiesOf(id));
    const targets = chips({ legend: t("Targets"), name: "targets", multiple: true, options });
    const reach = chips({ legend: t("In range (as measured)"), name: "in_range", multiple: true, options });
    const flank = chips({ legend: t("In the flank or rear"), name: "flank", multiple: true, options });
    return [targets.node, reach.node, flank.node, record(() => {
      const event = { type: "charge_declared", charger: id, targets: targets.value() };
      if (reach.value().length) event.in_range = reach.value();
      if (flank.value().length) event.flank = flank.value();
      send(t("{unit} charges {targets}", { unit: unitName(id), targets: targets.value().map(unitName).join(", ") }), [event], done);
    }, () => (targets.value().length ? "" : t("the targets")))];
  }) },
  { name: "combat", label: () => t("Combat result"), shown: () => (isReferee() || withoutReferee()) && vocab().combat_reports, build: combatForm },
  { name: "fact", label: () => t("Table fact"), shown: () => vocab().facts.length > 0, build: (done) => unitFirst(t("About which unit?"), mine(), (id) => {
    const value = el("div", { class: "value" });
    let read = () => true;
    const fact = chips({ legend: t("What the table says"), name: "fact", options: vocab().facts.map((f) => ({ value: f.id, label: named(f) })),
      onChange: (chosen) => {
        const widget = factValue(vocab().facts.find((f) => f.id === chosen), id);
        value.replaceChildren(...(widget ? [widget.node] : []));
        read = widget ? widget.value : () => true;
      } });
    return [fact.node, value, record(() => send(`${unitName(id)}: ${words(fact.value())} ${fieldWords(read())}`,
      [{ type: "table_fact_recorded", unit: id, fact: fact.value(), value: read() }], done),
    () => (fact.value() === null ? t("the fact") : read() === null ? t("the answer") : ""))];
  }) },
  { name: "decision", label: () => t("Decision"), shown: () => vocab().free_decisions.length + vocab().decisions.length > 0,
    build: (done) => unitFirst(t("Whose decision?"), mine(), (id) => {
      const options = [...vocab().free_decisions, ...vocab().decisions].map((d) => ({ value: d.id, label: named(d) }));
      const decision = chips({ legend: t("Decision"), name: "decision", options });
      return [decision.node, record(() => send(`${unitName(id)}: ${words(decision.value())}`,
        [{ type: "player_decided", unit: id, decision: decision.value() }], done),
      () => (decision.value() === null ? t("the decision") : ""))];
    }) },
  { name: "unit", label: () => t("Unit change"), shown: () => vocab().profile.some((f) => f.changeable),
    build: (done) => unitFirst(t("Which unit?"), mine(), (id) => {
      const fields = vocab().profile.filter((f) => f.changeable);
      const holder = el("div", { class: "value" });
      let read = () => null;
      const field = chips({ legend: t("What changes"), name: "field", options: fields.map((f) => ({ value: f.id, label: named(f) })),
        onChange: (chosen) => { const w = profileValue(fields.find((f) => f.id === chosen)); fill(holder, w.node); read = w.value; } });
      return [field.node, holder, record(() => send(`${unitName(id)}: ${words(field.value())} ${fieldWords(read())}`,
        [{ type: "unit_changed", unit: id, changes: { [field.value()]: read() } }], done),
      () => (field.value() === null ? t("what changes") : read() === null ? t("the {field}", { field: words(field.value()) }) : ""))];
    }) },
  { name: "ruling", label: () => t("Ruling"), shown: isReferee, build: (done) => unitFirst(t("Which unit?"), state.board.units, (id) => {
    const to = chips({ legend: t("Put it in the state"), name: "state", initial: "",
      options: [{ value: "", label: t("unchanged") }, ...vocab().states.map((s) => ({ value: s.id, label: stateName(s.id) }))] });
    const waive = yesNo({ legend: t("Waive its tests due"), initial: false, name: "waive_tests" });
    const reasons = rulingReasons();
    const reason = chips({ legend: t("Reason (stays in the log)"), name: "reason", initial: reasons[0],
      options: reasons.map((r) => ({ value: r, label: r })) });
    return [to.node, waive.node, reason.node, el("p", { class: "hint" }, cite("engine.ruling")), record(() => {
      const event = { type: "referee_ruled", unit: id, reason: reason.value() };
      if (to.value()) event.state = to.value();
      if (waive.value()) event.waive_tests = true;
      send(t("ruling on {unit}", { unit: id }), [event], done);
    })];
  }) },
];

// The reasons offered, in the reader's language (a reason is their words, and stays in the log so).
const rulingReasons = () => [t("the referee's call at the table"), t("the players agreed"), t("a rule the engine does not cover")];

function factValue(fact, id) {
  const others = state.board.units.filter((u) => u.unit !== id);
  const pick = (units, legend, extra = []) => chips({ legend, name: "value", options: [...unitOptions(units), ...extra] });
  switch (fact?.kind) {
    case "bool": return yesNo({ legend: t("As measured"), name: "value", initial: null });  // never a yes nobody chose
    case "number": return stepper({ legend: t("Inches"), min: 0.5, max: 48, step: 0.5, value: 3, name: "value", unit: "″" });
    case "unit": return pick(others, t("Which other unit?"));
    case "friend": return pick(others.filter((u) => u.side === sideOf(id)), t("Which friend?"));
    case "enemy": return pick(others.filter((u) => u.side !== sideOf(id)), t("Which enemy?"));
    case "enemy_or_false": return pick(others.filter((u) => u.side !== sideOf(id)), t("Which enemy?"), [{ value: false, label: t("no longer in combat") }]);
    case "choice": return chips({ legend: t("Which?"), name: "value", options: fact.choices.map((c) => ({ value: c, label: choiceNamed(fact, c) })) });
    default: return null;
  }
}

// The new value of a profile field: nothing chosen beforehand (a change the referee did not pick is
// never sent), a whole number from 0.
function profileValue(field) {
  if (field.kind === "bool") return yesNo({ legend: named(field), name: "value", initial: null });
  if (field.kind === "int") return stepper({ legend: named(field), min: 0, max: 99, name: "value" });
  return chips({ legend: named(field), name: "value", options: field.choices.map((c) => ({ value: c, label: choiceNamed(field, c) })) });
}

// A fact, a decision or a profile field in the ruleset's words (the vocabulary gives them), and one
// of its choices; the machine name as words where the ruleset gives none.
const named = (item) => item.name || words(item.id);
const choiceNamed = (item, choice) => item.choice_names?.[choice] || words(choice);

// A value in words: yes or no, a unit's name (a fact naming a unit), or the slug's words.
const fieldWords = (value) => (value === true ? t("yes") : value === false ? t("no") : words(unitName(value)));

function combatForm(done) {
  const detail = new Set(vocab().combat_detail);
  const sides = state.info.sides.map((side) => {
    const units = state.board.units.filter((u) => u.side === side && inPlay(u));
    const named = { side: words(side) };
    const chosen = chips({ legend: t("{side}: units in the combat", named), name: `units-${side}`, multiple: true, options: unitOptions(units) });
    const wounds = stepper({ legend: t("{side}: wounds inflicted", named), name: `wounds-${side}` });
    const bonus = stepper({ legend: t("{side}: bonus", named), min: -10, max: 20, value: 0, name: `bonus-${side}` });
    const perUnit = units.map((u) => ({ unit: u.unit,
      ranks: detail.has("ranks") ? stepper({ legend: t("{unit}: ranks", { unit: u.name }), name: `ranks-${u.unit}` }) : null,
      bonus: detail.has("unit_bonus") ? stepper({ legend: t("{unit}: its own bonus", { unit: u.name }), min: -10, max: 20, value: 0, name: `unit_bonus-${u.unit}` }) : null,
      left: detail.has("left_combat") ? yesNo({ legend: t("{unit}: left the combat", { unit: u.name }), initial: false, name: `left-${u.unit}` }) : null }));
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
      extra.length ? el("details", {}, el("summary", {}, t("{side}: ranks and bonuses per unit", named)), extra) : null) };
  });
  return [...sides.map((s) => s.node), record(() => send(t("combat result"),
    [{ type: "combat_resolved", sides: sides.map((s) => s.read()) }], done))];
}
