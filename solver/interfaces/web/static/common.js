// Sleuth's page: what every part uses (the JSON API, elements built as text, never
// parsed as HTML). Loaded first; the other scripts share its globals.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { specs: [], strategies: [], summaries: {}, sheet: null, forms: [], job: null };

// ---------------------------------------------------------------- helpers

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") node.textContent = v;
    else if (k === "cls") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

function svg(tag, attrs = {}) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

async function api(method, path, body) {
  $("busy").hidden = false;
  try {
    const opts = { method, headers: {} };
    if (body === undefined && method !== "GET") body = {};  // a change is always JSON
    if (body !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(body);
    }
    const res = await fetch(path, opts);
    const data = await res.json().catch(() => ({ error: { text: `server error ${res.status}` } }));
    if (!res.ok) throw Object.assign(new Error(data.error ? data.error.text : res.statusText), { info: data.error });
    return data;
  } finally {
    $("busy").hidden = true;
  }
}

function showError(box, err) {
  box.hidden = !err;
  box.textContent = err ? err.message : "";
}

function bits(x) { return Number(x).toFixed(3); }

function fill(select, items, value) {
  select.replaceChildren(...items.map(([v, label]) => el("option", { value: v, text: label })));
  if (value !== undefined) select.value = value;
}

function fromText(s) {  // a set element or enum-like value typed back: integers as numbers
  return /^-?\d+$/.test(s) ? Number(s) : s;
}

