// The log as a list to step through, newest first, each entry with who entered it: tap an entry
// to see the board as it stood right after it; the phases of each turn to jump to; and, for the
// referee, striking an entry out (a retraction, with its reason: nothing is ever deleted from the log).
import { el, words, fill } from "./dom.js";
import { isReferee, phaseName, state } from "./state.js";
import { submit } from "./outbox.js";

const REASONS = ["recorded in error", "wrong unit", "wrong dice", "the players agreed to take it back"];

export function drawLog(holder, { goTo, loadEarlier }) {
  const struck = new Set(state.log.filter((r) => r.type === "event_retracted").map((r) => r.event.seq));
  const first = state.log[0]?.seq ?? 1;
  fill(holder, 
    el("h2", {}, "Log"),
    marks(goTo),
    el("ol", { class: "log", reversed: true },
      [...state.log].reverse().map((row) => entry(row, struck.has(row.seq), goTo))),
    first > 1 ? el("button", { type: "button", class: "earlier", onclick: loadEarlier }, "Earlier events") : null,
  );
}

function entry(row, struck, goTo) {
  const current = row.seq === state.at;
  const item = el("li", { value: row.seq, class: `${struck ? "struck" : ""}${current ? " current" : ""}`,
    dataset: { seq: row.seq, type: row.type } },
  el("button", { type: "button", class: "go", "aria-current": current ? "step" : null, onclick: () => goTo(row.seq) },
    el("span", { class: "seq" }, String(row.seq)), ` ${row.summary}`, struck ? el("span", { class: "visually-hidden" }, " (struck out)") : null,
    author(row)));
  if (isReferee() && state.live && !struck && row.type !== "event_retracted" && row.seq > 1) {
    item.append(el("button", { type: "button", class: "strike", "aria-label": `Strike out event ${row.seq}`,
      onclick: () => confirmStrike(item, row) }, "Strike"));
  }
  return item;
}

// Who entered the event, in the server's words ("orks player (console, Anna's phone)", "not recorded").
function author(row) {
  return row.by ? el("span", { class: "by" }, row.by) : null;
}

function confirmStrike(item, row) {
  item.querySelector(".confirm")?.remove();
  item.append(el("div", { class: "confirm", role: "group", "aria-label": `why strike event ${row.seq}` },
    el("p", {}, `Strike out event ${row.seq}? The log keeps it, struck, with the reason:`),
    REASONS.map((reason) => el("button", { type: "button", class: "reason", onclick: () => submit(
      `strike event ${row.seq}`, "events", { events: [{ type: "event_retracted", seq: row.seq, reason }] }) }, reason)),
    el("button", { type: "button", class: "cancel", onclick: (e) => e.target.closest(".confirm").remove() }, "Keep it")));
}

function marks(goTo) {
  if (!state.marks.length) return null;
  const turns = new Map();
  for (const mark of state.marks) {
    if (!turns.has(mark.turn)) turns.set(mark.turn, []);
    turns.get(mark.turn).push(mark);
  }
  const recent = [...turns].slice(-6);  // a long battle: its last turns (older ones through the log)
  return el("details", { class: "phases" }, el("summary", {}, "Jump to a phase"), recent.map(([turn, starts]) => el("div", { class: "turn" },
    el("h3", {}, `Turn ${turn}`),
    el("div", { class: "row" }, starts.map((mark) => el("button", {
      type: "button", class: mark.seq <= state.at && state.at < nextStart(mark) ? "current" : "",
      dataset: { seq: mark.seq, turn: mark.turn, side: mark.side, phase: mark.phase },
      onclick: () => goTo(mark.seq),
    }, `${words(mark.side)} ${phaseName(mark.phase)}`))))));
}

function nextStart(mark) {
  const later = state.marks.find((m) => m.seq > mark.seq);
  return later ? later.seq : Infinity;
}
