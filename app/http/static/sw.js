// The console's service worker: it keeps the page, so a phone that lost the club's Wi-Fi reloads to
// the last board it saw, with its unsent writes (those are the outbox's, in localStorage).
//
// The server serves this file at /sw.js, its first line naming the console's files and their
// version (SHELL, VERSION: app/http/server.py builds them from the static folder, so no list is
// kept by hand here). Every GET of the page is asked of the network first, so a live table sees
// the live battle; its answer is kept, and given back only when the network cannot be reached.
// Writes (POST), the live feed and reads marked fresh are never touched: the outbox and the feed
// handle being cut off. The server's answers are said in the language each read asks for
// (Accept-Language, api.js): each is kept under its language, so a page switched to another one
// never gets the first one's words back.
const SHELL_CACHE = `morale-shell-${VERSION}`;
const ANSWERS_CACHE = "morale-answers";

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(SHELL_CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((n) => n.startsWith("morale-shell-") && n !== SHELL_CACHE)
      .map((n) => caches.delete(n))))
    .then(() => self.clients.claim()));
});

const kept = (url) => url.origin === self.location.origin && url.pathname !== "/sw.js"
  && !url.pathname.endsWith("/feed") && !url.pathname.endsWith("/feed.ndjson");

// Where an answer is kept: its address, and for the server's answers the language asked for.
const keyOf = (request, url, store) => {
  const language = request.headers.get("Accept-Language");
  if (store !== ANSWERS_CACHE || !language) return url.href;
  const keyed = new URL(url.href);
  keyed.searchParams.set("lang", language);
  return keyed.href;
};

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  // A read marked fresh (api.js) is the page's own, from the network only: never a kept answer.
  if (request.method !== "GET" || !kept(url) || request.headers.has("X-Morale-Fresh")) return;
  const store = url.pathname.startsWith("/battles/") ? ANSWERS_CACHE : SHELL_CACHE;
  const key = keyOf(request, url, store);
  event.respondWith(fetch(request).then((answer) => {
    if (answer.ok) {
      const copy = answer.clone();
      event.waitUntil(caches.open(store).then((cache) => cache.put(key, copy)));
    }
    return answer;
  }, () => caches.match(key, { ignoreVary: true }).then((found) => found ?? Response.error())));
});
