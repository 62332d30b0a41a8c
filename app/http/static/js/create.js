// "Start a new battle": for whoever may create battles on this server. A roster file (the TOML
// `morale new` takes) is read here as text and sent to the server as it is; a list builder's roster
// (BattleScribe, New Recruit: .ros, .rosz, one a player or one in all) is sent as its bytes, and
// what the server answers it cannot map (422 unanswered: its `questions`) is asked in a form whose
// answers go back as an answers file's TOML, as `morale new A.rosz --answers FILE`. The short form builds
// the same roster from the ruleset's vocabulary (`GET /rulesets/{id}/{version}`: its unit types,
// special rules and profile fields) and sends it the same way, so the server reads every battle
// with the one roster reader (`POST /battles/roster`) and says what is wrong in its own words.
import { el, fill, words } from "./dom.js";
import { ApiError, request } from "./api.js";
import { chips, yesNo } from "./pickers.js";
import { language, t, tn } from "./i18n.js";

const KEPT = "morale.created.";  // + battle id: the creation answer's tokens, kept in this tab until noted

let creationToken = "";  // the server's creation token, once the server has asked for it
let asked = false;  // the server said it needs one: the field stays shown

// The new battle's first events are sealed as entered in the console (api.js says so on every call).
const call = (path, body) => request(path, { method: body ? "POST" : "GET", body, token: creationToken });

// The screen, in `holder`. `land(created)` is called with the server's answer ({battle, seq, tokens})
// once the battle exists; `cancel()` goes back to "Open a battle".
export function openCreate(holder, { land, cancel }) {
  let mode = null;  // "upload" or "form"
  const problemBox = el("div", { class: "problem", role: "alert", hidden: true });
  const tokenBox = labelled(t("This server's creation token"), el("input", { name: "creation-token", autocomplete: "off",
    value: creationToken, oninput: (e) => { creationToken = e.target.value.trim(); } }));
  tokenBox.hidden = !asked;
  const body = el("div", { class: "create-body" });
  // The last refusal goes at once, not when the file has been read.
  body.addEventListener("submit", () => { problemBox.hidden = true; }, true);

  // The server's words, beside what they are about: the token field, the field named, or the end.
  function refused(error) {
    const { detail, field } = error.problem;
    const token = error.status === 401 || error.status === 403;
    if (token) {
      asked = true;
      tokenBox.hidden = false;
    }
    const head = el("strong", {}, t("Not started:"));
    fill(problemBox, el("p", {}, t("{not_started} {detail}", { not_started: head, detail })),
      token ? el("p", {}, t("Type the creation token this server was started with, then start the battle again."))
        : field ? el("p", {}, t("field: {field}", { field })) : null);
    problemBox.hidden = false;
    for (const marked of holder.querySelectorAll("[aria-invalid]")) marked.removeAttribute("aria-invalid");
    const named = field ? [...holder.querySelectorAll("[data-field]")].find((input) => field === input.dataset.field
      || field.startsWith(`${input.dataset.field}[`) || field.startsWith(`${input.dataset.field}.`)) : null;
    if (token) {
      tokenBox.after(problemBox);
      tokenBox.querySelector("input").focus();
    } else if (named) {
      named.setAttribute("aria-invalid", "true");
      named.closest(".labelled, fieldset, details")?.after(problemBox);
      named.focus();
      problemBox.scrollIntoView({ block: "nearest" });
    } else {
      body.after(problemBox);
      problemBox.scrollIntoView({ block: "nearest" });
    }
  }

  // `sent`: the body, a TOML roster ({roster, file}) or list builders' files ({lists, answers}).
  // A list builder's roster that leaves questions open comes back 422 unanswered: they are asked
  // (`ask`), and the answers go with the files again.
  async function send(roster, file, sent = { roster, file }) {
    problemBox.hidden = true;
    const buttons = [...holder.querySelectorAll("button.submit")];
    for (const button of buttons) button.disabled = true;  // one battle per tap, however slow the answer
    try {
      const created = await call("/battles/roster", sent.lists ? { lists: sent.lists, answers: sent.answers } : sent);
      sessionStorage.setItem(KEPT + created.battle, JSON.stringify(created.tokens));
      land(created);
    } catch (error) {
      if (error.problem?.questions && sent.lists) {
        ask(error.problem, sent);
        return;
      }
      refused(error);
    } finally {
      for (const button of buttons) button.disabled = false;
    }
  }

  // The questions a list builder's roster leaves open, as a form under the upload; the answers
  // already given stay in it (and in what is sent), so each round asks only what is still open.
  function ask(problem, sent) {
    const given = sent.given || {};
    const form = questionsForm(problem.questions, given, (answers) => {
      const merged = { ...given, ...answers };
      send(null, null, { lists: sent.lists, answers: [...sent.files_answers, answersToml(merged)], files_answers: sent.files_answers, given: merged });
    });
    const old = holder.querySelector("form.questions");
    if (old) old.replaceWith(form); else body.append(form);
    form.querySelector("input, select")?.focus();
    form.scrollIntoView({ block: "nearest" });
  }

  async function listed(files, answersFile, refusedHere) {
    const sent = await readListed(files, answersFile, refusedHere);
    if (sent) await send(null, null, sent);
  }

  const choose = (next) => {
    mode = next;
    for (const button of holder.querySelectorAll(".modes button")) {
      button.setAttribute("aria-pressed", String(button.dataset.mode === mode));
    }
    problemBox.hidden = true;
    fill(body, mode === "upload" ? uploadForm(send, refused, listed) : rosterForm(send, refused));
  };

  fill(holder,
    el("h2", {}, t("Start a new battle")),
    el("p", {}, t("Send a roster file (the TOML file that morale new takes, or a list builder's .ros or .rosz) or fill in a short form. You land on the new battle as its referee.")),
    el("div", { class: "row modes", role: "group", "aria-label": t("how to give the roster") },
      el("button", { type: "button", dataset: { mode: "upload" }, "aria-pressed": "false", onclick: () => choose("upload") },
        t("Upload a roster file")),
      el("button", { type: "button", dataset: { mode: "form" }, "aria-pressed": "false", onclick: () => choose("form") },
        t("Fill in a form"))),
    tokenBox,
    body,
    problemBox,
    el("button", { type: "button", class: "cancel", onclick: cancel }, t("Back to opening a battle")));
  holder.hidden = false;
}

