// The morale viewer: the board of both sides, a timeline to scrub through, the explain chain of a
// unit, and live following through the feed. Everything shown comes from the server's read
// models; the page keeps only where the user is looking (the point in the log and the unit).
// The battle and token come from the URL fragment (#battle=ID&token=TOKEN), which never reaches
// the server's logs.
"use strict";

const view = {
  battle: "",
  token: "",
  last: 0,          // the last event's seq
  marks: [],        // where each phase starts
  summaries: [],    // each event in words, by seq - 1
  at: 0,            // the event the board shows
  live: true,       // follow the newest event
  unit: null,       // the unit whose explanation is shown
  feed: null,
};

const $ = (selector) => document.querySelector(selector);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

const words = (slug) => (slug || "").replaceAll("_", " ");

async function api(path) {
  const response = await fetch(`/battles/${encodeURIComponent(view.battle)}/${path}`, {
    headers: { Authorization: `Bearer ${view.token}` },
  });
  const body = await response.json();
  // A refusal is RFC 9457 problem details (application/problem+json): `detail` is its one line.
  if (!response.ok) throw new Error(body.detail || body.title || response.statusText);
  return body;
}

function showError(error) {
  const box = $("#error");
  box.textContent = error ? String(error.message || error) : "";
  box.hidden = !error;
}

// -- the timeline -------------------------------------------------------------------------------
async function loadTimeline() {
  const [timeline, log] = await Promise.all([api("timeline"), api("log")]);
  view.last = timeline.last;
  view.marks = timeline.marks;
  view.summaries = log.map((row) => row.summary);
  $("#scrub").max = String(view.last);
  drawTurns();
}

function drawTurns() {
  const turns = new Map();
  for (const mark of view.marks) {
    if (!turns.has(mark.turn)) turns.set(mark.turn, []);
    turns.get(mark.turn).push(mark);
  }
  const holder = $("#turns");
  holder.replaceChildren(
    ...[...turns].map(([turn, starts]) =>
      el("div", { class: "turn", dataset: { turn } },
        el("strong", {}, `Turn ${turn}`),
        starts.map((mark) =>
          el("button", {
            type: "button",
            title: `${mark.side}: ${words(mark.phase)} phase`,
            dataset: { seq: mark.seq, turn: mark.turn, side: mark.side, phase: mark.phase },
            onclick: () => goTo(mark.seq),
          }, `${mark.side} ${words(mark.phase)}`),
        ),
      ),
    ),
  );
  markCurrentPhase();
}

function markCurrentPhase() {
  let current = null;
  for (const button of document.querySelectorAll("#turns button")) {
    button.classList.remove("current");
    if (Number(button.dataset.seq) <= view.at) current = button;
  }
  if (current) current.classList.add("current");
}

async function goTo(seq) {
  setLive(seq >= view.last);
  await show(Math.max(1, Math.min(seq, view.last)));
}

function setLive(live) {
  view.live = live;
  $("#follow").setAttribute("aria-pressed", String(live));
}

// -- what is shown at a point -------------------------------------------------------------------
async function show(seq) {
  view.at = seq;
  $("#scrub").value = String(seq);
  const newest = seq >= view.last;
  const point = newest ? "" : `?at=${seq}`;
  try {
    const [board, due] = await Promise.all([api(`board${point}`), api(`due${point}`)]);
    if (view.at !== seq) return;  // the user moved on while we were asking
    drawBoard(board, due);
    const summary = view.summaries[seq - 1] || "";
    $("#at-event").textContent = summary ? `${seq}. ${summary}` : "";
    $("#scrub").setAttribute("aria-valuetext", summary);
    markCurrentPhase();
    if (view.unit) await explain(view.unit);
    document.body.dataset.seq = String(seq);
    showError(null);
  } catch (error) {
    showError(error);
  }
}

function drawBoard(board, due) {
  $("#title").textContent = board.battle;
  const clock = board.turn
    ? `Turn ${board.turn} · ${board.side} · ${words(board.phase)} phase${board.phase_open ? "" : " (ended)"}`
    : "before the first turn";
  $("#clock").textContent = `${clock} · event ${board.seq} of ${view.last}`;
  const sides = [...new Set(board.units.map((u) => u.side))];
  $("#board").replaceChildren(
    ...sides.map((side) =>
      el("div", { class: `side${side === board.side ? " active" : ""}`, dataset: { side } },
        el("h2", {}, side),
        board.units.filter((u) => u.side === side).map((u) => unitCard(u, due.filter((d) => d.unit === u.unit))),
      ),
    ),
  );
}

function dueText(test) {
  const needs = test.target === null ? "" : `, needs ${test.target} or less`;
  const odds = test.odds ? ` (${Math.round(test.odds.chance * 100)}% to pass: ${test.odds.pass_ways}/${test.odds.of})` : "";
  return `${test.dice}D6 for ${words(test.test)}${needs}${odds} `;
}

