// ACToR's page: choose a repository function (or paste a prompt), watch
// the code stream with critical tokens highlighted, click one to see the
// blocks before and after its retrieval. Plain JavaScript, no build step.
"use strict";

const $ = (id) => document.getElementById(id);
let running = null; // the AbortController of the request in flight

function headers() {
  const h = { "Content-Type": "application/json" };
  const t = $("token").value || localStorage.getItem("actor-token") || "";
  if (t) h.Authorization = "Bearer " + t;
  return h;
}

function status(text, isError) {
  $("status").textContent = text;
  $("status").className = isError ? "error" : "muted";
}

async function api(path, body) {
  const opt = body === undefined ? { headers: headers() } : { method: "POST", headers: headers(), body: JSON.stringify(body) };
  const r = await fetch(path, opt);
  const j = await r.json();
  if (!r.ok) throw new Error(j.error ? j.error.message : r.statusText);
  return j;
}

// stream posts body to path and calls onEvent with each server-sent event.
async function stream(path, body, onEvent) {
  running = new AbortController();
  $("stop").disabled = false;
  try {
    const r = await fetch(path, { method: "POST", headers: headers(), body: JSON.stringify(body), signal: running.signal });
    if (!r.ok) {
      const j = await r.json();
      throw new Error(j.error ? j.error.message : r.statusText);
    }
    const reader = r.body.getReader();
    const dec = new TextDecoder();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += dec.decode(value, { stream: true });
      let i;
      while ((i = buf.indexOf("\n\n")) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 2);
        if (!line.startsWith("data: ")) continue;
        const data = line.slice(6);
        if (data === "[DONE]") return;
        const ev = JSON.parse(data);
        if (ev.error) throw new Error(ev.error.message);
        onEvent(ev);
      }
    }
  } finally {
    running = null;
    $("stop").disabled = true;
  }
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// Repository mode.

async function loadInfo() {
  const info = await api("/v1/actor/info");
  $("model").textContent = info.model + " · default method " + info.method + (info.probe ? "" : " · no probe");
  for (const m of info.methods) $("method").append(new Option(m, m, m === info.method, m === info.method));
  for (const r of info.repos) $("repo").append(new Option(r, r));
  if (info.runs) {
    $("tab-runs").hidden = false;
    const runs = await api("/v1/runs");
    for (const r of runs.data) $("run").append(new Option(r, r));
  }
  await loadFunctions();
}

async function loadFunctions() {
  const repo = $("repo").value;
  $("function").replaceChildren();
  if (!repo) return;
  const fns = await api("/v1/repos/" + encodeURIComponent(repo) + "/functions");
  for (const f of fns.data || []) {
    $("function").append(new Option(f.file + ":" + f.line + "  " + f.name, JSON.stringify({ file: f.file, line: f.line })));
  }
}

function blockView(b, cls) {
  const d = el("div", "block " + (cls || ""));
  // a retrieved block shows its score; a definition where it came from
  const why = b.source ? "  " + b.source + ": " + (b.why || "") : "  score " + b.score.toFixed(3);
  d.append(el("div", "head", b.path + ":" + b.start + "-" + b.end + why));
  if (b.text !== undefined) d.append(el("pre", "", b.text));
  return d;
}

function same(a, b) { return a.path === b.path && a.start === b.start && a.end === b.end; }

function showDetail(ev) {
  $("detail").hidden = false;
  const word = ev.dropped ? ev.dropped.text : ev.text;
  $("detail-title").textContent = "critical token " + JSON.stringify(word) + (ev.changed ? ": context changed" : ": context kept");
  const body = $("detail-body");
  body.replaceChildren();
  body.append(el("p", "", "p(critical) per member: " + (ev.p || []).map((p) => p.toFixed(2)).join(", ")));
  if (ev.dropped) body.append(el("p", "", "dropped " + JSON.stringify(ev.dropped.text) + ", re-decoded as " + JSON.stringify(ev.text)));
  if (ev.query) {
    body.append(el("h3", "", "query"));
    body.append(el("pre", "", ev.query));
  }
  const cols = el("div", "blocks");
  const before = el("div", "before"), after = el("div", "after");
  before.append(el("h3", "", "blocks before"));
  after.append(el("h3", "", "blocks after"));
  for (const b of ev.before || []) before.append(blockView(b, (ev.after || []).some((a) => same(a, b)) ? "" : "gone"));
  for (const b of ev.after || []) after.append(blockView(b, (ev.before || []).some((a) => same(a, b)) ? "" : "new"));
  cols.append(before, after);
  body.append(cols);
}

