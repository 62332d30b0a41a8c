// Talking to the server: every call carries the battle's token; a refusal becomes an ApiError whose
// problem is read the same way from either error body the server may give (RFC 9457 problem details
// {type, title, status, detail, rule?, field?, expected_seq?, actual_seq?}, or the older
// {status_code, detail, extra: {...}}). Every call asks for the answer in the console's language
// (?lang=, and Accept-Language for a cache that keys on it; the feed, an EventSource, names it as
// ?lang= too): what the server says (states, the log's lines, refusals) comes back in it. Asked for
// so, it is what the console speaks even in a battle whose own language is another (main.js).
import { language, t } from "./i18n.js";

export class ApiError extends Error {
  constructor(status, problem, offline = false) {
    super(problem.detail || (offline ? t("the server cannot be reached") : t("error {status}", { status })));
    this.status = status;
    this.problem = problem;
    this.offline = offline;  // nothing came back: the request may or may not have reached the server
  }
}

export function problem(body) {
  const extra = (body && body.extra) || {};
  return {
    detail: body?.detail ?? body?.title ?? "",
    rule: body?.rule ?? extra.rule ?? "",
    field: body?.field ?? extra.field ?? "",
    expected_seq: body?.expected_seq ?? extra.expected_seq ?? null,
    actual_seq: body?.actual_seq ?? extra.actual_seq ?? null,
    type: body?.type ?? "",
    questions: body?.questions ?? null,  // 422 unanswered: what a list builder's roster leaves open
  };
}

// One call to the server, answered with its JSON or refused with an ApiError. Every call says it is
// the console (X-Morale-Via): the log seals each write as the console's, not a script's call to the API.
export async function request(path, { method = "GET", body, token = "", headers = {} } = {}) {
  let response;
  try {
    response = await fetch(`${path}${path.includes("?") ? "&" : "?"}lang=${language()}`, {
      method,
      headers: {
        "X-Morale-Via": "console",
        "Accept-Language": language(),
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
        ...(body ? { "Content-Type": "application/json" } : {}),
        ...headers,
      },
      body: body ? JSON.stringify(body) : undefined,
      cache: "no-store",
    });
  } catch {
    throw new ApiError(0, { detail: t("the server cannot be reached") }, true);
  }
  const text = await response.text();
  let parsed = null;
  try { parsed = text ? JSON.parse(text) : null; } catch { parsed = { detail: text }; }
  if (!response.ok) throw new ApiError(response.status, problem(parsed));
  return parsed;
}

export function connection(battle, token) {
  const base = `/battles/${encodeURIComponent(battle)}`;
  // `fresh`: an answer only the server may give, never one the service worker kept (sw.js): the
  // outbox's look at the log after a 409 decides whether a write landed.
  const call = (path, { method = "GET", body, fresh = false } = {}) =>
    request(`${base}/${path}`, { method, body, token, headers: fresh ? { "X-Morale-Fresh": "1" } : {} });
  return {
    get: (path, { fresh = false } = {}) => call(path, { fresh }),
    post: (path, body) => call(path, { method: "POST", body }),
    del: (path) => call(path, { method: "DELETE" }),
    feedUrl: (after) => `${base}/feed?after=${after}&token=${encodeURIComponent(token)}&lang=${language()}`,
  };
}
