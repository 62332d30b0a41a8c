// Confirmation, in a battle played without a referee (`engine.claim.*`, `engine.dispute.*`): what
// one side entered stands as a claim until the other side confirms it, disputes it, or plays on.
// The server's GET .../claims says what awaits whom and every dispute with how it ended; this
// module draws it: the bar of what awaits this phone's confirmation (on every screen), the marks
// of the Log's entries, and the Disputes screen with what each role may do about a dispute.
import { $, badged, el, fill, words } from "./dom.js";
import { cite } from "./cite.js";
import { isReferee, role, state } from "./state.js";
import { submit } from "./outbox.js";
import { confirmStrike, keep, reasonPicker } from "./strike.js";
import { ask, askedAgain, dismiss } from "./asking.js";
import { t, tn } from "./i18n.js";

// The reasons offered, in the reader's language (a reason is their words, and stays in the log so).
const DISPUTE_REASONS = () => [t("the count is wrong"), t("the wrong unit"), t("not what happened at the table"), t("out of range or sight")];
const WITHDRAW_REASONS = () => [t("on a second look it stands"), t("we agreed it stands")];
const RULING_REASONS = () => [t("the referee's call at the table"), t("the players agreed it stands")];
const STRIKE_REASONS = () => [t("the other side was right"), t("recorded in error"), t("the players agreed to take it back")];

export const confirming = () => Boolean(state.info?.confirmation);
const mySide = () => (role() === "player" ? state.info.caller.side : "");

// Read what awaits whom (only in a battle that asks for confirmation).
export async function readClaims() {
  if (!confirming()) return;
  const at = state.last;
  state.claims = await state.api.get("claims");
  state.claimsRead = at;
}

const claims = () => state.claims ?? { awaiting: [], confirmed: [], disputes: [], open_disputes: 0 };
// What this phone may confirm: the other side's claims; the referee, called over, confirms any.
export const awaitingMe = () => claims().awaiting.filter((c) => isReferee() || c.awaits === mySide());
export const allAwaiting = () => claims().awaiting;
export const mineAwaiting = () => claims().awaiting.filter((c) => c.side === mySide());
export const openDisputes = () => claims().open_disputes;

// -- the bar --------------------------------------------------------------------------------------
export function drawClaimsBar(holder, { showDisputes }) {
  const shown = confirming() && state.live && role() !== "spectator";
  const asked = shown ? awaitingMe() : [];
  const mine = shown ? mineAwaiting() : [];
  const open = shown && state.tab !== "disputes" ? openDisputes() : 0;  // that screen lists them
  const theirs = open ? myDisputed() : [];
  holder.hidden = !asked.length && !mine.length && !open;
  if (holder.hidden) return;
  const count = asked.length;
  fill(holder,
    count ? el("h2", {}, heading(count)) : null,
    count ? el("ul", { class: "claims" }, asked.map(claimRow)) : null,
    count > 1 ? el("button", { type: "button", class: "confirm-all",
      onclick: () => confirm(asked.map((c) => c.seq)) }, t("Confirm all {count}", { count })) : null,
    mine.length ? el("p", { class: "hint waiting" }, mineWords(mine)) : null,
    theirs.map(disputedMine),
    open ? el("p", { class: "open-disputes" }, tn("{n} dispute is open: the phase does not end until it is resolved.",
      "{n} disputes are open: the phase does not end until they are resolved.", open)) : null,
    open ? el("button", { type: "button", class: "see-disputes", onclick: showDisputes },
      theirs.length ? t("Strike my entry, or see the disputes") : t("See the disputes")) : null);
}

// The open disputes of this player's own entries. A player disputes only the other side's claims
// (engine.dispute.open), so a dispute this side did not open is of an entry of this side's.
const myDisputed = () => (role() === "player"
  ? claims().disputes.filter((d) => d.status === "open" && d.side !== mySide()) : []);

