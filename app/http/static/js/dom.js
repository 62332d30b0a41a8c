// Building the page: one small helper to make elements, and the words of machine values.
export const $ = (selector, root = document) => root.querySelector(selector);
export const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];

// el("button", {type: "button", onclick: fn, dataset: {unit: "kraak"}}, "text", child...)
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child !== null && child !== undefined && child !== false && child !== "") node.append(child);
  }
  return node;
}

// A machine value as words, where the ruleset gives none: "falling_back" -> "falling back".
export const words = (slug) => String(slug ?? "").replaceAll("_", " ");

export const percent = (chance) => `${Math.round(chance * 100)}%`;

// Replace a holder's children, leaving out the parts that are not there (null, "", false).
export function fill(holder, ...children) {
  holder.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false && c !== ""));
}

// A tab's label with a count as a badge in its corner ("Disputes (1)" wraps at a phone's width);
// `spoken`, the whole sentence a screen reader says instead while there is a count.
export function badged(tab, label, count, spoken) {
  tab.replaceChildren(label, ...(count ? [el("span", { class: "badge", "aria-hidden": "true" }, String(count))] : []));
  if (count) tab.setAttribute("aria-label", spoken);
  else tab.removeAttribute("aria-label");
}
