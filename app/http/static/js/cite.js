// A rule ID with its clause's words beside it, from the ruleset's catalogue the server serves.
import { el } from "./dom.js";
import { clause } from "./state.js";
import { t } from "./i18n.js";

export function cite(rule, { full = true } = {}) {
  if (!rule) return null;
  const found = clause(rule);
  return el("span", { class: "cite" },
    el("code", {}, rule),
    found && full ? el("span", { class: "clause" }, ` ${found.words}`) : null,
    found && !full ? el("span", { class: "clause" }, ` ${found.title}`) : null);
}

// A due test's need in words: "2D6, needs 7 or less, 58% to pass (21/36)".
export function need(test) {
  const parts = [test.dice ? t("{dice}D6", { dice: test.dice }) : t("no dice")];
  if (test.needs) parts.push(t("needs {needs}", { needs: test.needs }));
  if (test.odds) {
    parts.push(t("{percent}% to pass ({ways}/{of})",
      { percent: Math.round(test.odds.chance * 100), ways: test.odds.pass_ways, of: test.odds.of }));
  }
  return parts.join(" · ");
}
