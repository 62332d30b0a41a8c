// The referee's console: starts the page, keeps the battle in step with the server, and moves
// between the screens (board, tests due, record, log, why).
import { $, $$, badged, el, words } from "./dom.js";
import { connection } from "./api.js";
import { cite, need } from "./cite.js";
import { isReferee, mayRecord, phaseName, state, stateName, testName, unitName } from "./state.js";
import { drawBoard } from "./board.js";
import { drawDue } from "./due.js";
import { drawLog } from "./log.js";
import { drawRecord, onDueAsked } from "./record.js";
import { drawRole } from "./role.js";
import { keepForOffline } from "./offline.js";
import { drawWhy } from "./why.js";
import { follow } from "./feed.js";
import * as outbox from "./outbox.js";
import { createdNotice, openCreate } from "./create.js";
import { asked, forget, keep, momentLink, scrub } from "./join.js";
import { drawShare } from "./share.js";
import { disputesTab, drawClaimsBar, drawDisputes, readClaims } from "./claims.js";
import { keepChoice, language, preferred, speak, t, tn } from "./i18n.js";
import { languageSwitch, onLanguageChosen, speakPage, startSpeaking } from "./speak.js";

const PAGE = 100;  // log entries fetched at a time

// -- drawing ------------------------------------------------------------------------------------
function draw() {
  const { board } = state;
  $("#title").textContent = state.info.name || state.battle;
  $("#clock").textContent = clockWords(board);
  $("#clock").dataset.when = state.live ? "now" : "then";
  document.body.dataset.tab = state.tab;
  document.body.dataset.role = state.info.caller.role;
  drawRole();
  for (const button of $$("#tabs button")) {
    button.setAttribute("aria-current", String(button.dataset.tab === state.tab));
  }
  const due = state.due.length;
  badged($("#tab-due"), t("Tests due"), due, tn("Tests due: {n} test", "Tests due: {n} tests", due));
  $("#tab-record").hidden = !mayRecord();
  $("#tab-why").hidden = !state.unit;
  $("#tab-share").hidden = !isReferee();
  disputesTab();
  drawBanner();
  drawClaimsBar($("#claims-bar"), { showDisputes: () => show("disputes") });
  drawPast();
  drawBoard($("#board"), { onWhy: why, onDue: () => show("due") });
  drawDue($("#due"));
  drawRecord($("#record"));
  drawLog($("#log"), { goTo, loadEarlier });
  drawDisputes($("#disputes"));
  document.body.dataset.seq = String(state.at);
  document.body.dataset.last = String(state.last);
  document.body.dataset.claims = String(state.claimsRead ?? 0);  // the log's last seq the claims were read at
}

// Stepping back through the log, the clock and the banner describe the past as the past ("then"):
// nothing on the screen may pass for what is due now.
function clockWords(board) {
  const at = { turn: board.turn, side: words(board.side), phase: phaseName(board.phase) };
  const clock = board.turn
    ? (board.phase_open ? t("Turn {turn} · {side} · {phase}", at) : t("Turn {turn} · {side} · {phase} (ended)", at))
    : t("before the first turn");
  return state.live ? clock : t("Then, at event {seq}: {clock}", { seq: state.at, clock });
}

function drawBanner() {
  const first = state.due[0];
  const banner = $("#due-banner");
  banner.hidden = !first || state.tab === "due";
  banner.dataset.when = state.live ? "now" : "then";
  if (!first) return;
  const count = state.due.length;
  const head = state.live
    ? tn("{n} test due", "{n} tests due", count)
    : tn("At event {seq}: {n} test was due", "At event {seq}: {n} tests were due", count, { seq: state.at });
  banner.replaceChildren(el("button", { type: "button", onclick: () => show("due") },
    el("strong", {}, head),
    ` · ${unitName(first.unit)}: ${testName(first.test)} · ${need(first)}`));
}

function drawPast() {
  const bar = $("#past");
  bar.hidden = state.live;
  if (state.live) return;
  const row = state.log.find((r) => r.seq === state.at);
  const where = { seq: state.at, last: state.last, summary: row?.summary };
  $("#past-text").textContent = row ? t("As it stood after event {seq} of {last}: {summary}", where)
    : t("As it stood after event {seq} of {last}", where);
  const link = $("#moment-link");
  if (link.dataset.seq !== String(state.at)) link.hidden = true;  // a link to another moment
}