// tokenSpan shows a token event: a critical token highlighted (context
// changed or kept), opening its blocks on a click; a dropped token struck.
function tokenSpan(ev) {
  const frag = document.createDocumentFragment();
  if (ev.dropped) frag.append(el("span", "tok dropped", ev.dropped.text));
  const span = el("span", "tok", ev.text);
  if (ev.critical) {
    span.classList.add("critical");
    if (ev.changed) span.classList.add("changed");
    span.title = "p(critical) " + (ev.p || []).map((p) => p.toFixed(2)).join(" ");
    span.addEventListener("click", () => showDetail(ev));
  }
  frag.append(span);
  return frag;
}

async function generate(e) {
  e.preventDefault();
  if (!$("function").value) return;
  const fn = JSON.parse($("function").value);
  const req = { repo: $("repo").value, file: fn.file, line: fn.line, method: $("method").value, stream: true,
    samples: +$("samples").value, temperature: +$("temperature").value, seed: +$("seed").value, max_tokens: +$("max-tokens").value };
  const out = $("samples-out");
  out.replaceChildren();
  $("detail").hidden = true;
  let pre = null, prompt = "", critical = 0;
  status("generating…");
  try {
    await stream("/v1/actor/generate", req, (ev) => {
      switch (ev.type) {
        case "start":
          prompt = ev.target.prompt;
          out.append(el("p", "muted", ev.method + " · " + ev.target.id + " " + ev.target.name + (ev.notes ? " · " + ev.notes.join("; ") : "")));
          break;
        case "attempt":
          out.append(el("h3", "", "sample " + ev.sample + (ev.attempt > 0 ? " (attempt " + (ev.attempt + 1) + ")" : "") + " · " + ev.blocks.length + " blocks"));
          if (ev.context && ev.context.length) {
            const ctx = el("details", "context");
            ctx.append(el("summary", "", "context: " + ev.context.length + " pieces besides the blocks"));
            for (const b of ev.context) ctx.append(blockView(b));
            out.append(ctx);
          }
          pre = el("pre", "code");
          pre.dataset.sample = ev.sample;
          pre.append(el("span", "prompt", prompt));
          out.append(pre);
          break;
        case "token":
          if (ev.critical) critical++;
          pre.append(tokenSpan(ev));
          status("generating… " + critical + " critical tokens");
          break;
        case "sample":
          out.append(el("p", "summary", "sample " + ev.sample + ": " + ev.tokens + " tokens, " + ev.ms_per_token.toFixed(1) + " ms/token; " +
            ev.judged + " judged, " + ev.triggers + " critical, " + ev.context_changes + " changed the context"));
          break;
      }
    });
    status("done: " + critical + " critical tokens");
  } catch (err) {
    status(err.name === "AbortError" ? "stopped" : err.message, err.name !== "AbortError");
  }
}

// Prompt mode: plain completions, as an editor client asks for them.

async function complete(e) {
  e.preventDefault();
  const out = $("samples-out");
  out.replaceChildren();
  const pre = el("pre", "code");
  pre.append(el("span", "prompt", $("prompt").value));
  out.append(pre);
  status("completing…");
  try {
    let finish = "";
    await stream("/v1/completions", { prompt: $("prompt").value, max_tokens: +$("p-max-tokens").value,
      temperature: +$("p-temperature").value, stream: true }, (ev) => {
      const c = ev.choices[0];
      if (c.text) pre.append(el("span", "tok", c.text));
      if (c.finish_reason) finish = c.finish_reason;
    });
    status("done (" + finish + ")");
  } catch (err) {
    status(err.name === "AbortError" ? "stopped" : err.message, err.name !== "AbortError");
  }
}

