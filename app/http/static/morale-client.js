// A client of `morale serve` for web pages: follow a battle's feed, append to its log.
//
// Served by every `morale serve` at /static/morale-client.js, so a page (a stream overlay, a
// scoreboard) imports it from the server it talks to, and the two never disagree. A page on another
// origin may call the server once the referee allows that origin for the battle (`morale cors`).
//
//   import { connect, Conflict } from "http://127.0.0.1:8000/static/morale-client.js";
//   const battle = connect("http://127.0.0.1:8000", "hive-tarsis", token);   // { language: "ru" }: in Russian
//   const stop = battle.follow({ after: 0, onItem: (item) => ..., onStatus: (status) => ... });
//   await battle.append([{ type: "phase_started", ... }], { expectedSeq: await battle.lastSeq() });
//
// Following uses the browser's EventSource on the SSE feed: each message's id is its seq, and the
// browser reconnects by itself with Last-Event-ID, so nothing is missed or given twice. A feed
// closed for good (the server restarted, a laptop woke after hours) is opened again after the last
// item seen. Items are the feed's JSON as the server sends it (/feed.schema.json describes them), so
// a field the feed gains reaches the page untouched. Refusals are the server's RFC 9457 problems:
// a `Refused` holding it, a `Conflict` when the log moved on since `expectedSeq`.

export class Refused extends Error {
  constructor(status, problem) {
    super(problem.detail || `the server answered ${status}`);
    this.name = "Refused";
    this.status = status;
    this.problem = problem;  // {type, title, status, detail, field?, rule?, expected_seq?, actual_seq?}
  }
}

// The log no longer ends at the expectedSeq the append was decided on: read again, decide again.
export class Conflict extends Refused {
  constructor(status, problem) {
    super(status, problem);
    this.name = "Conflict";
    this.expectedSeq = problem.expected_seq;
    this.actualSeq = problem.actual_seq;
  }
}

const REOPEN_MS = 3000;  // after a feed closed for good, before it is opened again

async function answered(response) {
  const text = await response.text();
  let body = null;
  try { body = text ? JSON.parse(text) : null; } catch { body = { detail: text }; }
  if (response.ok) return body;
  const problem = { status: response.status, detail: "", ...(body || {}) };
  throw new (response.status === 409 ? Conflict : Refused)(response.status, problem);
}

// The names the feed's SSE messages may carry (`event:`): the event types and the outcomes' kinds
// its schema lists. An EventSource hands a named message only to a listener of that name, so the
// client listens for each of them as well as for unnamed messages, and hands every item to onItem.
function messageNames(schema) {
  const names = new Set(["message"]);
  for (const definition of Object.values(schema.$defs || {})) {
    for (const key of ["type", "kind"]) {
      for (const name of definition.properties?.[key]?.enum || []) names.add(name);
    }
  }
  return [...names];
}

// One battle on one server, opened with one of its tokens. `server`: where `morale serve` answers
// (its origin, e.g. "http://127.0.0.1:8000"; "" for the page's own). `language` ("en", "ru"): the
// language of the words in what the server answers and of the feed's items (the story, the states,
// refusals' detail), asked for as ?lang=; by default the battle's own (its roster's battle.language),
// else the browser's (its Accept-Language).
export function connect(server, battle, token, { language = "" } = {}) {
  const base = `${server.replace(/\/$/, "")}/battles/${encodeURIComponent(battle)}`;
  const spoken = language ? { "Accept-Language": language } : {};
  const asking = (path) =>
    (language ? `${path}${path.includes("?") ? "&" : "?"}lang=${encodeURIComponent(language)}` : path);
  const call = (path, { method = "GET", body } = {}) =>
    fetch(asking(`${base}/${path}`), {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        ...spoken,
        ...(body ? { "Content-Type": "application/json" } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
      cache: "no-store",
    }).then(answered);
  let names = null;  // the feed's message names, read once from the schema (again if it failed)
  const schemaNames = () =>
    (names ??= fetch(`${server.replace(/\/$/, "")}/feed.schema.json`)
      .then((response) => (response.ok ? response.json() : Promise.reject(new Error("no schema"))))
      .then(messageNames, () => { names = null; return ["message"]; }));

  return {
    // The seq the log ends at now: the expectedSeq of an append decided on it.
    lastSeq: async () => (await call("timeline")).last,

    // Every item after `after` the log holds now (an export), in log order.
    items: async (after = 0) => {
      const text = await fetch(asking(`${base}/feed.ndjson?after=${after}&follow=false`), {
        headers: { Authorization: `Bearer ${token}`, ...spoken },
        cache: "no-store",
      }).then(async (response) => {
        if (!response.ok) await answered(response);
        return response.text();
      });
      return text.split("\n").filter((line) => line.trim()).map((line) => JSON.parse(line));
    },

    // Append events, all or none, if the log still ends at expectedSeq: the items written, each
    // with what it caused. Throws Conflict if the log moved on, Refused for any other refusal.
    append: (events, { expectedSeq }) => call("events", { method: "POST", body: { expected_seq: expectedSeq, events } }),

    // Each item after `after`, then each new one as it is appended; onStatus hears "live",
    // "reconnecting", "offline", and "refused" with the Refused error (following then stops).
    // Returns a function that stops following.
    follow({ after = 0, onItem, onStatus = () => {} }) {
      let lastSeen = after;
      let source = null;
      let stopped = false;
      const deliver = (message) => {
        const item = JSON.parse(message.data);
        if (item.seq <= lastSeen) return;  // a message heard under two names, or sent again
        lastSeen = item.seq;
        onStatus("live");  // a message is the proof
        onItem(item);
      };
      const again = () => { onStatus("offline"); setTimeout(open, REOPEN_MS); };
      const refuse = (error) => { stopped = true; onStatus("refused", error); };
      const open = async () => {
        const listened = await schemaNames();
        if (stopped) return;
        const lang = language ? `&lang=${encodeURIComponent(language)}` : "";
        source = new EventSource(`${base}/feed?after=${lastSeen}&token=${encodeURIComponent(token)}${lang}`);
        for (const name of listened) source.addEventListener(name, deliver);
        source.onopen = () => onStatus("live");
        source.onerror = () => {
          if (source.readyState !== EventSource.CLOSED) {
            onStatus("reconnecting");  // the browser tries again by itself, with Last-Event-ID
            return;
          }
          // Closed for good: an EventSource says nothing of why. A refusal (a token revoked, a battle
          // this server does not hold, a log shorter than what was seen) is said once, and following
          // stops; a server away is tried again.
          source.close();
          call("timeline").then(
            (timeline) => {
              if (timeline.last < lastSeen) {
                const detail = `the log ends at ${timeline.last}, before the last item seen (${lastSeen})`;
                refuse(new Refused(422, { status: 422, detail, field: "after" }));
              } else {
                again();
              }
            },
            (error) => (error instanceof Refused && error.status < 500 ? refuse(error) : again()),
          );
        };
      };
      open();
      return () => { stopped = true; source?.close(); };
    },
  };
}
