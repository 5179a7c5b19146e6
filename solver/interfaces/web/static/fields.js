// The observation form's fields, made from the spec (docs/api.md, `forms`): one input
// per argument and feedback component by its kind, the feedback buttons, and the pickers
// a layout adds (a peg palette, tiles marked by a click).
"use strict";

// ---------------------------------------------------------------- fields from the spec

function choice(name) {  // a drop-down that starts on nothing: the player chooses
  return el("select", {}, el("option", { value: "", text: "—" }));
}

function chosen(select, name) {
  if (select.value === "") throw new Error(`choose ${name ? "a value for " + name : "a value"}`);
  return select.value;
}

function field(spec, name) {
  const wrap = el("span", { cls: "field", "data-name": name || "" });
  const k = spec.kind;
  if (k === "int") {
    if (spec.max - spec.min < 40) {
      const s = choice(name);
      for (let v = spec.min; v <= spec.max; v++) s.append(el("option", { value: v, text: v }));
      wrap.append(s);
      wrap.read = () => Number(chosen(s, name));
      wrap.write = (v) => { s.value = v; };
    } else {
      const i = el("input", { type: "number", min: spec.min, max: spec.max, placeholder: `${spec.min}..${spec.max}` });
      wrap.append(i);
      wrap.read = () => {  // empty until typed: nothing the player did not choose
        if (i.value.trim() === "") throw new Error(`choose ${name ? "a value for " + name : "a value"}`);
        return Number(i.value);
      };
      wrap.write = (v) => { i.value = v; };
    }
  } else if (k === "enum" || k === "bool") {
    const values = k === "bool" ? (spec.values || ["false", "true"]) : spec.values;
    const s = choice(name);
    for (const v of values) s.append(el("option", { value: v, text: v }));
    wrap.append(s);
    wrap.read = () => (k === "bool" ? chosen(s, name) === "true" : chosen(s, name));
    wrap.write = (v) => { s.value = String(v); };
  } else if (k === "float" || k === "text") {
    const i = el("input", { type: k === "float" ? "number" : "text", step: "any" });
    wrap.append(i);
    wrap.read = () => (k === "float" ? Number(i.value) : i.value);
    wrap.write = (v) => { i.value = v; };
  } else if (k === "word") {
    const i = el("input", { type: "text", maxlength: spec.length, size: spec.length + 2,
                            placeholder: spec.letters.slice(0, 3).join("") + "…",
                            title: `${spec.length} of: ${spec.letters.join(" ")}`, cls: "word" });
    wrap.append(i);
    wrap.read = () => i.value.trim();
    wrap.write = (v) => { i.value = Array.isArray(v) ? v.join("") : String(v); };
  } else if (k === "seq" || k === "tuple") {
    const parts = k === "tuple" ? spec.items : Array.from({ length: spec.length }, () => spec.elem);
    const subs = parts.map((p, j) => field(p, spec.positions ? spec.positions[j] : null));
    for (const [j, s] of subs.entries()) {
      if (spec.positions) wrap.append(el("label", { text: spec.positions[j] }, s));
      else wrap.append(s);
    }
    wrap.classList.add("pegs");
    wrap.read = () => subs.map((s) => s.read());
    wrap.write = (v) => subs.forEach((s, j) => s.write(v[j]));
  } else if (k === "set") {
    const boxes = spec.values.map((v) => el("input", { type: "checkbox", value: v }));
    spec.values.forEach((v, j) => wrap.append(el("label", { cls: "check" }, boxes[j], v)));
    wrap.read = () => boxes.filter((b) => b.checked).map((b) => fromText(b.value));
    wrap.write = (v) => boxes.forEach((b) => { b.checked = v.map(String).includes(b.value); });
  } else if (k === "counts") {
    const ins = spec.values.map(() => el("input", { type: "number", min: 0, max: spec.total, value: 0, size: 3 }));
    spec.values.forEach((v, j) => wrap.append(el("label", { text: v }, ins[j])));
    wrap.read = () => Object.fromEntries(spec.values.map((v, j) => [v, Number(ins[j].value)]));
    wrap.write = (v) => ins.forEach((x, j) => { x.value = Array.isArray(v) ? v[j] : (v[spec.values[j]] || 0); });
  } else if (k === "record") {
    const subs = spec.fields.map((f) => [f.name, field(f.field, f.name)]);
    for (const [n, s] of subs) wrap.append(el("label", { text: n + " " }, s));
    wrap.read = () => Object.fromEntries(subs.map(([n, s]) => [n, s.read()]));
    wrap.write = (v) => subs.forEach(([n, s]) => s.write(v[n]));
  }
  return wrap;
}

