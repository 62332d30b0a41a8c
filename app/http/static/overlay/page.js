// What every overlay page does before it shows anything: read its address, check its token, and
// hand it the battle's items, each when it is due to be shown.
//
// The address: /overlay/NAME?side=SIDE&size=small|medium|large&theme=dark|light&delay=SECONDS&lang=en|ru
// #battle=ID&token=SECRET. `lang`: the language of the overlay's own words and of the server's (the
// story, the states), when not given the battle's own (its roster's battle.language), else English;
// every read and the feed ask for it. The token is in the fragment, which the browser sends to no server (and
// the server's Referrer-Policy keeps the whole address from other sites); the page gives it to the
// feed and the reads it makes, nowhere else.
import { follow } from "./stream.js";
import { say } from "./words.js";
import { speak } from "../js/i18n.js";

const query = new URLSearchParams(location.search);
const fragment = new URLSearchParams(location.hash.slice(1));

export const html = document.documentElement;
html.dataset.size = query.get("size") || "medium";
html.dataset.theme = query.get("theme") || "dark";
const asked = query.get("lang");  // null: the battle's own language, else English

const notice = (text) => {
  const shown = document.querySelector("#notice");
  shown.textContent = text;
  shown.hidden = !text;
};

// The reads a page makes beside the feed (the board at a point), with its token.
export const reader = (battle, token, language = asked || "en") => (path) =>
  fetch(`/battles/${encodeURIComponent(battle)}/${path}${path.includes("?") ? "&" : "?"}lang=${language}`, {
    headers: { Authorization: `Bearer ${token}`, "Accept-Language": language },
    cache: "no-store",
  }).then((response) => (response.ok ? response.json() : Promise.reject(new Error(`${path}: ${response.status}`))));

// Items in log order, each shown `delay` seconds after the server recorded it (?delay=30, for a
// tournament): a held item waits for its time, and those after it wait behind it. The time is the
// server's (`recorded_at`), read on the page's clock through the server's Date header, one second
// late rather than early (the header counts whole seconds).
function delayed(delay, offsetMs, show) {
  if (!delay) return show;
  const waiting = [];
  let timer = null;
  const due = (item) => Date.parse(item.recorded_at) + (delay + 1) * 1000 - offsetMs;
  const next = () => {
    timer = null;
    while (waiting.length && due(waiting[0]) <= Date.now()) show(waiting.shift());
    if (waiting.length) timer = setTimeout(next, Math.max(0, due(waiting[0]) - Date.now()));
  };
  return (item) => {
    waiting.push(item);
    if (timer === null) next();
  };
}

// Start the overlay: `start({battle, token, side, vocabulary, read})` returns `show(item)`.
export async function overlay(start) {
  let language = await speak(asked || "en");
  const battle = fragment.get("battle");
  const token = fragment.get("token");
  if (!battle || !token) return notice(say("noToken"));
  const vocabulary = () => fetch(`/battles/${encodeURIComponent(battle)}/vocabulary?lang=${language}`, {
    headers: { Authorization: `Bearer ${token}`, "Accept-Language": language },
    cache: "no-store",
  });
  let answer = await vocabulary();
  let body = await answer.json().catch(() => ({ detail: answer.statusText }));
  if (answer.ok && !asked && body.language && body.language !== language) {
    language = await speak(body.language);  // the battle's own, where the address asks for none
    answer = await vocabulary();
    body = await answer.json().catch(() => ({ detail: answer.statusText }));
  }
  const read = reader(battle, token, language);
  if (!answer.ok) {
    document.body.dataset.status = "refused";
    return notice(say("refused", { detail: body.detail }));
  }
  // An overlay's URL sits in a scene file and on the streamer's screen: a token that can record
  // does not belong there.
  if (body.caller.role !== "spectator") return notice(say("writes", { role: body.caller.role, battle }));
  const side = query.get("side");
  if (side !== null && !body.sides.includes(side)) {
    return notice(say("noSide", { side, battle, sides: body.sides.join(", ") }));
  }
  const offsetMs = Date.parse(answer.headers.get("Date")) - Date.now();
  const delay = Number(query.get("delay") || 0);
  const show = start({ battle, token, side, vocabulary: body, read });
  let last = 0;
  let count = 0;
  const shown = (item) => {
    if (item.seq <= last) return;  // each item once, in log order, whichever way it came
    last = item.seq;
    count += 1;
    show(item);
    document.body.dataset.shown = String(count);  // how many items it has shown
    document.body.dataset.seq = String(item.seq);
    document.body.dataset.shownAt = String(Date.now());  // when, on this page's clock (a delay's proof)
  };
  notice(say("waiting"));
  follow(battle, token, language, {
    onItem: delayed(delay, offsetMs, (item) => { notice(""); shown(item); }),
    onStatus: (status, problem) => {
      document.body.dataset.status = status;
      if (status === "refused") notice(say("refused", { detail: problem?.detail || status }));
      else if (status === "offline") notice(say("offline"));
      else if (status === "live" && document.body.dataset.seq) notice("");
    },
  });
}
