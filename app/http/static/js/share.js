// The Share screen, the referee's alone: a join link per role (a fresh token with a label, the
// battle's other tokens untouched), shown as a QR code to scan off this screen and as a link to
// send; and the battle's tokens, each with a button to revoke it (not the one this page uses,
// which would lock the referee out).
import { el, fill, words } from "./dom.js";
import { state } from "./state.js";

let made = null;  // the last link made: shown until the screen is left and made again

// Whose a token or a link is, each a whole phrase with its placeholder (for a translation).
const holderWords = ({ role, side }) =>
  role === "player" ? `the ${words(side)} player` : role === "referee" ? "the referee"
    : role === "overlay" ? "an overlay (kept when every token is replaced)" : "a spectator";
const linkFor = ({ role, side }) =>
  role === "player" ? `Link for the ${words(side)} player` : role === "referee" ? "Link for the referee" : "Link for a spectator";
const madeFor = ({ role, side, label }) =>
  role === "player" ? `Link for the ${words(side)} player: ${label}`
    : role === "referee" ? `Link for the referee: ${label}` : `Link for a spectator: ${label}`;
const when = (stamp) => (stamp ? stamp.replace("T", " ").replace(/:\d\dZ$/, " UTC") : "");

function roles() {
  return [{ role: "referee" }, ...state.info.sides.map((side) => ({ role: "player", side })), { role: "spectator" }];
}

export async function drawShare(holder, { failed }) {
  const label = el("input", { name: "label", maxlength: "100", autocomplete: "off", placeholder: "Anna's phone" });
  const list = el("ul", { class: "tokens", "aria-label": "the battle's tokens" });
  const redraw = () => drawShare(holder, { failed });
  const make = async (who) => {
    const stamp = new Date().toISOString().slice(0, 16).replace("T", " ");
    const body = { role: who.role, side: who.side ?? "", label: label.value.trim() || `console link ${stamp} UTC` };
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
    el("h2", {}, "Share"),
    el("p", {}, "Make a link for each person at the table: they scan its code or open the link, and join with their role. "
      + "Anyone holding a link can use it until you revoke it."),
    el("label", { class: "label" }, "Whose link (a label) ", label),
    el("div", { class: "menu roles" }, roles().map((who) =>
      el("button", { type: "button", dataset: { role: who.role, side: who.side ?? "" }, onclick: () => make(who) },
        linkFor(who)))),
    made ? madeLink(made) : null,
    el("h3", {}, "Tokens of this battle"),
    list);
  await drawTokens(list, { failed, redraw });
}

function madeLink(link) {
  const code = el("div", { class: "qr", role: "img", "aria-label": `The QR code of the link: ${link.label}` });
  code.innerHTML = link.qr_svg;  // the server's own SVG (segno), nothing from the page's input
  const url = el("input", { readonly: true, value: link.join_url, "aria-label": "the join link", class: "join-url" });
  const copied = el("span", { role: "status" });
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(link.join_url);
      copied.textContent = "The link is on the clipboard.";
    } catch {
      url.select();
      copied.textContent = "Select the link and copy it.";
    }
  };
  return el("div", { class: "made", dataset: { role: link.role, side: link.side } },
    el("h3", { tabindex: "-1" }, madeFor(link)),
    code,
    url,
    el("div", { class: "row" }, el("button", { type: "button", onclick: copy }, "Copy the link"), copied),
    el("p", { class: "hint" }, "Shown once: the server keeps only a fingerprint of the token. Make a new link if this one is lost."));
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
      el("strong", {}, `${token.label || "no label"}`), ` · ${holderWords(token)}`,
      el("div", { class: "hint" }, token.last_used
        ? `issued ${when(token.created) || "before labels"} · last used ${when(token.last_used)}`
        : `issued ${when(token.created) || "before labels"} · never used`));
    if (token.id === mine) {
      item.append(el("div", { class: "hint" }, "This page's token: revoke it from another referee link."));
      return item;
    }
    const confirm = () => fill(actions,
      el("button", { type: "button", class: "danger", onclick: () => revoke(token) }, "Yes, revoke it"),
      el("button", { type: "button", onclick: () => fill(actions, ask) }, "Keep it"));
    const ask = el("button", { type: "button", class: "revoke", onclick: confirm }, "Revoke");
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