// "Link to this moment": the battle at this event, without a token, for a judge to open with theirs.
async function shareMoment() {
  const link = momentLink(state.battle, state.at);
  let copied = false;
  try {
    await navigator.clipboard.writeText(link);
    copied = true;
  } catch { /* no clipboard here (plain HTTP, or refused): the link is shown to copy by hand */ }
  const shown = $("#moment-link");
  shown.replaceChildren(el("span", {}, copied ? t("The link is on the clipboard: ") : t("The link to this moment: ")),
    el("a", { href: link }, link));
  shown.dataset.seq = String(state.at);
  shown.hidden = false;
}

function drawOutbox() {
  const { queue, held } = outbox.pending();
  const count = queue.length + held.length;
  const badge = $("#unsent");
  badge.hidden = !count;
  badge.textContent = tn("{n} not sent", "{n} not sent", count);
  document.body.dataset.unsent = String(count);  // 0: every write answered, its notice shown
  if (state.board) drawRecord($("#record"));
}

function setStatus(status) {
  $("#status").dataset.status = status;
  $("#status").textContent = { live: t("live"), reconnecting: t("reconnecting…"), offline: t("offline") }[status];
}

// A notice that only says what the user just did (a confirmation, a dispute, a strike) is old news
// once a later entry lands (the next claim, say): it goes then. Others stay until the next notice.
let noticeLasts = Infinity;  // the last seq a notice of the first kind speaks of

function notice(node, { alert = false } = {}) {
  noticeLasts = Infinity;
  const box = alert ? $("#problem") : $("#notice");
  (alert ? $("#notice") : $("#problem")).hidden = true;
  box.replaceChildren(...(node ? [node] : []));
  box.hidden = !node;
}

// -- reading the battle -----------------------------------------------------------------------------
async function read(seq) {
  const point = seq >= state.last ? "" : `?at=${seq}`;
  const [board, due] = await Promise.all([state.api.get(`board${point}`), state.api.get(`due${point}`)]);
  return { board, due };
}

async function goTo(seq) {
  const target = Math.max(1, Math.min(seq, state.last));
  state.at = target;
  state.live = target >= state.last;
  const { board, due } = await read(target);
  if (state.at !== target) return;  // the user moved on meanwhile
  Object.assign(state, { board, due });
  if (state.unit && state.tab === "why") await explain(state.unit);
  draw();
}

// One refresh at a time (the feed and a write's answer both ask for one): each reads the log after
// the last row it has, so no row is shown twice. A write brings its answer and its feed item, and
// a write of several events an item each: a refresh asked for while another waits to run is that
// one, and one asked for up to an event the page already holds reads nothing (a phone at the table
// read the board three to four times a write before).
let refreshing = Promise.resolve();  // the refresh running, or the last one run
let queued = null;  // the refresh queued behind it, shared by everyone who asks meanwhile
let wanted = 0;  // the newest event those who asked want shown (Infinity: whatever the log holds)
function refresh(upTo = Infinity) {
  wanted = Math.max(wanted, upTo);
  if (!queued) {
    queued = refreshing.catch(() => {}).then(() => {
      const newest = wanted;
      queued = null;
      wanted = 0;
      return newest > state.last ? refreshNow() : undefined;
    });
    refreshing = queued;
  }
  return queued;
}

async function refreshNow() {
  const known = state.log.at(-1)?.seq ?? state.last;
  const rows = (await state.api.get(`log?after=${known}`)).filter((row) => row.seq > (state.log.at(-1)?.seq ?? 0));
  if (!rows.length && state.live && (state.board?.seq ?? -1) >= state.last) return;  // nothing new to show
  state.log.push(...rows);
  if (rows.some((row) => row.seq > noticeLasts)) {
    $("#notice").hidden = true;
    noticeLasts = Infinity;
  }
  for (const row of rows.filter((r) => r.type === "phase_started")) {
    state.marks.push({ seq: row.seq, turn: row.event.turn, side: row.event.side, phase: row.event.phase });
  }
  state.last = Math.max(state.last, state.log.at(-1)?.seq ?? 0);
  if (rows.length) await readClaims().catch(failed);  // what awaits whom moved with the log
  if (state.live) await goTo(state.last);
  else draw();
}

