// The strip: each side's units with their states in the ruleset's words and the models they have
// left, from the board as it stood after the last item shown (`/board?at=SEQ`, so a delayed strip
// shows the battle as it was, never ahead of the banner and the ticker).
import { overlay } from "./page.js";
import { say } from "./words.js";

const strip = document.querySelector("#strip");

function draw(board, vocabulary, side) {
  const sides = side ? [side] : vocabulary.sides;
  const phase = vocabulary.vocabulary.phases.find((p) => p.id === board.phase)?.name || board.phase;
  document.querySelector("#clock").textContent = board.turn ? say("clock", { turn: board.turn, side: board.side, phase }) : "";
  strip.replaceChildren(
    ...sides.map((name) => {
      const row = document.createElement("section");
      row.className = "side";
      row.dataset.side = name;
      const title = document.createElement("h2");
      title.textContent = name;
      const units = document.createElement("ul");
      for (const unit of board.units.filter((u) => u.side === name)) {
        const chip = document.createElement("li");
        chip.className = "unit";
        chip.dataset.unit = unit.unit;
        chip.dataset.state = unit.state;
        const label = document.createElement("span");
        label.className = "name";
        label.textContent = unit.name;
        const state = document.createElement("span");
        state.className = "state";
        state.textContent = unit.state_name;
        const models = document.createElement("span");
        models.className = "models";
        models.textContent = say("models", { left: unit.models, starting: unit.starting_models });
        chip.append(label, state, models);
        units.append(chip);
      }
      row.append(title, units);
      return row;
    }),
  );
}

overlay(({ vocabulary, side, read }) => {
  let wanted = 0;  // the last seq shown: the board is read at it
  let reading = false;
  const refresh = async () => {
    if (reading) return;
    reading = true;
    try {
      for (let drawn = 0; drawn !== wanted; ) {
        const at = wanted;
        draw(await read(`board?at=${at}`), vocabulary, side);
        strip.dataset.at = String(at);
        drawn = at;
      }
    } catch {
      // The server did not answer this read: the strip stays as it was drawn, and the next item
      // (or the feed's reconnection, which sends what was missed) reads the board again.
    } finally {
      reading = false;
    }
  };
  return (item) => {
    wanted = item.seq;
    refresh();
  };
});