function disputedMine(dispute) {
  const reason = dispute.reason.replace(/\.+$/, "");  // the sentence gives its own full stop
  return el("p", { class: "disputed-mine", dataset: { entry: dispute.entry } },
    t("Your entry #{seq} ({said}) is disputed by {side}: {reason}. If they are right, strike your entry on the Disputes screen; if not, ask them to withdraw the dispute.",
      { seq: dispute.entry, said: dispute.entry_said, side: words(dispute.side), reason }));
}

const heading = (count) => (isReferee()
  ? tn("{n} entry awaits a player's confirmation", "{n} entries await a player's confirmation", count)
  : tn("{n} entry awaits your confirmation", "{n} entries await your confirmation", count));

function mineWords(mine) {
  const side = words(mine[0].awaits);
  const seqs = mine.map((c) => `#${c.seq}`).join(", ");
  return mine.length === 1 ? t("Your entry {seqs} awaits the {side} player's confirmation.", { seqs, side })
    : t("Your entries {seqs} await the {side} player's confirmation.", { seqs, side });
}

function claimRow(claim) {
  const item = el("li", { class: "claim", dataset: { seq: claim.seq, type: claim.type } },
    el("p", {}, el("span", { class: "seq" }, `#${claim.seq}`), ` ${claim.said} `, el("span", { class: "by" }, claim.by)),
    el("div", { class: "row" },
      el("button", { type: "button", class: "confirm-one", "aria-label": t("Confirm event {seq}", { seq: claim.seq }),
        onclick: () => confirm([claim.seq]) }, t("Confirm")),
      // The referee does not dispute an entry: they rule on it or strike it (engine.dispute.open).
      isReferee() ? null : el("button", { type: "button", class: "dispute", "aria-label": t("Dispute event {seq}", { seq: claim.seq }),
        onclick: () => askReason(item, claim.seq) }, t("Dispute"))));
  return askedAgain(`dispute:${claim.seq}`, item);
}

function confirm(seqs) {
  const one = seqs.length === 1;
  const said = { seq: seqs[0], seqs: seqs.join(", ") };
  const label = one ? t("confirm event {seq}", said) : t("confirm events {seqs}", said);
  const done = one ? t("You confirmed event {seq}.", said) : t("You confirmed events {seqs}.", said);
  submit(label, "events", { events: [{ type: "entry_confirmed", seqs }] }, 1, done);
}

function askReason(holder, seq) {
  const send = (reason) => submit(t("dispute event {seq}", { seq }), "events", { events: [{ type: "entry_disputed", seq, reason }] },
    1, t("You disputed event {seq}.", { seq }));
  ask(`dispute:${seq}`, holder, el("div", { class: "confirm", role: "group", "aria-label": t("why dispute event {seq}", { seq }) },
    el("p", {}, t("Dispute event {seq}? Play goes on, but the phase does not end until the dispute is resolved.", { seq }),
      " ", cite("engine.dispute.meanwhile", { full: false })),
    el("p", {}, t("The reason:")),
    reasonPicker({ presets: DISPUTE_REASONS(), send, label: t("Dispute with this reason") }),
    keep(t("Do not dispute it"))));
}

// -- the Log's marks ------------------------------------------------------------------------------
// How a claim stands, in one sentence each (placeholders named, never glued from fragments).
export function claimMark(seq) {
  if (!confirming()) return null;
  const { awaiting, confirmed, disputes } = claims();
  const open = disputes.find((d) => d.entry === seq && d.status === "open");
  if (open) return mark("disputed", t("Disputed by the {side} player at #{seq}: {reason}", { side: words(open.side), seq: open.seq, reason: open.reason }));
  const waiting = awaiting.find((c) => c.seq === seq);
  if (waiting) return mark("awaiting", t("Awaits the {side} player's confirmation.", { side: words(waiting.awaits) }));
  const done = confirmed.find((c) => c.seq === seq);
  if (!done) return null;
  const ended = disputes.find((d) => d.entry === seq && d.ended_at === done.at);
  if (ended) return mark("stands", t("Disputed, and stands (#{seq}).", { seq: done.at }));
  return done.tacit ? mark("confirmed", t("Confirmed by the other side playing on (#{seq}).", { seq: done.at }))
    : mark("confirmed", t("Confirmed by the other side at #{seq}.", { seq: done.at }));
}

