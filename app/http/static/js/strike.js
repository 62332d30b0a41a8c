// Striking an entry out, and undoing one's own last entry: the server is asked first what it would
// strike (the entry, and the later entries that stood on it), the list is shown, and nothing is
// sent until the person says so, with a reason (a preset, or their own words). The Log and the
// Disputes screen both strike through here. Each question is asked through asking.js, so that the
// redraw a new event brings while the server is asked, or after, does not lose it.
import { ask } from "./asking.js";
import { el, fill } from "./dom.js";
import { state } from "./state.js";
import { submit } from "./outbox.js";
import { t } from "./i18n.js";

// The reasons offered, in the reader's language (a reason is their words, and stays in the log so).
export const REASONS = () => [t("recorded in error"), t("wrong unit"), t("wrong dice"), t("the players agreed to take it back")];
const UNDO_REASON = () => t("undone by who entered it");

// Ask to strike event `seq`: the group of the preview and the reasons, in `row` (the question `key`).
export async function confirmStrike(row, seq, { reasons = REASONS(), key = `strike:${seq}` } = {}) {
  const preview = await state.api.get(`strike/${seq}`, { fresh: true }).catch((error) => error);
  const group = el("div", { class: "confirm", role: "group", "aria-label": t("why strike event {seq}", { seq }) });
  if (preview instanceof Error) {
    fill(group, el("p", { class: "refused", role: "alert" }, preview.message), keep());
    return ask(key, row, group);
  }
  const send = (reason) => submit(t("strike event {seq}", { seq }), `strike/${seq}`, { reason }, preview.strikes.length,
    t("Event {seq} is struck.", { seq }));
  fill(group,
    el("p", {}, t("Strike out event {seq}? The log keeps it, struck, with the reason:", { seq })),
    strikes(preview),
    reasonPicker({ presets: reasons, send, label: t("Strike with this reason") }),
    keep());
  return ask(key, row, group);
}

// Undo: the server names this token's last entry still standing (and what stood on it), in `row`.
export async function confirmUndo(row) {
  const preview = await state.api.get("undo", { fresh: true }).catch((error) => error);
  const group = el("div", { class: "confirm", role: "group", "aria-label": t("undo my last entry") });
  if (preview instanceof Error) {
    fill(group, el("p", { class: "refused", role: "alert" }, preview.message), keep());
  } else {
    fill(group,
      el("p", {}, t("Undo your last entry, event {seq}? The log keeps it, struck:", { seq: preview.seq })),
      strikes(preview),
      el("button", { type: "button", class: "undo-it", onclick: () => submit(t("undo event {seq}", { seq: preview.seq }), "undo",
        { reason: UNDO_REASON() }, preview.strikes.length, t("You undid event {seq}.", { seq: preview.seq })) }, t("Undo it")),
      keep());
  }
  return ask("undo", row, group);
}

// Preset reasons as buttons, and a field for one's own words with its own button: `send(reason)`.
export function reasonPicker({ presets, send, label }) {
  const own = el("input", { type: "text", name: "reason", maxlength: 2000, placeholder: t("in your own words") });
  return [
    presets.map((reason) => el("button", { type: "button", class: "reason", onclick: () => send(reason) }, reason)),
    el("form", { class: "own-reason", onsubmit: (e) => { e.preventDefault(); if (own.value.trim()) send(own.value.trim()); } },
      el("label", {}, t("Another reason"), own), el("button", { type: "submit", class: "reason-own" }, label)),
  ];
}

function strikes(preview) {
  const also = preview.strikes.length > 1
    ? el("p", {}, t("These later entries stood on it and are struck with it:")) : null;
  return [el("ul", { class: "strikes" }, el("li", {}, `#${preview.strikes[0].seq} ${preview.strikes[0].said}`)), also,
    also ? el("ul", { class: "strikes" }, preview.strikes.slice(1).map((s) => el("li", {}, `#${s.seq} ${s.said}`))) : null];
}

// The button that closes a question unanswered (marked closed, so a redrawn screen does not bring it back).
export function keep(words = t("Keep it")) {
  return el("button", { type: "button", class: "cancel", onclick: (e) => {
    const group = e.target.closest(".confirm");
    group.dataset.closed = "true";
    group.remove();
  } }, words);
}