// -- a roster file ----------------------------------------------------------------------------------
const LISTED = /\.rosz?$/i;  // a list builder's roster: BattleScribe's XML, or the same zipped

function uploadForm(send, refused, listed) {
  const input = el("input", { type: "file", name: "roster-file", multiple: true,
    accept: ".toml,.ros,.rosz,text/plain,application/toml", dataset: { field: "file" } });
  const answersInput = el("input", { type: "file", name: "answers-file", accept: ".toml,text/plain,application/toml",
    dataset: { field: "answers" } });
  const answersRow = labelled(t("Answers file (TOML), if you kept one from the last game"), answersInput);
  answersRow.hidden = true;
  const go = el("button", { type: "submit", class: "submit", disabled: true }, t("Start the battle"));
  input.addEventListener("change", () => {
    go.disabled = !input.files.length;
    answersRow.hidden = ![...input.files].some((f) => LISTED.test(f.name));
  });
  return el("form", { class: "upload", onsubmit: async (event) => {
    event.preventDefault();
    const files = [...input.files];
    if (!files.length) return;
    if (files.some((f) => LISTED.test(f.name))) {
      await listed(files, answersInput.files[0], refused);
      return;
    }
    if (files.length > 1) {
      refused(new ApiError(0, { detail: t("A TOML roster is sent alone; several files are list builders' rosters (.ros, .rosz)."), field: "file" }));
      return;
    }
    const file = files[0];
    let text;
    try {  // as the CLI reads a roster: UTF-8 or refused, never read with replacement characters
      text = new TextDecoder("utf-8", { fatal: true }).decode(await file.arrayBuffer());
    } catch {
      refused(new ApiError(0, { detail: t("{file}: not UTF-8 text: a roster is a TOML file, written in UTF-8.", { file: file.name }), field: "file" }));
      return;
    }
    await send(text, file.name);
  } },
  labelled(t("Roster file (TOML), or list builders' rosters (.ros, .rosz)"), input),
  el("p", { class: "hint" }, t("A TOML roster names its rules, its sides and its units, as for morale new. A list builder's roster (BattleScribe, New Recruit) may be one a player: choose both.")),
  answersRow,
  go);
}