const mark = (status, text) => el("p", { class: "claim-mark", dataset: { claim: status } }, text);

// -- the Disputes screen ----------------------------------------------------------------------------
const STATUS = () => ({ open: t("Open"), stands: t("Stands"), withdrawn: t("Withdrawn"), struck: t("Struck") });

export function drawDisputes(holder) {
  if (!confirming()) {
    fill(holder, el("h2", {}, t("Disputes")), el("p", { class: "hint" }, t("This battle does not ask the players to confirm each other's entries.")));
    return;
  }
  const { disputes } = claims();
  if (!disputes.length) {
    fill(holder, el("h2", {}, t("Disputes")), el("p", { class: "hint" }, t("No entry of this battle has been disputed.")));
    return;
  }
  fill(holder,
    el("h2", {}, t("Disputes")),
    el("p", { class: "hint" }, t("A dispute ends when the side that disputed it withdraws it, the side that entered the entry strikes it, or the referee rules on it."),
      " ", cite("engine.dispute.resolve", { full: false })),
    el("ol", { class: "disputes" }, [...disputes].reverse().map(disputeRow)));
}

function disputeRow(row) {
  const item = el("li", { class: "dispute", dataset: { seq: row.seq, entry: row.entry, status: row.status } },
    el("p", {}, el("span", { class: "status", dataset: { status: row.status } }, STATUS()[row.status] ?? words(row.status)), " ", row.said),
    el("p", { class: "entry" }, t("The entry: #{seq} {said} (entered by {by}).", { seq: row.entry, said: row.entry_said, by: row.entered_by })));
  if (row.status === "open" && state.live) {
    item.append(el("div", { class: "row actions" }, actions(item, row)));
    askedAgain(`resolve:${row.entry}`, item);
  }
  return item;
}

// What this token may do about an open dispute: its disputer withdraws it, the side that entered the
// entry strikes it (with what stood on it), the referee rules it stands or strikes it.
function actions(item, row) {
  const side = mySide();
  const stands = (label, presets, cls) => el("button", { type: "button", class: cls, onclick: () => askRuling(item, row, presets) }, label);
  const strike = (label) => el("button", { type: "button", class: "strike-entry",
    onclick: () => {
      dismiss(`resolve:${row.entry}`);  // a ruling's question asked before goes at once
      confirmStrike(item, row.entry, { reasons: STRIKE_REASONS(), key: `resolve:${row.entry}` });
    } }, label);
  if (isReferee()) return [stands(t("Rule that it stands"), RULING_REASONS(), "stands"), strike(t("Strike it"))];
  if (side && side === row.side) return [stands(t("Withdraw the dispute"), WITHDRAW_REASONS(), "withdraw")];
  if (side) return [strike(t("Strike my entry"))];
  return [];
}

function askRuling(holder, row, presets) {
  const seq = row.entry;
  const send = (ruling) => submit(t("resolve the dispute of event {seq}", { seq }), "events",
    { events: [{ type: "dispute_resolved", seq, ruling }] }, 1, t("Event {seq} stands, and its dispute is ended.", { seq }));
  ask(`resolve:${seq}`, holder, el("div", { class: "confirm", role: "group", "aria-label": t("why event {seq} stands", { seq }) },
    el("p", {}, t("Event {seq} stands as entered, and the dispute ends. The reason, for the log:", { seq })),
    reasonPicker({ presets, send, label: t("End the dispute with this reason") }),
    keep(t("Not now"))));
}

export function disputesTab() {
  const open = openDisputes();
  $("#tab-disputes").hidden = !confirming();
  badged($("#tab-disputes"), t("Disputes"), open, tn("Disputes: {n} is open", "Disputes: {n} are open", open));
}
