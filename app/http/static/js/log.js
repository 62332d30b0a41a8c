// The log as a list to step through, newest first, each entry with who entered it: tap an entry
// to see the board as it stood right after it; the phases of each turn to jump to; and, for the
// referee, striking an entry out (a retraction, with its reason: nothing is ever deleted from the log);
// in a battle the players confirm, whether each claim awaits confirmation, was confirmed or is disputed.
import { el, words, fill } from "./dom.js";
import { isReferee, mayRecord, phaseName, state } from "./state.js";
import { confirmStrike, confirmUndo } from "./strike.js";
import { askedAgain } from "./asking.js";
import { claimMark } from "./claims.js";
import { t } from "./i18n.js";
import { languageSwitch } from "./speak.js";

export function drawLog(holder, { goTo, loadEarlier }) {
  // Each struck entry's retraction, from the log the page holds (a retraction that came in on the
  // feed marks the entry it struck at once, without the log being read again).
  const struck = new Map(state.log.filter((r) => r.type === "event_retracted").map((r) => [r.event.seq, r]));
  const first = state.log[0]?.seq ?? 1;
  fill(holder, 
    el("div", { class: "log-head" }, el("h2", {}, t("Log")), languageSwitch()),
    mayRecord() && state.live ? askedAgain("undo", el("div", { class: "undo" },
      el("button", { type: "button", class: "undo-last", onclick: (e) => confirmUndo(e.target.closest(".undo")) },
        t("Undo my last entry")))) : null,
    marks(goTo),
    el("ol", { class: "log", reversed: true },
      [...state.log].reverse().map((row) => entry(row, struck.get(row.seq), goTo))),
    first > 1 ? el("button", { type: "button", class: "earlier", onclick: loadEarlier }, t("Earlier events")) : null,
  );
}

function entry(row, struck, goTo) {
  const current = row.seq === state.at;
  const item = el("li", { value: row.seq, class: `${struck ? "struck" : ""}${current ? " current" : ""}`,
    dataset: { seq: row.seq, type: row.type } },
  el("button", { type: "button", class: "go", "aria-current": current ? "step" : null, onclick: () => goTo(row.seq) },
    el("span", { class: "seq" }, String(row.seq)), ` ${row.summary}`, struck ? el("span", { class: "visually-hidden" }, t(" (struck out)")) : null,
    author(row)),
  struck ? el("p", { class: "struck-by" }, struckBy(struck)) : claimMark(row.seq));
  if (isReferee() && state.live && !struck && row.type !== "event_retracted" && row.seq > 1) {
    item.append(el("button", { type: "button", class: "strike", "aria-label": t("Strike out event {seq}", { seq: row.seq }),
      onclick: () => confirmStrike(item, row.seq) }, t("Strike")));
    askedAgain(`strike:${row.seq}`, item);
  }
  return item;
}

// The same sentence as `morale log` prints (projections/log.py).
function struckBy(retraction) {
  const said = { by: retraction.by, seq: retraction.seq, reason: retraction.event.reason };
  return retraction.author ? t("Struck by {by} at #{seq}: {reason}", said) : t("Struck at #{seq}: {reason}", said);
}

// Who entered the event, in the server's words ("orks player (console, Anna's phone)", "not recorded").
function author(row) {
  return row.by ? el("span", { class: "by" }, row.by) : null;
}

function marks(goTo) {
  if (!state.marks.length) return null;
  const turns = new Map();
  for (const mark of state.marks) {
    if (!turns.has(mark.turn)) turns.set(mark.turn, []);
    turns.get(mark.turn).push(mark);
  }
  const recent = [...turns].slice(-6);  // a long battle: its last turns (older ones through the log)
  return el("details", { class: "phases" }, el("summary", {}, t("Jump to a phase")), recent.map(([turn, starts]) => el("div", { class: "turn" },
    el("h3", {}, t("Turn {turn}", { turn })),
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
