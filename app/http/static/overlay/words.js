// What the overlays say in words of their own, each a whole sentence with named placeholders, in the
// language the overlay's address asks for (?lang=: js/i18n.js, whose t() the catalogue is extracted
// from). Everything else an overlay shows is the server's, already in that language: the story's
// lines, the units' names, the states in the ruleset's words.
import { t, tn } from "../js/i18n.js";

const WORDS = {
  due: (values) => t("{name} is due for {unit}: {dice}D6, {target} or less passes.", values),
  dueNoTarget: (values) => t("{name} is due for {unit}: {dice}D6.", values),
  chance: (values) => t("It passes {percent} of the time.", values),
  hadChance: (values) => t("It had a {percent} chance to pass.", values),
  models: ({ left, starting }) => tn("{left} of {n} models", "{left} of {n} models", starting, { left }),
  clock: (values) => t("Turn {turn}, {side}: the {phase} phase.", values),
  waiting: (values) => t("Waiting for the battle's first events.", values),
  noToken: (values) => t("This overlay needs its battle and token in the address: #battle=ID&token=SECRET.", values),
  writes: (values) => t("This overlay was opened with a {role}'s token, which can record: issue it an overlay token (morale tokens {battle} --issue overlay).", values),
  noSide: (values) => t("side: {side} is not a side of {battle}; its sides are {sides}.", values),
  refused: (values) => t("The server refused this overlay: {detail}.", values),
  offline: (values) => t("The server does not answer; the overlay tries again by itself.", values),
};

// The sentence `key` with its placeholders filled in.
export function say(key, values = {}) {
  return WORDS[key](values);
}

export const percent = (chance) => `${Math.round(chance * 100)}%`;
