// What the page knows: the battle as the server last showed it, and where the user is looking.
// Everything shown is the server's (board, due list, log, explanations); the page keeps only its
// place in the log, the tab, the unit selected and the writes it has not sent yet.
import { language } from "./i18n.js";

export const state = {
  battle: "",
  api: null,         // api.connection(battle, token)
  info: null,        // GET .../vocabulary: sides, dice, the caller's role, the ruleset's words
  last: 0,           // the last event in the log
  at: 0,             // the event the board shows
  live: true,        // the board follows the newest event
  board: null,
  due: [],
  unit: null,        // the unit whose explanation is asked for
  tab: "board",
  log: [],           // rows of the log loaded so far, oldest first
  marks: [],         // where each phase starts
  claims: null,      // GET .../claims, in a battle the players confirm: what awaits whom, the disputes
  claimsRead: 0,     // the last seq of the log when the claims were read
};

// The ruleset's own words, from the vocabulary the server serves (never written here).
const find = (list, id) => (list || []).find((item) => item.id === id);
export const vocab = () => state.info.vocabulary;
export const stateName = (id) => find(vocab().states, id)?.name ?? String(id).replaceAll("_", " ");
export const testName = (id) => find(vocab().tests, id)?.name ?? String(id).replaceAll("_", " ");
export const phaseName = (id) => find(vocab().phases, id)?.name ?? String(id).replaceAll("_", " ");
export const clause = (rule) => vocab().clauses[rule] ?? null;
export const unitName = (id) => state.board?.units.find((u) => u.unit === id)?.name ?? id;
// A special rule as the story names it (projections/narrative.py's `_special_rule`): its id in words
// in English, as it always read, and in another language the title of the clause that gives it effect.
export function specialRuleName(id) {
  const plain = String(id).replaceAll("_", " ");
  if (language() === "en") return plain;
  return clause(find(vocab().special_rules, id)?.rule)?.title || plain;
}

// What the caller's token may do.
export const role = () => state.info.caller.role;
export const mayRecord = () => role() !== "spectator";
export const isReferee = () => role() === "referee";
export function mayActFor(unitId) {
  if (isReferee()) return true;
  if (role() !== "player") return false;
  const unit = state.board?.units.find((u) => u.unit === unitId);
  return Boolean(unit) && unit.side === state.info.caller.side;
}
export const inPlay = (unit) => !["destroyed", "dispersed"].includes(unit.state);
