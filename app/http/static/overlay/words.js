// What the overlays say in words of their own, each a whole sentence with named placeholders, so a
// translation (Russian is coming) replaces the sentence, never pieces of it. Everything else an
// overlay shows is the server's: the story's lines, the units' names, the states in the ruleset's words.
export const WORDS = {
  due: "{name} is due for {unit}: {dice}D6, {target} or less passes.",
  dueNoTarget: "{name} is due for {unit}: {dice}D6.",
  chance: "It passes {percent} of the time.",
  hadChance: "It had a {percent} chance to pass.",
  models: "{left} of {starting} models",
  clock: "Turn {turn}, {side}: the {phase} phase.",
  waiting: "Waiting for the battle's first events.",
  noToken: "This overlay needs its battle and token in the address: #battle=ID&token=SECRET.",
  writes: "This overlay was opened with a {role}'s token, which can record: issue it an overlay token (morale tokens {battle} --issue overlay).",
  noSide: "side: {side} is not a side of {battle}; its sides are {sides}.",
  refused: "The server refused this overlay: {detail}.",
  offline: "The server does not answer; the overlay tries again by itself.",
};

// The sentence `key` with its placeholders filled in.
export function say(key, values = {}) {
  return WORDS[key].replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? `{${name}}`));
}

export const percent = (chance) => `${Math.round(chance * 100)}%`;