async function loadEarlier() {
  const first = state.log[0]?.seq ?? 1;
  const from = Math.max(0, first - 1 - PAGE);
  const rows = await state.api.get(`log?after=${from}&limit=${first - 1 - from}`);
  state.log.unshift(...rows);
  draw();
}

async function explain(unitId) {
  const point = state.live ? "" : `?at=${state.at}`;
  const why = await state.api.get(`explain/${encodeURIComponent(unitId)}${point}`);
  drawWhy($("#why"), why, { goTo, back: () => show("board") });
}

async function why(unitId) {
  state.unit = unitId;
  state.tab = "why";
  try {
    await explain(unitId);
  } catch (error) {
    $("#why").replaceChildren(el("h2", {}, t("Why?")), el("p", {}, error.message));
  }
  draw();
  window.scrollTo({ top: 0 });
  $("#why h2")?.focus();  // a screen reader starts at the question
}

function show(tab) {
  state.tab = tab;
  draw();
  window.scrollTo({ top: 0 });
  if (tab === "share") drawShare($("#share"), { failed }).catch(failed);
}

// -- what the server said to a write --------------------------------------------------------------
function answered(news) {
  drawOutbox();
  if (!news) return;
  if (news.kind === "recorded") {
    const caused = news.items.flatMap((item) => item.caused);
    const { done, label } = news.entry;
    const recorded = { recorded: el("strong", {}, t("Recorded:")), label, seq: news.already?.seq };
    notice(el("div", { dataset: { verdict: verdict(caused) } },
      done ? el("p", {}, done) : el("p", {}, news.already
        ? t("{recorded} {label} (it had reached the log as event {seq})", recorded) : t("{recorded} {label}", recorded)),
      failures(caused),
      el("ul", {}, caused.map(outcome))));
    noticeLasts = done ? news.last : Infinity;
    refresh(news.last).catch(failed);  // nothing to read if the feed brought the write already
  } else if (news.kind === "refused") {
    const { detail, rule, field } = news.error.problem;
    const head = el("strong", {}, t("Not recorded:"));
    notice(el("div", {}, el("p", {}, t("{not_recorded} {detail}", { not_recorded: head, detail })),
      rule ? el("p", {}, cite(rule)) : field ? el("p", {}, t("field: {field}", { field })) : null), { alert: true });
  } else if (news.kind === "conflict") {
    const events = news.rows.map((r) => t("event {seq}: {summary}", { seq: r.seq, summary: r.summary })).join("; ");
    const head = el("strong", {}, t("Not sent:"));
    notice(el("div", {}, el("p", {}, t("{not_sent} the battle moved on since your board ({events}). Look at the board, then send it again or discard it.",
      { not_sent: head, events })),
    el("button", { type: "button", onclick: () => show("record") }, t("See what was not sent"))), { alert: true });
    refresh().catch(failed);
  } else if (news.kind === "offline") {
    const head = el("strong", {}, t("Not sent yet:"));
    notice(el("p", {}, t("{not_sent} {label}. It will be sent when the server answers again.", { not_sent: head, label: news.entry.label })));
  }
}

// A failed test is news of its own: the notice says so first, in the colour of a failure.
const failedTests = (caused) => caused.filter((c) => c.kind === "test_resolved" && !c.passed);
const verdict = (caused) => (failedTests(caused).length ? "failed"
  : caused.some((c) => c.kind === "test_resolved") ? "passed" : "");

function failures(caused) {
  const failed = failedTests(caused);
  if (!failed.length) return null;
  return el("p", { class: "verdict" }, failed.map((c) => t("{unit} fails the {test}.", { unit: unitName(c.unit), test: testName(c.test) })).join(" "));
}

function outcome(caused) {
  const who = unitName(caused.unit);
  let text = "";
  if (caused.kind === "test_resolved") {
    text = resolved(who, caused);
  } else if (caused.kind === "state_changed") {
    text = `${who}: ${stateName(caused.from_state)} → ${stateName(caused.to_state)}`;
  } else if (caused.kind === "test_due") {
    text = t("{unit}: {test} due", { unit: who, test: testName(caused.test) });
  } else {
    text = `${who}: ${kindWords(caused.kind)}`;
  }
  const failedTest = caused.kind === "test_resolved" && !caused.passed;
  return el("li", { class: failedTest ? "failed" : null, dataset: { kind: caused.kind } },
    failedTest ? el("span", { class: "mark", "aria-hidden": "true" }, "✗ ") : null, `${text} `, cite(caused.rule, { full: false }));
}

