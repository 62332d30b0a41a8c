// The ticker: the story's last lines, as `morale narrate` tells them (each item's `story`), the
// newest last. With ?side=, only the items that mention that side.
import { overlay } from "./page.js";

const LINES = 4;
const ticker = document.querySelector("#ticker");

overlay(({ side }) => (item) => {
  if (side && !(item.sides || []).includes(side)) return;
  for (const line of item.story || []) {
    const shown = document.createElement("li");
    shown.className = line.kind;
    shown.dataset.seq = String(item.seq);
    shown.textContent = line.text;
    ticker.append(shown);
  }
  while (ticker.children.length > LINES) ticker.firstElementChild.remove();
});
