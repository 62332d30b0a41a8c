// The console's language: chosen once as the page starts (the reader's choice on this device, else
// the browser's, i18n.preferred), its words put on the page's own markup (console.html is written in
// English, the source), and the switch to choose another: at the head of the Log, which every role
// has, and on the form that opens a battle. Not in the header, which is on every screen: a phone's
// first screen is kept for the battle (Why?'s answer fits above the tabs).
import { $, el } from "./dom.js";
import { LANGUAGES, NAMES, language, preferred, speak, t, tn } from "./i18n.js";

export async function startSpeaking() {
  await speak(preferred());
  speakPage();
}

// console.html's own words, said again in the chosen language (in English they are as written).
export function speakPage() {
  document.title = t("morale · console");
  text("#status", t("not connected"));
  text("#unsent", tn("{n} not sent", "{n} not sent", 0));
  text("#connect h2", t("Open a battle"));
  text("#connect > p", t("Its id and a token: the referee's records everything, a player's records for their side, a spectator's watches."));
  labelled("#connect [name=battle]", t("Battle"));
  labelled("#connect [name=token]", t("Token"));
  text("#connect [type=submit]", t("Open"));
  text("#start-new", t("Start a new battle"));
  const tabs = {
    board: t("Board"), due: t("Tests due"), record: t("Record"), log: t("Log"),
    disputes: t("Disputes"), why: t("Why?"), share: t("Share"),
  };
  for (const [tab, words] of Object.entries(tabs)) text(`#tab-${tab}`, words);
  text("#back", t("◀ Back"));
  text("#forward", t("Forward ▶"));
  text("#now", t("Back to now"));
  text("#moment", t("Link to this moment"));
  const named = {
    "#create": t("start a new battle"),
    "#tabs": t("screens"),
    "#claims-bar": t("awaiting confirmation"),
    "#back": t("one event back"),
    "#forward": t("one event forward"),
    "#board": t("board"),
    "#due": t("tests due"),
    "#record": t("record"),
    "#log": t("log"),
    "#disputes": t("disputes"),
    "#why": t("why"),
    "#share": t("share"),
  };
  for (const [selector, label] of Object.entries(named)) $(selector)?.setAttribute("aria-label", label);
}

const text = (selector, words) => { const found = $(selector); if (found) found.textContent = words; };

// A label's words before the field it holds (<label>Battle <input></label>).
function labelled(field, words) {
  const label = $(field)?.closest("label");
  const first = label?.firstChild;
  if (first?.nodeType === Node.TEXT_NODE) first.textContent = `${words} `;
}

let chosen = () => {};  // what another language chosen on the switch does (main.js: the page opens again in it)
export function onLanguageChosen(fn) { chosen = fn; }

// The switch, beside its label: each language in its own words.
export function languageSwitch(id = "language") {
  const choice = el("select", { id, name: "language", onchange: (event) => chosen(event.target.value) },
    LANGUAGES.map((code) => el("option", { value: code, lang: code, selected: code === language() }, NAMES[code])));
  return el("label", { class: "language" }, t("Language"), choice);
}
