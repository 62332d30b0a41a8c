// The console's own words in the reader's language: `t("Roll the dice")`, `t("{unit} falls back",
// { unit })`, `tn("{n} model", "{n} models", n, {...})`. English is the source: each call's first
// argument is the English sentence itself, with named placeholders (as the server's `Words`), so with
// no catalogue a call gives back its template filled in. tools/catalogues.py extracts every literal
// first argument of t() and tn() into static/messages.<lang>.po and compiles it to
// static/messages.<lang>.json ({language, plural, messages}), which `speak` reads; the browser's
// Intl.PluralRules names the plural category of a number, and the catalogue's `plural` says which of
// a message's forms that category is (Russian: one, few, many: 1 модель, 2 модели, 5 моделей).
// No library and no build step: the page loads this module as it is.
//
// What the server says (the board's states, the log's lines, "Why?", a refusal's detail) comes from
// it already in the reader's language: every request carries `lang` (api.js, overlay/page.js).

// The languages the console speaks, each named in its own words (app/language.py's LANGUAGES and
// NAMES: tests/test_language_console.py holds the two to the same).
export const LANGUAGES = ["en", "ru"];
export const NAMES = { en: "English", ru: "Русский" };
const SOURCE = "en";
const KEPT = "morale.language";  // the reader's choice, kept per device
const DECIMAL_COMMA = new Set(["ru"]);  // 3,5 for 3.5, as app/language.py writes it

let chosen = SOURCE;
let book = null;  // the catalogue of the chosen language (null for English)
let rules = null;  // its Intl.PluralRules

// The language a reader chose on this device, if any.
export function keptChoice() {
  let kept = null;
  try { kept = localStorage.getItem(KEPT); } catch { /* storage refused: nothing kept */ }
  return LANGUAGES.includes(kept) ? kept : null;
}

// The language a reader asked for on this device, else the battle's own (its roster's
// `battle.language`, once a battle is open), else the first of the browser's that we speak, else English.
export function preferred(battleLanguage = "") {
  const kept = keptChoice();
  if (kept) return kept;
  if (LANGUAGES.includes(battleLanguage)) return battleLanguage;
  for (const tag of navigator.languages?.length ? navigator.languages : [navigator.language || ""]) {
    const primary = String(tag).split("-")[0].toLowerCase();
    if (LANGUAGES.includes(primary)) return primary;
  }
  return SOURCE;
}

// Keep the reader's choice for the next visit on this device.
export function keepChoice(language) {
  try { localStorage.setItem(KEPT, language); } catch { /* not kept: asked again next time */ }
}

// Speak `language` from now on: its catalogue read (the service worker keeps it for a page opened
// without the network). A catalogue that cannot be read leaves the page in English.
export async function speak(language) {
  const asked = LANGUAGES.includes(language) ? language : SOURCE;
  book = null;
  if (asked !== SOURCE) {
    try {
      const answer = await fetch(`/static/messages.${asked}.json`);
      if (answer.ok) book = await answer.json();
    } catch { /* no catalogue: English */ }
  }
  chosen = book || asked === SOURCE ? asked : SOURCE;
  rules = new Intl.PluralRules(chosen);
  document.documentElement.lang = chosen;
  return chosen;
}

export const language = () => chosen;

// A sentence of the page's own, in the chosen language, its placeholders filled in (parts to append
// where a value is an element: see `fill`).
export function t(template, values = {}) {
  const said = book?.messages?.[template];
  return fill(typeof said === "string" && said ? said : template, values);
}

// A sentence whose noun agrees with the number `n` ({n} in both templates).
export function tn(singular, plural, n, values = {}) {
  const forms = book?.messages?.[singular];
  let template = n === 1 ? singular : plural;
  if (Array.isArray(forms) && forms.length) {
    const index = (book.plural || []).indexOf(rules.select(n));
    template = forms[index >= 0 ? index : forms.length - 1] || template;
  }
  return fill(template, { n, ...values });
}

// The template with its placeholders filled in: a string, or, where a value is an element (a
// rule's citation, a part only a screen reader hears), the sentence's parts in order, the element
// where its placeholder stands (for el() to append: the sentence stays whole in every language).
function fill(template, values) {
  const nodes = Object.values(values).some(isNode);
  if (!nodes) return template.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? shown(values[name]) : whole));
  const parts = [];
  let at = 0;
  for (const found of template.matchAll(/\{(\w+)\}/g)) {
    if (!(found[1] in values)) continue;
    parts.push(template.slice(at, found.index));
    const value = values[found[1]];
    parts.push(isNode(value) ? value : shown(value));
    at = found.index + found[0].length;
  }
  parts.push(template.slice(at));
  return parts.filter((part) => part !== "");
}

const isNode = (value) => typeof Node !== "undefined" && value instanceof Node;

// A number as the chosen language writes it (3,5 in Russian); anything else as it is.
export const numeral = (value) => shown(value);

function shown(value) {
  if (typeof value === "number" && !Number.isInteger(value) && DECIMAL_COMMA.has(chosen)) {
    return String(value).replace(".", ",");
  }
  return String(value ?? "");
}