// A test resolved, one whole sentence for each way it went. Opposed rolls (a Sweeping Advance) side
// by side, in core/outcomes.py's words (opposed_words), never one sum.
function resolved(who, caused) {
  const said = { unit: who, test: testName(caused.test), total: caused.total, target: caused.target };
  const opposed = (caused.opposed ?? []).map((r) => t("{side} {die} + {adds} {bonus} = {total}",
    { side: r.side, die: r.die, adds: r.adds.replaceAll("_", " "), bonus: r.bonus, total: r.total }));
  if (opposed.length) {
    said.rolls = opposed.reduce((first, second) => t("{first} against {second}", { first, second }));
    return caused.passed ? t("{unit} passes the {test}: {rolls}", said) : t("{unit} fails the {test}: {rolls}", said);
  }
  if (caused.dice?.length) {
    said.dice = caused.dice.join(" + ");
    if (caused.target != null) {
      return caused.passed ? t("{unit} passes the {test}: {dice} = {total} against {target}", said)
        : t("{unit} fails the {test}: {dice} = {total} against {target}", said);
    }
    return caused.passed ? t("{unit} passes the {test}: {dice} = {total}", said) : t("{unit} fails the {test}: {dice} = {total}", said);
  }
  return caused.passed ? t("{unit} passes the {test}", said) : t("{unit} fails the {test}", said);
}

// The other kinds of outcome, in words (an outcome the page does not know: its kind's words).
function kindWords(kind) {
  const known = {
    test_not_taken: t("test not taken"),
    state_change_scheduled: t("state change scheduled"),
    restriction_applied: t("restriction applied"),
    restriction_lifted: t("restriction lifted"),
    profile_changed: t("profile changed"),
    marker_placed: t("marker placed"),
    engagement_changed: t("engagement changed"),
    moved: t("moved"),
  };
  return known[kind] ?? words(kind);
}

const failed = (error) => notice(el("p", {}, error.message), { alert: true });

// -- starting a new battle (create.js) --------------------------------------------------------------
function startNew() {
  $("#connect").hidden = true;
  $("#problem").hidden = true;
  openCreate($("#create"), { land, cancel: () => { $("#create").hidden = true; $("#connect").hidden = false; } });
}

// The new battle, opened as its referee on the Share screen (the new fragment is taken up on hashchange).
function land(created) {
  location.hash = new URLSearchParams({ battle: created.battle, token: created.tokens.referee, tab: "share" }).toString();
}

// -- start ---------------------------------------------------------------------------------------
function wire() {
  for (const button of $$("#tabs button")) button.addEventListener("click", () => show(button.dataset.tab));
  $("#unsent").addEventListener("click", () => show("record"));
  onDueAsked(() => show("due"));
  $("#back").addEventListener("click", () => goTo(state.at - 1).catch(failed));
  $("#forward").addEventListener("click", () => goTo(state.at + 1).catch(failed));
  $("#now").addEventListener("click", () => goTo(state.last).catch(failed));
  $("#moment").addEventListener("click", () => shareMoment().catch(failed));
  $("#connect").addEventListener("submit", (event) => {
    event.preventDefault();
    const form = new FormData(event.target);
    takeUp({ ...waiting, battle: form.get("battle"), token: form.get("token") }).catch(failed);
  });
  $("#start-new").addEventListener("click", startNew);
  // A join link opened in a page already open (pasted, or tapped in a chat): taken up at once.
  addEventListener("hashchange", () => takeUp(asked()).catch(failed));
  document.addEventListener("visibilitychange", () => { if (!document.hidden && state.board) refresh().catch(failed); });
}

// -- opening a battle: from a join link, the token kept, or the form (join.js) --------------------
let opened = { battle: "", token: "" };
let stopFollowing = () => {};
let waiting = { at: null, tab: null };  // where a link asked to open, while the form asks for a token

async function takeUp(wanted) {
  if (wanted.battle && wanted.battle === opened.battle && (!wanted.token || wanted.token === opened.token)) {
    scrub(wanted.battle);
    return moveTo(wanted);
  }
  return openBattle(wanted);
}

