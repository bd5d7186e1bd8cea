// The interactive API reference: one self-contained HTML page (inline style and script, no
// external assets, no URL of any host) that loads the OpenAPI document from the same origin
// (`openapi.json`, relative to the page) and renders every operation with its parameters, body and
// answer schemas, and a "try it" form that sends the request with fetch to the same origin.
//
// Why not @scalar/hono-api-reference: it needs Node 22 (engines >=22) and loads its script from
// a CDN at run time; this page works offline and under a strict Content-Security-Policy.
// The document's texts are only ever put into the page with textContent (never as HTML).

/** The Content-Security-Policy the page is served with: nothing but its own inline parts and same-origin fetches. */
export function referenceCsp(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

const STYLE = `
:root { color-scheme: light dark; --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --bg: #ffffff; --panel: #f6f8fa; --get: #0969da; --post: #1a7f37; --err: #cf222e; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #8d96a0; --line: #30363d; --bg: #0d1117; --panel: #161b22; --get: #4493f8; --post: #3fb950; --err: #f85149; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { padding: 16px 24px; border-bottom: 1px solid var(--line); }
header h1 { margin: 0 0 4px; font-size: 22px; }
header p { margin: 0; color: var(--muted); }
main { display: grid; grid-template-columns: 280px 1fr; min-height: calc(100vh - 80px); }
nav { border-right: 1px solid var(--line); padding: 12px; overflow-y: auto; max-height: calc(100vh - 80px); position: sticky; top: 0; }
nav input { width: 100%; padding: 6px 8px; margin-bottom: 8px; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); }
nav a { display: block; padding: 3px 6px; border-radius: 4px; color: var(--fg); text-decoration: none; font-size: 13px; word-break: break-all; }
nav a:hover { background: var(--panel); }
nav h3 { margin: 12px 0 4px; font-size: 12px; text-transform: uppercase; color: var(--muted); }
#content { padding: 16px 24px; overflow-x: auto; }
section.op { border: 1px solid var(--line); border-radius: 8px; margin: 0 0 20px; padding: 12px 16px; }
.method { display: inline-block; min-width: 56px; text-align: center; font-weight: 700; font-size: 12px; padding: 2px 6px; border-radius: 4px; color: #fff; background: var(--get); margin-right: 8px; }
.method.post { background: var(--post); }
code, pre, .path { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; }
.path { font-weight: 600; }
.desc { white-space: pre-wrap; color: var(--fg); }
table { border-collapse: collapse; width: 100%; margin: 6px 0 12px; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; font-size: 13px; }
th { background: var(--panel); }
details { margin: 4px 0; }
summary { cursor: pointer; }
.schema { margin-left: 16px; border-left: 2px solid var(--line); padding-left: 8px; }
.muted { color: var(--muted); }
.req { color: var(--err); font-weight: 700; }
form.try { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 10px; margin-top: 8px; }
form.try label { display: block; margin: 4px 0; font-size: 13px; }
form.try input, form.try textarea { width: 100%; padding: 5px 8px; border: 1px solid var(--line); border-radius: 4px; background: var(--bg); color: var(--fg); font-family: ui-monospace, monospace; font-size: 13px; }
form.try button { margin-top: 8px; padding: 6px 14px; border: 0; border-radius: 6px; background: var(--get); color: #fff; font-weight: 600; cursor: pointer; }
pre.out { background: var(--bg); border: 1px solid var(--line); border-radius: 4px; padding: 8px; max-height: 420px; overflow: auto; white-space: pre-wrap; word-break: break-word; }
.status-ok { color: var(--post); font-weight: 700; }
.status-err { color: var(--err); font-weight: 700; }
@media (max-width: 800px) { main { grid-template-columns: 1fr; } nav { position: static; max-height: none; border-right: 0; border-bottom: 1px solid var(--line); } }
`;

// The page's script: plain ES2020, no dependencies. It builds every node with createElement and
// textContent, so nothing from the document is ever parsed as HTML.
const SCRIPT = `
"use strict";
const METHODS = ["get", "post", "put", "patch", "delete"];
const $ = (tag, attrs, ...children) => {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") el.textContent = v;
    else if (k === "class") el.className = v;
    else el.setAttribute(k, v);
  }
  for (const child of children) if (child) el.append(child);
  return el;
};
let doc = null;
const refName = (s) => (s && s.$ref ? s.$ref.replace("#/components/schemas/", "") : null);
const resolve = (s) => {
  let cur = s || {};
  for (let i = 0; cur.$ref && i < 10; i++) cur = (doc.components && doc.components.schemas && doc.components.schemas[refName(cur)]) || {};
  return cur;
};
function typeOf(s) {
  const name = refName(s);
  const r = resolve(s);
  let t = Array.isArray(r.type) ? r.type.join(" | ") : r.type || (r.properties ? "object" : r.anyOf || r.oneOf ? "one of" : "any");
  if (r.type === "array") t = "array of " + typeOf(r.items);
  if (r.enum) t += " (" + r.enum.map((v) => JSON.stringify(v)).join(", ") + ")";
  const extra = [];
  if (r.pattern) extra.push("pattern " + r.pattern);
  if (r.minimum !== undefined) extra.push("min " + r.minimum);
  if (r.maximum !== undefined) extra.push("max " + r.maximum);
  if (r.minLength !== undefined) extra.push("minLength " + r.minLength);
  if (r.maxLength !== undefined) extra.push("maxLength " + r.maxLength);
  if (r.default !== undefined) extra.push("default " + JSON.stringify(r.default));
  return (name ? name + ": " : "") + t + (extra.length ? " [" + extra.join(", ") + "]" : "");
}
function schemaTree(s, depth, seen) {
  const r = resolve(s);
  const box = $("div", { class: "schema" });
  if (depth > 6) { box.append($("span", { class: "muted", text: "…" })); return box; }
  const name = refName(s);
  if (name && seen.has(name)) { box.append($("span", { class: "muted", text: "(" + name + ", see above)" })); return box; }
  const next = new Set(seen);
  if (name) next.add(name);
  const target = r.type === "array" ? resolve(r.items) : r;
  const variants = target.anyOf || target.oneOf;
  if (variants) {
    for (const v of variants) box.append($("div", { class: "muted", text: "variant: " + typeOf(v) }), schemaTree(v, depth + 1, next));
    return box;
  }
  const props = target.properties || {};
  const required = new Set(target.required || []);
  for (const [key, value] of Object.entries(props)) {
    const rv = resolve(value);
    const line = $("div", {},
      $("code", { text: key }),
      required.has(key) ? $("span", { class: "req", text: " *" }) : null,
      $("span", { class: "muted", text: " " + typeOf(value) }),
      rv.description || value.description ? $("span", { text: " — " + (value.description || rv.description) }) : null);
    const inner = rv.type === "array" ? resolve(rv.items) : rv;
    if (inner.properties || inner.anyOf || inner.oneOf) {
      const d = $("details", {}, $("summary", {}, line));
      d.append(schemaTree(value, depth + 1, next));
      box.append(d);
    } else box.append(line);
  }
  if (!Object.keys(props).length && !variants) box.append($("span", { class: "muted", text: typeOf(s) }));
  return box;
}
function example(s, depth) {
  const r = resolve(s);
  if (r.example !== undefined) return r.example;
  if (r.default !== undefined) return r.default;
  if (depth > 4) return null;
  if (r.enum) return r.enum[0];
  if (r.type === "object" || r.properties) {
    const out = {};
    for (const key of r.required || Object.keys(r.properties || {})) out[key] = example((r.properties || {})[key], depth + 1);
    return out;
  }
  if (r.type === "array") return [example(r.items, depth + 1)];
  if (r.type === "integer" || r.type === "number") return r.minimum !== undefined ? r.minimum : 0;
  if (r.type === "boolean") return false;
  return "";
}
function tryForm(path, method, op) {
  const form = $("form", { class: "try" });
  form.append($("strong", { text: "Try it" }));
  const inputs = [];
  for (const p of op.parameters || []) {
    const input = $("input", { name: p.name, placeholder: typeOf(p.schema) });
    const ex = resolve(p.schema).example;
    if (p.in === "path" && ex !== undefined) input.value = String(ex);
    inputs.push({ p, input });
    form.append($("label", {}, $("span", { text: p.name + " (" + p.in + (p.required ? ", required" : "") + ")" }), input));
  }
  let body = null;
  const content = op.requestBody && op.requestBody.content && op.requestBody.content["application/json"];
  if (content) {
    body = $("textarea", { rows: "8" });
    body.value = JSON.stringify(example(content.schema, 0), null, 2);
    form.append($("label", {}, $("span", { text: "JSON body" }), body));
  }
  const button = $("button", { type: "submit", text: "Send " + method.toUpperCase() });
  const status = $("div");
  const out = $("pre", { class: "out", hidden: "" });
  form.append(button, status, out);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    let url = path;
    const query = new URLSearchParams();
    for (const { p, input } of inputs) {
      if (p.in === "path") url = url.replace("{" + p.name + "}", encodeURIComponent(input.value));
      else if (p.in === "query" && input.value !== "") query.set(p.name, input.value);
    }
    const qs = query.toString();
    const init = { method: method.toUpperCase(), headers: {} };
    if (body) { init.headers["content-type"] = "application/json"; init.body = body.value; }
    status.textContent = "…";
    out.hidden = true;
    try {
      const res = await fetch(url + (qs ? "?" + qs : ""), init);
      const text = await res.text();
      status.className = res.ok ? "status-ok" : "status-err";
      status.textContent = res.status + " " + res.statusText;
      let shown = text;
      try { shown = JSON.stringify(JSON.parse(text), null, 2); } catch (e) { /* not JSON */ }
      out.textContent = shown;
      out.hidden = false;
    } catch (error) {
      status.className = "status-err";
      status.textContent = String(error);
    }
  });
  return form;
}
function render() {
  const info = doc.info || {};
  document.title = (info.title || "API") + " reference";
  document.getElementById("title").textContent = (info.title || "API") + " " + (info.version || "");
  document.getElementById("about").textContent = info.description || "";
  const nav = document.getElementById("nav");
  const content = document.getElementById("content");
  const filter = $("input", { type: "search", placeholder: "Filter routes" });
  nav.append(filter);
  const links = [];
  const byTag = new Map();
  let n = 0;
  for (const path of Object.keys(doc.paths || {}).sort()) {
    for (const method of METHODS) {
      const op = doc.paths[path][method];
      if (!op) continue;
      const id = "op-" + n++;
      const tag = (op.tags && op.tags[0]) || "Other";
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag).push({ id, path, method, op });
    }
  }
  for (const [tag, ops] of byTag) {
    nav.append($("h3", { text: tag }));
    for (const { id, path, method, op } of ops) {
      const a = $("a", { href: "#" + id }, $("span", { class: "method " + method, text: method.toUpperCase() }), document.createTextNode(path));
      links.push({ a, text: (method + " " + path + " " + (op.summary || "")).toLowerCase() });
      nav.append(a);
      const section = $("section", { class: "op", id });
      section.append($("h2", {}, $("span", { class: "method " + method, text: method.toUpperCase() }), $("span", { class: "path", text: path })));
      if (op.summary) section.append($("p", {}, $("strong", { text: op.summary })));
      if (op.description) section.append($("div", { class: "desc", text: op.description }));
      if ((op.parameters || []).length) {
        const table = $("table", {}, $("tr", {}, $("th", { text: "Parameter" }), $("th", { text: "In" }), $("th", { text: "Type" }), $("th", { text: "Description" })));
        for (const p of op.parameters) {
          table.append($("tr", {},
            $("td", {}, $("code", { text: p.name }), p.required ? $("span", { class: "req", text: " *" }) : null),
            $("td", { text: p.in }), $("td", { text: typeOf(p.schema) }),
            $("td", { text: p.description || resolve(p.schema).description || "" })));
        }
        section.append($("h4", { text: "Parameters" }), table);
      }
      const body = op.requestBody && op.requestBody.content;
      if (body) {
        for (const [type, media] of Object.entries(body)) {
          section.append($("h4", { text: "Body (" + type + ")" }), schemaTree(media.schema, 0, new Set()));
        }
      }
      section.append($("h4", { text: "Answers" }));
      for (const [code, response] of Object.entries(op.responses || {})) {
        const d = $("details", {}, $("summary", {}, $("strong", { text: code }), $("span", { text: " " + (response.description || "").split("\\n")[0] })));
        if ((response.description || "").includes("\\n")) d.append($("div", { class: "desc muted", text: response.description }));
        const media = response.content && response.content["application/json"];
        if (media && media.schema) d.append(schemaTree(media.schema, 0, new Set()));
        section.append(d);
      }
      section.append(tryForm(path, method, op));
      content.append(section);
    }
  }
  filter.addEventListener("input", () => {
    const q = filter.value.toLowerCase();
    for (const { a, text } of links) a.style.display = text.includes(q) ? "" : "none";
  });
}
fetch("openapi.json", { headers: { accept: "application/json" } })
  .then((res) => { if (!res.ok) throw new Error("openapi.json answered " + res.status); return res.json(); })
  .then((json) => { doc = json; render(); })
  .catch((error) => { document.getElementById("content").textContent = "Could not load the OpenAPI document: " + error.message; });
`;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!);

/** The page. `nonce` must be the one of the Content-Security-Policy header it is served with. */
export function renderReferenceHtml({ title, nonce }: { title: string; nonce: string }): string {
  const t = escapeHtml(title);
  const n = escapeHtml(nonce);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${t} reference</title>
<style nonce="${n}">${STYLE}</style>
</head>
<body>
<header><h1 id="title">${t}</h1><p id="about">Loading the OpenAPI document…</p></header>
<main>
<nav id="nav" aria-label="Routes"></nav>
<div id="content"><noscript>This page needs JavaScript. The description itself is at <a href="openapi.json">openapi.json</a>; a guide for agents at <a href="skill.md">skill.md</a> and <a href="llms.txt">llms.txt</a>.</noscript></div>
</main>
<script nonce="${n}">${SCRIPT}</script>
</body>
</html>
`;
}