// List builders' files sent as their bytes (base64), with an answers file if one was chosen.
async function readListed(files, answersFile, refused) {
  const lists = [];
  for (const file of files) {
    if (!LISTED.test(file.name)) {
      refused(new ApiError(0, { detail: t("{file}: a TOML roster is sent alone, not with list builders' rosters.", { file: file.name }), field: "file" }));
      return null;
    }
    lists.push({ file: file.name, data: base64(new Uint8Array(await file.arrayBuffer())) });
  }
  let kept = [];
  if (answersFile) {
    try {
      kept = [new TextDecoder("utf-8", { fatal: true }).decode(await answersFile.arrayBuffer())];
    } catch {
      refused(new ApiError(0, { detail: t("{file}: not UTF-8 text: an answers file is TOML, written in UTF-8.", { file: answersFile.name }), field: "answers" }));
      return null;
    }
  }
  return { lists, answers: kept, files_answers: kept, given: {} };
}

function base64(bytes) {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

// -- the questions a list builder's roster leaves open ------------------------------------------------
// One control a question: a choice where the ruleset has a list (a rule's list ends with "it does
// not change morale"), a whole number, or text. Each is named by its key (`unit."Ork Boyz".ld`), so
// a refusal naming that key marks it.
function questionsForm(questions, given, answered) {
  const controls = questions.map((q) => {
    let control;
    if (q.choices.length) {
      const options = q.choices.map((c) => el("option", { value: c }, words(c)));
      if (q.kind === "rule") options.push(el("option", { value: "false" }, t("none: it does not change morale")));
      control = el("select", { dataset: { field: q.key } }, el("option", { value: "" }, t("choose")), options);
    } else {
      control = el("input", { autocomplete: "off", dataset: { field: q.key },
        ...(q.kind === "int" ? { inputmode: "numeric", class: "number" } : {}) });
    }
    control.question = q;
    const hint = q.units.length ? el("p", { class: "hint" }, t("Units with it: {units}.", { units: q.units.join(", ") })) : null;
    return el("div", { class: "question" }, labelled(`${q.asks}.`, control), hint);
  });
  const values = (form) => {
    const found = {};
    for (const control of form.querySelectorAll("[data-field]")) {
      const raw = control.value.trim();
      if (!raw) continue;
      const q = control.question;
      found[q.key] = { q, value: q.kind === "int" && /^\d{1,6}$/.test(raw) ? Number(raw) : q.kind === "rule" && raw === "false" ? false : raw };
    }
    return found;
  };
  return el("form", { class: "questions", onsubmit: (event) => {
    event.preventDefault();
    answered(values(event.currentTarget));
  } },
  el("h3", {}, tn("The roster leaves {n} question to answer", "The roster leaves {n} questions to answer", questions.length)),
  el("p", { class: "hint" }, t("What the list builder's file does not say, or says in words these rules do not know. Nothing is guessed: answer each, then start the battle.")),
  controls,
  el("button", { type: "submit", class: "submit" }, t("Answer and start the battle")),
  el("button", { type: "button", class: "save", onclick: (event) => {
    saveFile("answers.toml", answersToml({ ...given, ...values(event.currentTarget.form) }));
  } }, t("Save the answers as a file")));
}

// The answers as an answers file: a table a force, a unit; [battle]; [rules] for what each rule is.
export function answersToml(given) {
  const tables = new Map();
  for (const { q, value } of Object.values(given)) {
    const header = q.section === "battle" ? "battle" : q.section === "rules" ? "rules" : `${q.section}.${quoted(q.name)}`;
    const key = q.section === "rules" ? quoted(q.name) : q.item;
    const shown = typeof value === "number" || typeof value === "boolean" ? String(value) : quoted(value);
    if (!tables.has(header)) tables.set(header, []);
    tables.get(header).push(`${key} = ${shown}`);
  }
  return [...tables].map(([header, lines]) => `[${header}]\n${lines.join("\n")}\n`).join("\n");
}

function saveFile(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: "application/toml" }));
  const link = el("a", { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

// -- the short form -------------------------------------------------------------------------------
function rosterForm(send, refused) {
  const holder = el("div", { class: "roster-form" });
  (async () => {
    let rulesets;
    try {
      rulesets = await call("/rulesets");
    } catch (error) {
      refused(error);
      return;
    }
    const picked = chips({
      legend: t("Rules"), name: "ruleset",
      options: rulesets.map((r) => ({ value: `${r.ruleset}/${r.version}`, label: r.title })),
      onChange: async (value) => {
        try {
          const vocabulary = await call(`/rulesets/${value}`);
          fill(holder, picked.node, battleForm(vocabulary, send));
        } catch (error) {
          refused(error);
        }
      },
    });
    fill(holder, picked.node);
  })();
  return holder;
}

// A control under its label (joined by id, so its name is the label's words alone, not its value).
let ids = 0;
function labelled(label, control) {
  control.id ||= `create-${++ids}`;
  return el("div", { class: "labelled" }, el("label", { for: control.id }, label), control);
}

const text = (label, field, attrs = {}) => labelled(label, el("input", { autocomplete: "off", dataset: { field }, ...attrs }));

function battleForm(vocabulary, send) {
  const sides = [text(t("First side (takes the first turn)"), "battle.sides[0]", { class: "side" }),
    text(t("Second side"), "battle.sides[1]", { class: "side" })];
  const dice = chips({ legend: t("Dice"), name: "dice", initial: "either", options: [
    { value: "table", label: t("rolled at the table and typed in") },
    { value: "engine", label: t("rolled by morale") },
    { value: "either", label: t("either") }] });
  dice.node.dataset.field = "battle.dice";
  // A battle without a referee: each side's entries are claims the other side confirms (engine.claim.open).
  const confirmation = yesNo({ legend: t("Players confirm each other's entries (no referee)"), initial: false, name: "confirmation" });
  confirmation.node.dataset.field = "battle.confirmation";
  const chosen = () => ({ dice: dice.value(), confirmation: confirmation.value() });
  const units = el("ol", { class: "units" });
  const sideNames = () => sides.map((s) => s.querySelector("input").value.trim());
  const refreshSides = () => { for (const select of units.querySelectorAll("select.unit-side")) sideOptions(select, sideNames()); };
  for (const side of sides) side.querySelector("input").addEventListener("input", refreshSides);
  const renumber = () => [...units.children].forEach((row, i) => {
    row.querySelector("h3").textContent = t("Unit {number}", { number: i + 1 });
    for (const input of row.querySelectorAll("[data-field]")) {
      input.dataset.field = input.dataset.field.replace(/^unit\[\d+\]/, `unit[${i}]`);
    }
  });
  const add = () => {
    units.append(unitRow(vocabulary, units.children.length, sideNames(), () => renumber()));
    renumber();
  };
  add();
  return el("form", { class: "battle-form", dataset: { ruleset: vocabulary.ruleset }, onsubmit: async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    await send(rosterToml(form, vocabulary, chosen()), t("the form"));
  } },
  text(t("Battle id"), "battle.id", { name: "battle-id", autocapitalize: "none" }),
  el("p", { class: "hint" }, t("Letters, digits, '_', '.' or '-': it names the battle in every link.")),
  text(t("Title"), "battle.name", { name: "battle-name" }),
  sides,
  dice.node,
  confirmation.node,
  el("p", { class: "hint" }, t("On: what one player enters waits for the other player to confirm it, dispute it, or play on.")),
  el("h3", {}, t("Units")),
  units,
  el("button", { type: "button", class: "add-unit", onclick: add }, t("Add a unit")),
  el("button", { type: "submit", class: "submit" }, t("Start the battle")),
  el("button", { type: "button", class: "save", onclick: (event) => save(event.currentTarget.form, vocabulary, chosen()) },
    t("Save it as a roster file")));
}

// The form as the roster file it sends, to keep: the next game starts from it, here or with morale new.
function save(form, vocabulary, chosen) {
  const url = URL.createObjectURL(new Blob([rosterToml(form, vocabulary, chosen)], { type: "application/toml" }));
  const id = form.querySelector('[data-field="battle.id"]').value.trim();
  const link = el("a", { href: url, download: `${/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(id) ? id : "roster"}.toml` });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

function sideOptions(select, names) {
  const chosen = select.value;
  select.replaceChildren(...names.map((name, i) => el("option", { value: name }, name || t("side {number}", { number: i + 1 }))));
  select.value = names.includes(chosen) ? chosen : names[0];
}

function unitRow(vocabulary, index, sideNames, renumber) {
  const at = `unit[${index}]`;
  const side = el("select", { class: "unit-side", dataset: { field: `${at}.side` } });
  sideOptions(side, sideNames);
  const kind = el("select", { dataset: { field: `${at}.type` } },
    vocabulary.unit_types.map((type) => el("option", { value: type }, vocabulary.unit_type_names?.[type] ?? words(type))));
  const number = (label, field, attrs = {}) => text(label, `${at}.${field}`, { inputmode: "numeric", class: "number", ...attrs });
  const profile = vocabulary.profile.map((f) => profileField(f, at));
  const rules = vocabulary.special_rules.length ? chips({ legend: t("Special rules"), name: "rules", multiple: true,
    options: vocabulary.special_rules.map((r) => ({ value: r.id, label: ruleName(vocabulary, r) })) }) : null;
  if (rules) rules.node.dataset.field = `${at}.rules`;
  const row = el("li", { class: "unit-row" },
    el("h3", {}, t("Unit {number}", { number: index + 1 })),
    text(t("Id"), `${at}.id`, { class: "unit-id", autocapitalize: "none" }),
    text(t("Name"), `${at}.name`, { class: "unit-name" }),
    labelled(t("Side"), side),
    labelled(t("Type"), kind),
    el("div", { class: "numbers" }, number(t("Models"), "models"), number(t("Leadership"), "ld"),
      number(t("Initiative"), "initiative")),
    profile,
    rules ? el("details", {}, el("summary", {}, t("Special rules")), rules.node) : null,
    el("button", { type: "button", class: "remove-unit", onclick: () => { row.remove(); renumber(); } }, t("Remove this unit")));
  row.rules = rules;
  return row;
}

function profileField(field, at) {
  const path = `${at}.profile.${field.id}`;
  if (field.kind === "int") return text(field.name || words(field.id), path, { inputmode: "numeric", class: "number profile", dataset: { field: path, profile: field.id } });
  if (field.kind === "text") return text(field.name || words(field.id), path, { class: "profile", dataset: { field: path, profile: field.id } });
  const choices = field.kind === "bool" ? [["true", t("yes")], ["false", t("no")]] : field.choices.map((c) => [c, field.choice_names?.[c] || words(c)]);
  return labelled(field.name || words(field.id), el("select", { class: "profile", dataset: { field: path, profile: field.id, kind: field.kind } },
    el("option", { value: "" }, t("not given")), choices.map(([value, label]) => el("option", { value }, label))));
}

// -- the form as a roster ---------------------------------------------------------------------------
// A TOML basic string: JSON's escapes are TOML's, except that TOML also wants DEL escaped.
const quoted = (value) => JSON.stringify(value).replaceAll("\u007f", "\\u007F");
// What a person typed in a number field: a whole number as one, anything else as text, which the
// server refuses naming the field ("unit[0].models: ...").
const numeric = (value) => (/^\d{1,15}$/.test(value) ? String(Number(value)) : quoted(value));

export function rosterToml(form, vocabulary, { dice, confirmation = false }) {
  const value = (field) => form.querySelector(`[data-field="${field}"]`)?.value.trim() ?? "";
  const lines = ["[battle]"];
  const given = (key, text) => { if (text) lines.push(`${key} = ${quoted(text)}`); };
  given("id", value("battle.id"));
  given("name", value("battle.name"));
  lines.push(`ruleset = ${quoted(vocabulary.ruleset)}`, `ruleset_version = ${quoted(vocabulary.version)}`);
  lines.push(`sides = [${[0, 1].map((i) => quoted(value(`battle.sides[${i}]`))).join(", ")}]`);
  lines.push(`dice = ${quoted(dice)}`);
  if (confirmation) lines.push("confirmation = true");
  for (const [index, row] of [...form.querySelectorAll(".unit-row")].entries()) {
    const at = `unit[${index}]`;
    lines.push("", "[[unit]]");
    for (const key of ["id", "side", "name", "type"]) given(key, value(`${at}.${key}`));
    for (const key of ["models", "ld", "initiative"]) {
      if (value(`${at}.${key}`)) lines.push(`${key} = ${numeric(value(`${at}.${key}`))}`);
    }
    const rules = row.rules?.value() ?? [];
    if (rules.length) lines.push(`rules = [${rules.map(quoted).join(", ")}]`);
    const profile = [...row.querySelectorAll("[data-profile]")].filter((input) => input.value.trim());
    if (profile.length) {
      lines.push(`[unit.profile]`);
      for (const input of profile) {
        const raw = input.value.trim();
        const shown = input.dataset.kind === "bool" ? raw : input.inputMode === "numeric" ? numeric(raw) : quoted(raw);
        lines.push(`${input.dataset.profile} = ${shown}`);
      }
    }
  }
  return `${lines.join("\n")}\n`;
}

// -- landing --------------------------------------------------------------------------------------
// The tokens of the battle just created here (referee, players by side, spectator), or null: the
// creation answer is the only time the server shows them. A Share screen may read them from here.
export function createdTokens(battle) {
  try {
    return JSON.parse(sessionStorage.getItem(KEPT + battle) || "null");
  } catch {
    return null;
  }
}

export function forgetCreated(battle) {
  sessionStorage.removeItem(KEPT + battle);
}

// Shown once on landing, until the referee says they are noted: the other roles' tokens, each with
// the link that opens the battle with it.
export function createdNotice(battle) {
  const tokens = createdTokens(battle);
  if (!tokens) return null;
  const link = (token) => `${location.origin}/view#${new URLSearchParams({ battle, token })}`;
  const entry = (label, token, role) => el("li", { dataset: { role } }, el("strong", {}, label), " ",
    el("code", {}, token), " ", el("a", { href: link(token), target: "_blank", rel: "noopener" }, t("its link")));
  const box = el("section", { id: "created", "aria-label": t("the new battle's tokens") },
    el("h2", {}, t("The battle is started")),
    el("p", {}, t("These tokens are shown only now: give each player theirs, and keep the spectator's for onlookers.")),
    el("ul", {},
      Object.entries(tokens.players || {}).map(([side, token]) => entry(t("The {side} player's token:", { side: words(side) }), token, `player:${side}`)),
      tokens.spectator ? entry(t("The spectator's token:"), tokens.spectator, "spectator") : null),
    el("button", { type: "button", onclick: () => { forgetCreated(battle); box.remove(); } }, t("I have noted them")));
  return box;
}

// A special rule's chip: its id in words in English, the title of its clause in another language (as
// the board's cards and the story name it).
const ruleName = (vocabulary, rule) =>
  (language() === "en" ? "" : vocabulary.clauses?.[rule.rule]?.title) || words(rule.id);