function unitCard(unit, due) {
  const notes = [
    ...unit.restrictions.map((r) =>
      el("li", {}, `${r.text}${r.until ? ` until the ${r.until}` : ""} `, el("code", {}, r.rule))),
    ...due.map((test) =>
      el("li", { class: "due", dataset: { test: test.test } }, `due: ${dueText(test)}`, el("code", {}, test.rule))),
  ];
  return el("article", {
    class: `unit${unit.unit === view.unit ? " selected" : ""}`,
    tabindex: "0",
    dataset: { unit: unit.unit, state: unit.state },
    onclick: () => select(unit.unit),
    onkeydown: (event) => { if (event.key === "Enter") select(unit.unit); },
  },
    el("div", { class: "top" },
      el("span", { class: "name" }, unit.name),
      // The ruleset's word for the state ("fleeing", "retreating"), as the server names it; the
      // colour comes from the shared state (data-state).
      el("span", { class: "state" }, unit.state_name)),
    el("div", { class: "models" },
      `${unit.models}/${unit.starting_models} models · ${words(unit.unit_type)}`,
      unit.ld === null ? "" : ` · Ld ${unit.ld}`),
    notes.length ? el("ul", {}, notes) : null,
  );
}

async function select(unitId) {
  view.unit = unitId;
  for (const card of document.querySelectorAll(".unit")) {
    card.classList.toggle("selected", card.dataset.unit === unitId);
  }
  try {
    await explain(unitId);
  } catch (error) {
    showError(error);
  }
}

async function explain(unitId) {
  const newest = view.at >= view.last;
  const why = await api(`explain/${encodeURIComponent(unitId)}${newest ? "" : `?at=${view.at}`}`);
  $("#explain").replaceChildren(
    el("h2", {}, `Why is ${why.name} ${why.state_name}?`),
    el("ol", { dataset: { unit: why.unit, state: why.state } },
      why.steps.map((step) =>
        el("li", { class: `step ${step.kind}`, dataset: { seq: step.seq, kind: step.kind, rule: step.rule } },
          el("div", { class: "where" }, `event ${step.seq}${step.status ? ` · ${step.status}` : ""}`),
          el("div", {}, step.text, step.rule ? " " : "", step.rule ? el("code", {}, step.rule) : null),
          // The clause itself, from the rule catalogue: the judge reads the rule beside its ID.
          step.trigger_words && step.trigger !== step.rule
            ? el("div", { class: "words" }, el("code", {}, step.trigger), ` ${step.trigger_words}`)
            : null,
          step.words ? el("div", { class: "words" }, step.words) : null,
          step.chance === null || step.chance === undefined
            ? null
            : el("div", { class: "chance" }, `${Math.round(step.chance * 100)}% to pass (${step.chance_ways})`),
          step.caused_by.length
            ? el("ul", {}, step.caused_by.map((cause) => el("li", {}, `because of event ${cause.seq}: ${cause.text}`)))
            : null,
        ),
      ),
    ),
  );
}

// -- following the feed -------------------------------------------------------------------------
function follow() {
  const after = view.last;
  const url = `/battles/${encodeURIComponent(view.battle)}/feed?after=${after}&token=${encodeURIComponent(view.token)}`;
  const feed = new EventSource(url);
  view.feed = feed;
  feed.onopen = () => {
    $("#status").textContent = "feed connected";
    $("#status").dataset.live = "true";
  };
  feed.onerror = () => {
    $("#status").textContent = "reconnecting…";
    $("#status").dataset.live = "false";
  };
  let pending = Promise.resolve();
  feed.onmessage = (message) => {
    const item = JSON.parse(message.data);
    // One at a time, in order: each message may add to the timeline the next one reads.
    pending = pending.then(() => arrived(item)).catch(showError);
  };
}

async function arrived(item) {
  if (item.seq <= view.last) return;
  await loadTimeline();
  if (view.live) await show(view.last);
  document.body.dataset.lastFeedSeq = String(item.seq);
}

// -- start -------------------------------------------------------------------------------------
function wire() {
  $("#scrub").addEventListener("input", (event) => goTo(Number(event.target.value)));
  $("#back").addEventListener("click", () => goTo(view.at - 1));
  $("#forward").addEventListener("click", () => goTo(view.at + 1));
  $("#follow").addEventListener("click", () => goTo(view.last));
  $("#connect").addEventListener("submit", (event) => {
    event.preventDefault();
    const form = new FormData(event.target);
    location.hash = new URLSearchParams({ battle: form.get("battle"), token: form.get("token") }).toString();
    location.reload();
  });
}

async function start() {
  wire();
  const params = new URLSearchParams(location.hash.slice(1));
  view.battle = params.get("battle") || "";
  view.token = params.get("token") || "";
  if (!view.battle || !view.token) {
    $("#connect").hidden = false;
    return;
  }
  try {
    await loadTimeline();
  } catch (error) {
    showError(error);
    $("#connect").hidden = false;
    return;
  }
  $("#battle").hidden = false;
  await show(view.last);
  follow();
  document.body.dataset.ready = "true";
}

start();
