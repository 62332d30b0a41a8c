// Writes on their way to the server. Each carries the `expected_seq` of the board the user acted on,
// and waits here (kept in the browser's storage, so a reload loses nothing) until the server has
// answered. Cut off: it is sent again when the connection is back. A 409 means the log moved on:
// the log after that seq says whether this very write landed before the answer was lost (then it
// is done, never sent twice) or another came first (then it is held for the user to look at the
// board and send again or discard: never sent blindly against a board nobody saw).
import { ApiError } from "./api.js";
import { state } from "./state.js";

const listeners = new Set();
let queue = [];
let held = [];
let sending = false;
let retry = null;
let delay = 1000;

const key = () => `morale.outbox.${state.battle}`;
const save = () => localStorage.setItem(key(), JSON.stringify({ queue, held }));
const changed = (news) => { save(); for (const fn of listeners) fn(news); };

export function load() {
  try {
    ({ queue = [], held = [] } = JSON.parse(localStorage.getItem(key()) || "{}"));
  } catch { queue = []; held = []; }
  addEventListener("online", () => flush());
  changed(null);
  flush();
}

export const onChange = (fn) => listeners.add(fn);
export const pending = () => ({ queue: [...queue], held: [...held], sending });

// Queue a write: `path` is "events", "roll" or "next-phase"; `body` lacks expected_seq.
// A write queued behind others expects the log as they will leave it: the board the user saw, plus
// what they recorded on it.
// `count`: how many events the write appends where its body does not list them (a strike with the
// events that stood on it), so a write queued behind it expects the log where it will then end.
// `done`: the sentence the notice says once the server took it ("You confirmed event 11."), where
// "Recorded: " and the label would read as a command; such a notice goes when a later entry lands.
export function submit(label, path, body, count = 1, done = "") {
  const before = queue[queue.length - 1];
  const expected = before ? before.expected_seq + size(before) : state.last;
  queue.push({ id: `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`, label, path, body,
    expected_seq: expected, count, done });
  changed(null);
  return flush();
}

const size = (entry) => (entry.path === "events" ? entry.body.events.length : entry.count ?? 1);

export function sendAgain(id) {
  const entry = held.find((h) => h.id === id);
  held = held.filter((h) => h.id !== id);
  if (entry) queue.push({ ...entry, expected_seq: state.last, conflict: undefined });
  changed(null);
  return flush();
}

export function discard(id) {
  held = held.filter((h) => h.id !== id);
  changed(null);
}

export async function flush() {
  if (sending || !queue.length) return;
  sending = true;
  clearTimeout(retry);
  const entry = queue[0];
  let news;
  try {
    const items = await state.api.post(entry.path, { ...entry.body, expected_seq: entry.expected_seq });
    queue.shift();
    delay = 1000;
    news = { kind: "recorded", entry, items, last: entry.expected_seq + size(entry) };
  } catch (error) {
    news = await failed(entry, error);
  } finally {
    sending = false;
  }
  changed(news);
  if (news.kind !== "offline") await flush();
}

async function failed(entry, error) {
  if (!(error instanceof ApiError) || error.offline || error.status >= 500) {
    retry = setTimeout(flush, delay);
    delay = Math.min(delay * 2, 30000);
    return { kind: "offline", entry, error };
  }
  queue.shift();
  if (error.status !== 409) return { kind: "refused", entry, error };
  const after = await state.api.get(`log?after=${entry.expected_seq}&limit=20`, { fresh: true }).catch(() => []);
  if (landed(entry, after)) return { kind: "recorded", entry, items: [], already: after[0], last: entry.expected_seq + size(entry) };
  held.push({ ...entry, conflict: after.map((row) => ({ seq: row.seq, summary: row.summary })) });
  return { kind: "conflict", entry, error, rows: after };
}

// Did the log take exactly this write right after the seq it was sent against?
function landed(entry, rows) {
  const first = rows[0];
  if (!first) return false;
  if (entry.path === "events") {
    return entry.body.events.every((sent, i) => rows[i] && matches(sent, rows[i].event));
  }
  if (entry.path === "roll") {
    return first.type === "dice_rolled" && first.event.source === "engine"
      && first.event.unit === entry.body.unit && first.event.test === entry.body.test;
  }
  if (entry.path === "undo" || entry.path.startsWith("strike/")) {
    return first.type === "event_retracted" && first.event.reason === entry.body.reason;
  }
  return first.type === "phase_started" || first.type === "phase_ended";
}

function matches(sent, stored) {
  if (sent === stored) return true;
  if (Array.isArray(sent)) return Array.isArray(stored) && sent.length === stored.length
    && sent.every((v, i) => matches(v, stored[i]));
  if (sent && typeof sent === "object") {
    return Object.entries(sent).every(([k, v]) => (stored && k in stored ? matches(v, stored[k]) : empty(v)));
  }
  return false;
}

const empty = (v) => v === "" || v === false || v === 0 || (Array.isArray(v) && !v.length)
  || (v && typeof v === "object" && !Object.keys(v).length);
