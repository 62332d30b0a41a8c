// Form widgets for a thumb: big toggle buttons instead of select boxes, and steppers instead of
// number fields, so a whole game is recorded without a keyboard.
import { el } from "./dom.js";
import { numeral, t } from "./i18n.js";

let counter = 0;

// One or several of `options` ([{value, label}]); value() gives the value (or a list when multiple).
export function chips({ legend, options, multiple = false, initial = multiple ? [] : null, name = "", onChange }) {
  let chosen = multiple ? new Set(initial) : initial;
  const buttons = options.map((option) => el("button", {
    type: "button",
    class: "chip",
    "aria-pressed": String(multiple ? chosen.has(option.value) : chosen === option.value),
    dataset: { value: String(option.value) },
    onclick: () => {
      if (multiple) {
        if (chosen.has(option.value)) chosen.delete(option.value); else chosen.add(option.value);
      } else {
        chosen = option.value;
      }
      for (const [i, b] of buttons.entries()) {
        const on = multiple ? chosen.has(options[i].value) : chosen === options[i].value;
        b.setAttribute("aria-pressed", String(on));
      }
      if (onChange) onChange(value());
    },
  }, option.label));
  const value = () => (multiple ? options.map((o) => o.value).filter((v) => chosen.has(v)) : chosen);
  const node = el("fieldset", { class: "chips", dataset: { name } }, el("legend", {}, legend),
    options.length ? buttons : el("p", { class: "hint" }, t("none to choose from")));
  return { node, value };
}

// A whole number (or a number of inches by halves) between min and max, with big - and + buttons.
// With `typed`, a number field beside them too (the phone's number pad: 10 casualties in two taps,
// not nine), kept in step with the buttons: either shows what the other set.
export function stepper({ legend, min = 0, max = 99, step = 1, value = min, name = "", unit = "", typed = false }) {
  let current = value;
  const id = `stepper-${++counter}`;
  const shown = el("output", { id, class: "count", "aria-live": "polite" }, `${numeral(current)}${unit}`);
  const field = typed ? el("input", { type: "text", inputmode: "numeric", pattern: "[0-9]*", class: "typed",
    autocomplete: "off", "aria-label": t("{legend}: type the number", { legend }), value: String(current),
    oninput: () => { const n = Number.parseInt(field.value, 10); if (Number.isFinite(n)) set(n, { typing: true }); },
    onchange: () => { field.value = String(current); } }) : null;
  const set = (next, { typing = false } = {}) => {
    current = Math.max(min, Math.min(max, Math.round(next / step) * step));
    shown.textContent = `${numeral(current)}${unit}`;
    if (field && !typing) field.value = String(current);
  };
  const node = el("fieldset", { class: `stepper${typed ? " typed" : ""}`, dataset: { name } }, el("legend", {}, legend),
    el("button", { type: "button", class: "less", "aria-label": t("{legend}: fewer", { legend }), "aria-controls": id,
      onclick: () => set(current - step) }, "−"),
    shown,
    el("button", { type: "button", class: "more", "aria-label": t("{legend}: more", { legend }), "aria-controls": id,
      onclick: () => set(current + step) }, "+"),
    field ? el("label", { class: "typed-label" }, t("or type {field}", { field })) : null,
    typed ? el("span", { class: "hint range" }, t("{min} to {max}", { min, max })) : null);
  return { node, value: () => current, set };
}

// Yes or no.
export function yesNo({ legend, initial = true, name = "" }) {
  return chips({ legend, name, initial, options: [{ value: true, label: t("yes") }, { value: false, label: t("no") }] });
}

// The units to choose from, by name.
export const unitOptions = (units) => units.map((u) => ({ value: u.unit, label: u.name }));
