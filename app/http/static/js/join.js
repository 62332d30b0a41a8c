// Opening the console from a join link: `#battle=ID&token=SECRET`, and optionally `at=N` (the
// battle as it stood after event N) and `tab=NAME` (that screen). The token is kept in the
// browser's storage, per battle, and taken out of the address bar and the history at once
// (history.replaceState): a link shown to the table, a screenshot or a browser's history never
// carries it on. The address keeps `#battle=ID`, so a reload opens the same battle again.
const tokenKey = (battle) => `morale.token.${battle}`;
const LAST = "morale.lastBattle";

// What the address asks for: {battle, token, at, tab}; the token from storage when the address
// names the battle alone (a reload, a shared moment), the last battle opened when it names none.
export function asked(hash = location.hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const battle = params.get("battle") || localStorage.getItem(LAST) || "";
  const given = params.get("token") || "";
  const at = Number.parseInt(params.get("at") ?? "", 10);
  return {
    battle,
    token: given || (battle ? localStorage.getItem(tokenKey(battle)) || "" : ""),
    at: Number.isInteger(at) && at > 0 ? at : null,
    tab: params.get("tab") || null,
  };
}

// Keep the token of a battle that it opened, and say it was the last one opened.
export function keep(battle, token) {
  localStorage.setItem(tokenKey(battle), token);
  localStorage.setItem(LAST, battle);
}

// A token that no longer opens its battle (revoked): forgotten, so the page asks for a new one.
export function forget(battle) {
  localStorage.removeItem(tokenKey(battle));
}

// The address bar shows the battle alone; the entry it replaces (with the token) leaves the history.
export function scrub(battle) {
  const fragment = battle ? `#${new URLSearchParams({ battle })}` : "";
  history.replaceState(history.state, "", `${location.pathname}${location.search}${fragment}`);
}

// A link to a point of the battle, without a token: whoever opens it needs their own.
export const momentLink = (battle, seq) =>
  `${location.origin}${location.pathname}#${new URLSearchParams({ battle, at: String(seq) })}`;