// Runs mode: a benchmark run's samples with their verdicts, and a
// sample's trace with its critical tokens.

async function openRun(e) {
  e.preventDefault();
  const run = $("run").value;
  const out = $("samples-out");
  out.replaceChildren();
  $("detail").hidden = true;
  try {
    const res = await api("/v1/runs?run=" + encodeURIComponent(run));
    const table = el("table", "run");
    table.append(row("th", ["task", "sample", "method", "verdict", "tokens", "critical", "changes", "reason"]));
    for (const s of res.data) {
      const tr = row("td", [s.task_id, s.sample, s.method, s.status || "not evaluated", s.tokens, s.triggers, s.context_changes, s.reason || ""]);
      tr.className = s.status ? (s.passed ? "pass" : "fail") : "";
      tr.addEventListener("click", () => showTrace(run, s));
      table.append(tr);
    }
    out.append(table);
    status(res.data.length + " samples, " + res.data.filter((s) => s.passed).length + " passed");
  } catch (err) { status(err.message, true); }
}

function row(cell, values) {
  const tr = el("tr");
  for (const v of values) tr.append(el(cell, "", String(v)));
  return tr;
}

async function showTrace(run, s) {
  const out = $("samples-out");
  let view = $("trace-view");
  if (view) view.remove();
  view = el("div");
  view.id = "trace-view";
  out.prepend(view);
  view.append(el("h3", "", "task " + s.task_id + " sample " + s.sample + ": " + (s.status || "not evaluated") + (s.reason ? " — " + s.reason : "")));
  try {
    const tr = await api("/v1/runs?run=" + encodeURIComponent(run) + "&task=" + encodeURIComponent(s.task_id) + "&sample=" + s.sample);
    for (const a of tr.attempts) {
      view.append(el("p", "muted", a.stage + " attempt " + (a.attempt + 1) + " · " + (a.blocks || []).length + " blocks · stop " + a.stop));
      const pre = el("pre", "code");
      for (const ev of a.tokens || []) pre.append(tokenSpan(ev));
      view.append(pre);
    }
  } catch (err) {
    view.append(el("pre", "code", s.code));
    view.append(el("p", "muted", err.message));
  }
}

function tab(name) {
  for (const t of document.querySelectorAll(".tab")) t.classList.toggle("active", t.dataset.tab === name);
  $("repo-form").hidden = name !== "repo";
  $("prompt-form").hidden = name !== "prompt";
  $("runs-form").hidden = name !== "runs";
}

window.addEventListener("DOMContentLoaded", () => {
  $("token").value = localStorage.getItem("actor-token") || "";
  $("token").addEventListener("change", () => { localStorage.setItem("actor-token", $("token").value); loadInfo().catch((e) => status(e.message, true)); });
  for (const t of document.querySelectorAll(".tab")) t.addEventListener("click", () => tab(t.dataset.tab));
  $("repo").addEventListener("change", () => loadFunctions().catch((e) => status(e.message, true)));
  $("repo-form").addEventListener("submit", generate);
  $("prompt-form").addEventListener("submit", complete);
  $("runs-form").addEventListener("submit", openRun);
  $("stop").addEventListener("click", () => running && running.abort());
  $("close-detail").addEventListener("click", () => { $("detail").hidden = true; });
  $("reindex").addEventListener("click", async () => {
    try {
      const r = await api("/v1/repos/" + encodeURIComponent($("repo").value) + "/reindex", {});
      status("re-indexed " + r.name + ": " + r.blocks + " blocks, " + r.functions + " functions");
      await loadFunctions();
    } catch (err) { status(err.message, true); }
  });
  loadInfo().catch((e) => status(e.message, true));
});
