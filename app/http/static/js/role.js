// Whose page this is: the token's role (from GET .../vocabulary: caller.role and caller.side) as a
// badge in the header and in the page's title, so a phone left on the table says whose it is.
import { $, words } from "./dom.js";
import { state } from "./state.js";
import { t } from "./i18n.js";

const BADGE = {
  referee: () => t("Referee"),
  player: (side) => t("Player · {side}", { side }),
  spectator: () => t("Spectator"),
};

const TITLE = {
  referee: (battle) => t("{battle} · morale · referee's console", { battle }),
  player: (battle, side) => t("{battle} · morale · {side} player's console", { battle, side }),
  spectator: (battle) => t("{battle} · morale · spectator's view", { battle }),
};

export function drawRole() {
  const { role, side } = state.info.caller;
  const badge = $("#role");
  const battle = state.info.name || state.battle;
  badge.hidden = false;
  badge.dataset.role = role;
  badge.textContent = (BADGE[role] ?? (() => words(role)))(words(side));
  document.title = (TITLE[role] ?? ((b) => `${b} · morale`))(battle, words(side));
}
