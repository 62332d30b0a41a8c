// Striking an entry out, and undoing one's own last entry: the server is asked first what it would
// strike (the entry, and the later entries that stood on it), the list is shown, and nothing is
// sent until the person says so, with a reason (a preset, or their own words). The Log and the
// Disputes screen both strike through here.
import { el, fill } from "./dom.js";
import { state } from "./state.js";
import { submit } from "./outbox.js";

export const REASONS = ["recorded in error", "wrong unit", "wrong dice", "the players agreed to take it back"];
const UNDO_REASON = "undone by who entered it";

// Ask to strike event `seq`: the group of the preview and the reasons, appended to `holder`.
export async function confirmStrike(holder, seq, { reasons = REASONS } = {}) {
  holder.querySelector(":scope > .confirm")?.remove();
  const preview = await state.api.get(`strike/${seq}`, { fresh: true }).catch((error) => error);
  const group = el("div", { class: "confirm", role: "group", "aria-label": `why strike event ${seq}` });
  if (preview instanceof Error) {
    fill(group, el("p", { class: "refused", role: "alert" }, preview.message), keep());
    holder.append(group);
    return group;
  }
  const send = (reason) => submit(`strike event ${seq}`, `strike/${seq}`, { reason }, preview.strikes.length,
    `Event ${seq} is struck.`);
  fill(group,
    el("p", {}, `Strike out event ${seq}? The log keeps it, struck, with the reason:`),
    strikes(preview),
    reasonPicker({ presets: reasons, send, label: "Strike with this reason" }),
    keep());
  holder.append(group);
  return group;
}

// Undo: the server names this token's last entry still standing (and what stood on it).
export async function confirmUndo(holder) {
  holder.querySelector(":scope > .confirm")?.remove();
  const preview = await state.api.get("undo", { fresh: true }).catch((error) => error);
  const group = el("div", { class: "confirm", role: "group", "aria-label": "undo my last entry" });
  if (preview instanceof Error) {
    fill(group, el("p", { class: "refused", role: "alert" }, preview.message), keep());
  } else {
    fill(group,
      el("p", {}, `Undo your last entry, event ${preview.seq}? The log keeps it, struck:`),
      strikes(preview),
      el("button", { type: "button", class: "undo-it", onclick: () => submit(`undo event ${preview.seq}`, "undo",
        { reason: UNDO_REASON }, preview.strikes.length, `You undid event ${preview.seq}.`) }, "Undo it"),
      keep());
  }
  holder.append(group);
}

// Preset reasons as buttons, and a field for one's own words with its own button: `send(reason)`.
export function reasonPicker({ presets, send, label }) {
  const own = el("input", { type: "text", name: "reason", maxlength: 2000, placeholder: "in your own words" });
  return [
    presets.map((reason) => el("button", { type: "button", class: "reason", onclick: () => send(reason) }, reason)),
    el("form", { class: "own-reason", onsubmit: (e) => { e.preventDefault(); if (own.value.trim()) send(own.value.trim()); } },
      el("label", {}, "Another reason", own), el("button", { type: "submit", class: "reason-own" }, label)),
  ];
}

function strikes(preview) {
  const also = preview.strikes.length > 1
    ? el("p", {}, `These later entries stood on it and are struck with it:`) : null;
  return [el("ul", { class: "strikes" }, el("li", {}, `#${preview.strikes[0].seq} ${preview.strikes[0].said}`)), also,
    also ? el("ul", { class: "strikes" }, preview.strikes.slice(1).map((s) => el("li", {}, `#${s.seq} ${s.said}`))) : null];
}

// The button that closes a question unanswered (marked closed, so a redrawn screen does not bring it back).
export function keep(words = "Keep it") {
  return el("button", { type: "button", class: "cancel", onclick: (e) => {
    const group = e.target.closest(".confirm");
    group.dataset.closed = "true";
    group.remove();
  } }, words);
}