function choicesField(choices, b) {  // every feedback the game can give, one button each
  const wrap = el("span", { cls: "field choices", role: "radiogroup" });
  const radios = choices.map((c, j) => {
    const names = Object.keys(c);
    const text = names.length === 1 ? String(c[names[0]]) : names.map((n) => `${n} ${c[n]}`).join(", ");
    const input = el("input", { type: "radio", name: "choice", value: j, "aria-label": text });
    const face = el("span", { cls: "face" });
    if (b && b.keys.length && b.keys.every((k) => k.name in c)) face.append(keyPegs(b, c));
    face.append(el("span", { cls: "label", text }));
    wrap.append(el("label", { cls: "choice", title: text }, input, face));
    return input;
  });
  wrap.read = () => {
    const r = radios.find((x) => x.checked);
    if (!r) throw new Error("choose the feedback");
    return choices[Number(r.value)];
  };
  wrap.write = (v) => radios.forEach((x, j) => { x.checked = JSON.stringify(choices[j]) === JSON.stringify(v); });
  return wrap;
}

function decorate(b, form) {  // the layout's pickers: a peg palette, tiles marked by a click
  if (!b || b.query !== form.name || !ROWS.includes(b.kind)) return;
  const code = state.fields.args.find(([n]) => n === b.code);
  if (!code || !code[1].querySelector("input.word")) return;
  const text = code[1].querySelector("input.word");
  const preview = el("span", { cls: "line preview" });
  const marksField = b.marks && state.fields.outcome.find(([n]) => n === b.marks);
  const marks = marksField ? marksField[1].querySelector("input.word") : null;
  const order = Object.keys(b.colours);
  const draw = () => {
    const letters = Array.from(text.value.trim());
    const ms = marks ? Array.from(marks.value.trim()) : [];
    preview.replaceChildren(...Array.from({ length: b.length }, (_, j) => {
      const p = piece(b, letters[j] || "", marks ? (ms[j] || null) : null);
      if (marks) {  // a click turns the tile to the next mark
        p.classList.add("pick");
        p.onclick = () => {
          const now = Array.from({ length: j + 1 }, (_, i) => ms[i] || order[0]);
          now[j] = ms[j] ? order[(order.indexOf(ms[j]) + 1) % order.length] : order[0];
          marks.value = now.concat(ms.slice(j + 1)).join("");
          draw();
        };
      }
      return p;
    }));
  };
  text.addEventListener("input", draw);
  if (marks) marks.addEventListener("input", draw);
  code[1].append(preview);
  if (b.kind === "pegs") {  // a click on a colour adds a peg; the last one can be taken back
    const palette = el("span", { cls: "palette" });
    for (const v of Object.keys(b.colours)) {
      const p = el("button", { type: "button", cls: "peg filled", text: v, title: `colour ${v}`, "data-value": v,
        onclick: () => { if (text.value.length < b.length) text.value += v; draw(); } });
      p.style.background = b.colours[v];
      palette.append(p);
    }
    palette.append(el("button", { type: "button", text: "⌫", title: "take back the last peg",
      onclick: () => { text.value = text.value.slice(0, -1); draw(); } }));
    code[1].append(palette);
  }
  draw();
  code[1].redraw = draw;
}