function askForToken(battle, reason) {
  $("#connect [name=battle]").value = battle;
  $("#connect").hidden = false;
  $("#console").hidden = true;
  if (reason) notice(reason, { alert: true });
}

async function openBattle({ battle, token, at, tab }) {
  scrub(battle);  // the token leaves the address bar and the history before anything else
  waiting = { at, tab };
  if (!battle || !token) return askForToken(battle);
  const api = connection(battle, token);
  let info, board, due;
  try {
    [info, board, due] = await Promise.all([api.get("vocabulary"), api.get("board"), api.get("due")]);
    if (preferred(info.language) !== language()) {
      // The battle's own language (its roster's), where the reader chose none on this device: the
      // page's words and the server's both in it.
      await speak(preferred(info.language));
      speakPage();
      [info, board, due] = await Promise.all([api.get("vocabulary"), api.get("board"), api.get("due")]);
    }
  } catch (error) {
    if (error.status !== 401) return askForToken(battle, el("p", {}, error.message));
    forget(battle);
    return askForToken(battle, el("div", {}, el("p", {}, error.message),
      el("p", {}, t("The referee may have revoked this token: ask them for a new link."))));
  }
  keep(battle, token);
  stopFollowing();
  opened = { battle, token };
  Object.assign(state, { battle, api, info, board, due, last: board.seq, at: board.seq, live: true });
  Object.assign(state, { log: [], marks: [], unit: null, tab: "board", claims: null, claimsRead: 0 });
  await readClaims().catch(() => {});  // a battle the players confirm: what awaits whom
  $("#connect").hidden = true;
  $("#console").hidden = false;
  $("#create").hidden = true;
  notice(null);
  document.getElementById("created")?.remove();
  const created = createdNotice(battle);  // a battle just started here: the other roles' tokens, once
  if (created) $("#notice").before(created);
  draw();
  Object.assign(document.body.dataset, { ready: "true", battle });
  outbox.onChange(answered);
  outbox.load();
  stopFollowing = follow(state.last, {
    onItem: (item) => { refresh(item.seq).catch(failed); document.body.dataset.lastFeedSeq = String(item.seq); },
    onStatus: setStatus });
  const recent = `log?after=${Math.max(0, state.last - PAGE)}`;
  const [rows, timeline] = await Promise.all([
    state.api.get(recent), state.api.get("timeline")]).catch((e) => { failed(e); return [[], { marks: [] }]; });
  state.log = [...rows, ...state.log.filter((row) => row.seq > (rows.at(-1)?.seq ?? 0))];
  state.marks = timeline.marks;
  // Reopened without the network, the log kept from the start may end before the board kept since:
  // the rows read after it then are kept too.
  if ((state.log.at(-1)?.seq ?? 0) < state.last) await refresh().catch(() => {});
  draw();
  document.body.dataset.logged = "true";
  const kept = ["vocabulary", "board", "due", recent, "timeline", ...(state.info.confirmation ? ["claims"] : [])];
  keepForOffline(() => Promise.all(kept.map((path) => state.api.get(path))));
  await moveTo({ at, tab });
}

// `at=N`: the battle as it stood after event N (as the Log screen steps back); `tab=NAME`: that screen.
async function moveTo({ at, tab }) {
  if (at) await goTo(at);
  const button = tab ? $(`#tab-${CSS.escape(tab)}`) : null;
  if (button && !button.hidden) show(tab);
}

// Another language chosen on the switch: kept on this device, and the page opened again in it where
// it was (the battle, the screen, the moment), so that the server's words come again in it too.
function relanguage(chosen) {
  keepChoice(chosen);
  if (opened.battle && state.info) {
    const place = { battle: opened.battle };
    if (!state.live) place.at = String(state.at);
    if (state.tab !== "board" && state.tab !== "why") place.tab = state.tab;
    history.replaceState(history.state, "", `${location.pathname}${location.search}#${new URLSearchParams(place)}`);
  }
  location.reload();
}

async function start() {
  await startSpeaking();  // the page's words in the reader's language before anything is drawn
  onLanguageChosen(relanguage);
  $("#connect").append(languageSwitch("language-open"));
  wire();
  await takeUp(asked());
}

start();
