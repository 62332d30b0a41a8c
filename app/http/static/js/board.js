// The status board: each side's units as cards in the colour of their state, in the ruleset's words,
// with their profile fields, restrictions and the tests they have due.
import { el, words, fill } from "./dom.js";
import { cite, need } from "./cite.js";
import { inPlay, specialRuleName, state, testName, vocab } from "./state.js";
import { t, tn } from "./i18n.js";

export function drawBoard(holder, { onWhy, onDue }) {
  const { board, due } = state;
  if (!board.units.length) {
    fill(holder, el("h2", { class: "visually-hidden" }, t("Board")),
      el("p", { class: "hint", id: "empty-board" },
        t("No unit is on the table at event {seq}: the battle has started, and its units join in the events that follow. Step forward, or back to now.", { seq: board.seq })));
    return;
  }
  const sides = state.info.sides;
  fill(holder, 
    el("h2", { class: "visually-hidden" }, t("Board")),
    ...sides.map((side) => {
      const units = board.units.filter((u) => u.side === side);
      const gone = units.filter((u) => !inPlay(u));
      const draw = (u) => card(u, due.filter((d) => d.unit === u.unit), { onWhy, onDue });
      return el("section", { class: `team${side === board.side ? " active" : ""}`, dataset: { side } },
        el("h2", {}, words(side), side === board.side ? el("span", { class: "turn-mark" }, turnWords(side)) : null),
        units.filter(inPlay).map(draw),
        gone.length ? outOfPlay(side, gone, draw) : null);
    }));
}

// On a player's own phone, the side whose turn it is is theirs: "your turn", not "their turn".
const turnWords = (side) => {
  const whose = state.info.caller.role === "player" && state.info.caller.side === side ? t("your turn") : t("their turn");
  return ` · ${whose}`;
};

// Units out of play (destroyed, removed) take one line per side, not a card each: the cards are
// drawn only when asked for (a long battle brings on reserves as units fall, thousands in the
// benchmark's). Past this many, the line gives their number, not their names.
const MANY_GONE = 40;

const unfolded = new Set();  // the sides whose units out of play the user asked to see

function outOfPlay(side, gone, draw) {
  const line = gone.length > MANY_GONE
    ? tn("{n} units out of play", "{n} units out of play", gone.length)
    : t("Out of play: {units}", { units: gone.map((u) => `${u.name} (${u.state_name})`).join(", ") });
  const fold = el("details", { class: "gone", open: unfolded.has(side), dataset: { count: gone.length } },
    el("summary", {}, line));
  // A few are drawn folded away at once (their cards still say their state); many, only when asked for.
  const drawGone = () => {
    if ((fold.open || gone.length <= MANY_GONE) && fold.children.length === 1) fold.append(...gone.map(draw));
  };
  fold.addEventListener("toggle", () => {
    if (fold.open) unfolded.add(side); else unfolded.delete(side);
    drawGone();
  });
  drawGone();
  return fold;
}

function card(unit, due, { onWhy, onDue }) {
  const fields = vocab().profile.filter((f) => f.id in unit.fields && f.id !== "full_strength");
  return el("article", {
    class: `unit${unit.unit === state.unit ? " selected" : ""}`,
    dataset: { unit: unit.unit, state: unit.state },
    "aria-labelledby": `name-${unit.unit}`,
  },
    el("div", { class: "top" },
      el("h3", { class: "name", id: `name-${unit.unit}` }, unit.name),
      el("span", { class: "state" }, unit.state_name)),
    el("p", { class: "meta" },
      [tn("{models}/{n} models", "{models}/{n} models", unit.starting_models, { models: unit.models }), unit.unit_type_name || words(unit.unit_type),
        unit.ld === null ? "" : t("Ld {ld}", { ld: unit.ld }),
        unit.special_rules.length ? unit.special_rules.map(specialRuleName).join(", ") : ""].filter(Boolean).join(" · ")),
    fields.length
      ? el("dl", { class: "fields" }, fields.map((f) => el("div", { dataset: { field: f.id } },
        el("dt", {}, f.name || words(f.id)), el("dd", {}, fieldValue(unit.fields[f.id], f)))))
      : null,
    unit.restrictions.length
      ? el("ul", { class: "notes" }, unit.restrictions.map((r) => el("li", {},
        `${r.said} `, r.rule ? cite(r.rule, { full: false }) : null)))
      : null,
    due.map((test) => el("button", {
      type: "button", class: "due-line", dataset: { test: test.test },
      onclick: () => onDue(test),
    }, el("strong", {}, t("{test} due", { test: testName(test.test) })), ` · ${need(test)}`)),
    el("button", { type: "button", class: "why", onclick: () => onWhy(unit.unit) },
      whyWords(unit)),
  );
}

// "Why falling back?", the unit's name heard by a screen reader alone ("Why is Kraak's Guardsmen falling back?").
function whyWords(unit) {
  const who = el("span", { class: "visually-hidden" }, t("is {unit} ", { unit: unit.name }));
  return t("Why {who}{state}?", { who, state: unit.state_name });
}

// A field's value: yes or no, one of its choices in the ruleset's words (the vocabulary's), or the slug's words.
const fieldValue = (value, field) => (value === true ? t("yes") : value === false ? t("no")
  : field?.choice_names?.[value] || words(value));
