// The Share screen, the referee's alone: a join link per role (a fresh token with a label, the
// battle's other tokens untouched), shown as a QR code to scan off this screen and as a link to
// send; and the battle's tokens, each with a button to revoke it (not the one this page uses,
// which would lock the referee out).
import { el, fill, words } from "./dom.js";
import { state } from "./state.js";
import { t } from "./i18n.js";

let made = null;  // the last link made: shown until the screen is left and made again

// Whose a token or a link is, each a whole phrase with its placeholder (for a translation).
const holderWords = ({ role, side }) =>
  role === "player" ? t("the {side} player", { side: words(side) }) : role === "referee" ? t("the referee")
    : role === "overlay" ? t("an overlay (kept when every token is replaced)") : t("a spectator");
const linkFor = ({ role, side }) =>
  role === "player" ? t("Link for the {side} player", { side: words(side) }) : role === "referee" ? t("Link for the referee")
    : t("Link for a spectator");
const madeFor = ({ role, side, label }) =>
  role === "player" ? t("Link for the {side} player: {label}", { side: words(side), label })
    : role === "referee" ? t("Link for the referee: {label}", { label }) : t("Link for a spectator: {label}", { label });
// When a token was issued and last used ("before labels": a token older than its dates).
function issued(token) {
  const created = when(token.created) || t("before labels");
  return token.last_used ? t("issued {created} · last used {used}", { created, used: when(token.last_used) })
    : t("issued {created} · never used", { created });
}
const when = (stamp) => (stamp ? stamp.replace("T", " ").replace(/:\d\dZ$/, " UTC") : "");

function roles() {
  return [{ role: "referee" }, ...state.info.sides.map((side) => ({ role: "player", side })), { role: "spectator" }];
}

export async function drawShare(holder, { failed }) {
  const label = el("input", { name: "label", maxlength: "100", autocomplete: "off", placeholder: t("Anna's phone") });
  const list = el("ul", { class: "tokens", "aria-label": t("the battle's tokens") });
  const redraw = () => drawShare(holder, { failed });
  const make = async (who) => {
    const stamp = new Date().toISOString().slice(0, 16).replace("T", " ");
    const body = { role: who.role, side: who.side ?? "", label: label.value.trim() || t("console link {stamp} UTC", { stamp }) };
    try {
      made = await state.api.post("tokens", body);
    } catch (error) {
      failed(error);
      return;
    }
    await redraw();
    holder.querySelector(".made h3")?.focus();
  };
  fill(holder,
    el("h2", {}, t("Share")),
    el("p", {}, t("Make a link for each person at the table: they scan its code or open the link, and join with their role. Anyone holding a link can use it until you revoke it.")),
    el("label", { class: "label" }, t("Whose link (a label) {field}", { field: label })),
    el("div", { class: "menu roles" }, roles().map((who) =>
      el("button", { type: "button", dataset: { role: who.role, side: who.side ?? "" }, onclick: () => make(who) },
        linkFor(who)))),
    made ? madeLink(made) : null,
    el("h3", {}, t("Tokens of this battle")),
    list);
  await drawTokens(list, { failed, redraw });
}

function madeLink(link) {
  const code = el("div", { class: "qr", role: "img", "aria-label": t("The QR code of the link: {label}", { label: link.label }) });
  code.innerHTML = link.qr_svg;  // the server's own SVG (segno), nothing from the page's input
  const url = el("input", { readonly: true, value: link.join_url, "aria-label": t("the join link"), class: "join-url" });
  const copied = el("span", { role: "status" });
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(link.join_url);
      copied.textContent = t("The link is on the clipboard.");
    } catch {
      url.select();
      copied.textContent = t("Select the link and copy it.");
    }
  };
  return el("div", { class: "made", dataset: { role: link.role, side: link.side } },
    el("h3", { tabindex: "-1" }, madeFor(link)),
    code,
    url,
    el("div", { class: "row" }, el("button", { type: "button", onclick: copy }, t("Copy the link")), copied),
    el("p", { class: "hint" }, t("Shown once: the server keeps only a fingerprint of the token. Make a new link if this one is lost.")));
}

async function drawTokens(list, { failed, redraw }) {
  let tokens;
  try {
    tokens = await state.api.get("tokens");
  } catch (error) {
    failed(error);
    return;
  }
  const mine = state.info.caller.token_id;
  fill(list, tokens.map((token) => {
    const item = el("li", { dataset: { token: token.id, role: token.role, side: token.side } },
      el("strong", {}, token.label || t("no label")), ` · ${holderWords(token)}`,
      el("div", { class: "hint" }, issued(token)));
    if (token.id === mine) {
      item.append(el("div", { class: "hint" }, t("This page's token: revoke it from another referee link.")));
      return item;
    }
    const confirm = () => fill(actions,
      el("button", { type: "button", class: "danger", onclick: () => revoke(token) }, t("Yes, revoke it")),
      el("button", { type: "button", onclick: () => fill(actions, ask) }, t("Keep it")));
    const ask = el("button", { type: "button", class: "revoke", onclick: confirm }, t("Revoke"));
    const actions = el("div", { class: "row" }, ask);
    item.append(actions);
    return item;
  }));

  async function revoke(token) {
    try {
      await state.api.del(`tokens/${encodeURIComponent(token.id)}`);
    } catch (error) {
      failed(error);
      return;
    }
    await redraw();
  }
}
