// scene.js — draws a widgets.scene.Scene and morphs it frame to frame.
//
// Marks are matched by `key`: an element whose key survives keeps its DOM node and only its
// attributes change, so a token (a message) *travels* to its new place through a CSS transition on
// `transform`. New marks fade in; marks that vanished fade out and are then removed (they carry
// `data-leaving` meanwhile, so tests can ignore them). The DOM matches Scene.to_svg() exactly.
//
// Frames in the page: a scene widget with a `run` and `frames` (widgets/frames.py encode: frame 0 whole, then
// per frame the new marks, the changed fields of the others, the keys deleted, the order when it changed) draws
// the frame its run's player shows. The player (kind "player") draws Reset / Back / Step / Play / speed /
// scrubber / Jump, the clock, the caption (aria-live) and the checkpoints, and moves every scene of its run with
// no kernel round trip; the kernel learns the position through the `position` trait, once a burst of moves settles.
// The same code runs in a page with no kernel (mountStatic, for save_html, nbconvert and the docs), over a small
// stand-in for the widget model.

const SVG = "http://www.w3.org/2000/svg";
const TAG = { rect: "rect", circle: "circle", line: "line", path: "path", text: "text", token: "g" };

function fmt(v) {
  const t = (Math.round((v || 0) * 10) / 10).toFixed(1);
  return t.endsWith(".0") ? t.slice(0, -2) : t;
}

function setTitle(node, title) {
  let t = node.querySelector(":scope > title");
  if (!title) { if (t) t.remove(); return; }
  if (!t) { t = document.createElementNS(SVG, "title"); node.prepend(t); }
  t.textContent = title;
}

function styleOf(m) {
  let s = "";
  if (m.fill) s += `fill:${m.fill};`;
  if (m.stroke) s += `stroke:${m.stroke};`;
  if (m.dash) s += `stroke-dasharray:${m.dash};`;
  return s;
}

function apply(node, m, sid) {
  node.setAttribute("data-key", m.key);
  if (m.role) node.setAttribute("data-role", m.role); else node.removeAttribute("data-role");
  if (m.kind === "token") {
    node.setAttribute("class", ("rq-token " + (m.cls || "")).trim());
    const tr = `translate(${fmt(m.x)},${fmt(m.y)})`;
    node.setAttribute("transform", tr);
    node.style.transform = `translate(${fmt(m.x)}px, ${fmt(m.y)}px)`;
    let c = node.querySelector(":scope > circle");
    if (!c) { c = document.createElementNS(SVG, "circle"); node.appendChild(c); }
    c.setAttribute("r", fmt(m.r));
    if (m.fill) c.setAttribute("style", `fill:${m.fill}`); else c.removeAttribute("style");
    let t = node.querySelector(":scope > text");
    if (m.text) {
      if (!t) { t = document.createElementNS(SVG, "text"); node.appendChild(t); }
      t.textContent = m.text;
    } else if (t) t.remove();
    let b = node.querySelector(":scope > g.rq-badge");
    if (m.badge) {  // Mark.badge: the same box as scene_badge.py's badge_box
      if (!b) {
        b = document.createElementNS(SVG, "g"); b.setAttribute("class", "rq-badge");
        b.appendChild(document.createElementNS(SVG, "rect")); b.appendChild(document.createElementNS(SVG, "text"));
        node.appendChild(b);
      }
      const w = Math.max(13, m.badge.length * 7 + 5), h = 13, x = m.r * 0.35, y = m.r * 0.3;
      const r = b.querySelector("rect"), bt = b.querySelector("text");
      r.setAttribute("x", fmt(x)); r.setAttribute("y", fmt(y)); r.setAttribute("rx", "3");
      r.setAttribute("width", fmt(w)); r.setAttribute("height", fmt(h));
      bt.setAttribute("x", fmt(x + w / 2)); bt.setAttribute("y", fmt(y + h / 2)); bt.textContent = m.badge;
    } else if (b) b.remove();
    setTitle(node, m.title);
    return;
  }
  if (m.cls) node.setAttribute("class", m.cls); else node.removeAttribute("class");
  const s = styleOf(m);
  if (s) node.setAttribute("style", s); else node.removeAttribute("style");
  if (m.arrow) node.setAttribute("marker-end", `url(#${sid}-arrow)`); else node.removeAttribute("marker-end");
  if (m.kind === "rect") {
    node.setAttribute("x", fmt(m.x)); node.setAttribute("y", fmt(m.y));
    node.setAttribute("width", fmt(m.w)); node.setAttribute("height", fmt(m.h));
  } else if (m.kind === "circle") {
    node.setAttribute("cx", fmt(m.x)); node.setAttribute("cy", fmt(m.y)); node.setAttribute("r", fmt(m.r));
  } else if (m.kind === "line") {
    node.setAttribute("x1", fmt(m.x)); node.setAttribute("y1", fmt(m.y));
    node.setAttribute("x2", fmt(m.x2)); node.setAttribute("y2", fmt(m.y2));
  } else if (m.kind === "path") {
    node.setAttribute("d", m.d || "");
  } else if (m.kind === "text") {
    node.setAttribute("x", fmt(m.x)); node.setAttribute("y", fmt(m.y));
    node.setAttribute("text-anchor", m.anchor || "start");
    // keep a <title> child, replace the text node
    [...node.childNodes].filter((n) => n.nodeType === 3).forEach((n) => n.remove());
    node.appendChild(document.createTextNode(m.text || ""));
  }
  setTitle(node, m.title);
}

function svgId(testid) {
  return "rq-" + [...(testid || "rq-scene")].map((ch) => (/[a-z0-9]/i.test(ch) ? ch : "-")).join("");
}


// ---------------------------------------------------------------- the bus between a run's player and scenes
const BUS = (globalThis.__rqlab = globalThis.__rqlab || { pos: {}, listeners: {} });
BUS.keys = BUS.keys || {};
BUS.unlocks = BUS.unlocks || [];
BUS.opened = BUS.opened || new Map(); // segment id -> its frames, opened once

function announce(run, index) {
  BUS.pos[run] = index;
  for (const fn of BUS.listeners[run] || []) fn(index);
}

function listen(run, fn) {
  (BUS.listeners[run] = BUS.listeners[run] || []).push(fn);
  return () => { BUS.listeners[run] = (BUS.listeners[run] || []).filter((f) => f !== fn); };
}

// ---------------------------------------------------------------- sealed boxes (widgets/page_seal.py)
// A checkpoint's answer, explanation and hints, and the frames past its pause, come sealed: a choice's key opens
// its own box, and only the right one's gives the key of the frames that follow. Web Crypto (SubtleCrypto) does the
// work: PBKDF2-HMAC-SHA256 for the keys, the same with one round for the stream a box is XORed with.
const crypt = () => (globalThis.crypto && globalThis.crypto.subtle) || null;
const utf8 = new TextEncoder();
const unhex = (h) => new Uint8Array((h.match(/../g) || []).map((x) => parseInt(x, 16)));
async function pbkdf2(secret, salt, iterations, bytes) {
  const key = await crypt().importKey("raw", secret, "PBKDF2", false, ["deriveBits"]);
  const bits = await crypt().deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, bytes * 8);
  return new Uint8Array(bits);
}
async function hmacOf(secret, text) {
  const key = await crypt().importKey("raw", secret, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypt().sign("HMAC", key, utf8.encode(text)));
}
async function openBox(key, box) {
  const data = Uint8Array.from(atob(box.data), (ch) => ch.charCodeAt(0));
  if (!data.length) return "";
  const stream = await pbkdf2(key, utf8.encode(`stream/${box.nonce}`), 1, data.length);
  const plain = data.map((b, i) => b ^ stream[i]);
  if (!box.z) return new TextDecoder().decode(plain);
  // frames come zlib-compressed ("deflate" in the Compression Streams API)
  return new Response(new Blob([plain]).stream().pipeThrough(new DecompressionStream("deflate"))).text();
}
// a choice's two keys for its checkpoint: [box key, frames key]
async function choiceKeys(cp, choiceKey) {
  const master = await pbkdf2(utf8.encode(choiceKey), utf8.encode(cp.salt), cp.iterations, 32);
  return [await hmacOf(master, "box"), await hmacOf(master, "frames")];
}
// the frames keys the page holds, by run and checkpoint name; unlock() tells those who wait for them
function unlock(run, name, key) {
  const keys = (BUS.keys[run] = BUS.keys[run] || {});
  if (keys[name]) return;
  keys[name] = key;
  for (const fn of BUS.unlocks) fn(run);
}
function onUnlock(fn) {
  BUS.unlocks.push(fn);
  return () => { BUS.unlocks = BUS.unlocks.filter((f) => f !== fn); };
}
// the sealed segments of `sealed` (in order) that the keys of `run` open, up to the first one they do not
async function openSegments(run, sealed) {
  const out = [];
  for (const seg of sealed || []) {
    const key = (BUS.keys[run] || {})[seg.cp];
    if (!key || !crypt()) break;
    const id = `${seg.cp}/${seg.nonce}`;
    if (!BUS.opened.has(id)) {
      try { BUS.opened.set(id, JSON.parse(await openBox(key, seg))[1]); } catch (e) { break; } // a key of an older build
    }
    out.push(BUS.opened.get(id));
  }
  return out;
}
// a picture's frames with every segment its run's keys open appended (a segment holds frame deltas)
// (done(frames) now with the plain ones, then again if keys open more); it returns a function that stops it
function openedFrames(model, done) {
  const plain = () => { const e = model.get("frames") || {}; return { ...e, more: (e.sealed || []).length > 0 }; };
  const reopen = (run) => {
    const encoded = model.get("frames") || {};
    if (!(encoded.sealed || []).length || (run && run !== model.get("run"))) return;
    openSegments(model.get("run"), encoded.sealed).then((segs) => {
      if (model.get("frames") !== encoded || !segs.length) return; // new frames came meanwhile, or nothing opened
      done({ ...withAnswers(encoded, segs), more: segs.length < encoded.sealed.length });
    });
  };
  const fresh = () => { done(plain()); reopen(); };
  model.on("change:frames", fresh);
  model.on("change:run", fresh);
  const stop = onUnlock(reopen);
  done(plain());
  reopen();
  return () => { stop(); model.off("change:frames", fresh); model.off("change:run", fresh); };
}

// the frames with the opened segments appended, and which of them each step shows: a segment marked "fix" starts
// with its pause answered and the way back (widgets/checkpoint_answered.py): the step of the pause shows the first
function withAnswers(encoded, segs) {
  const frames = (encoded.frames || []).slice();
  const skip = new Set();
  segs.forEach((seg, j) => {
    if (encoded.sealed[j].fix) { skip.add(frames.length - 1); skip.add(frames.length + 1); }
    frames.push(...seg);
  });
  return { ...encoded, frames, index: skip.size ? frames.map((_, k) => k).filter((k) => !skip.has(k)) : null };
}

// a widget's place in its run (the model's "run" trait): index is the frame the run's player shows (-1: none, the
// kernel's own picture); onMove() after every move of the player and every change of the run. stop() to forget it.
function followRun(model, onMove) {
  const at = { index: -1, stop: null };
  let unlisten = () => {};
  function follow() {
    unlisten();
    const run = model.get("run");
    at.index = run && run in BUS.pos ? BUS.pos[run] : -1;
    unlisten = run ? listen(run, (i) => { at.index = i; onMove(); }) : () => {};
  }
  const onRun = () => { follow(); onMove(); };
  model.on("change:run", onRun);
  follow();
  at.stop = () => { unlisten(); model.off("change:run", onRun); };
  return at;
}

// how many frames the widget has from its run (0: none yet, e.g. a hidden tab's)
// (the sealed ones too: widgets/page_seal.py)
const frameCount = (model) => {
  const encoded = model.get("frames") || {};
  return (encoded.frames || []).length + (encoded.sealed || []).reduce((n, seg) => n + seg.n, 0);
};

// frames[i] as a whole scene (decoded once, then cached: back and scrub are as fast as step)
function decoder(encoded) {
  const cache = [];
  return function frame(i) {
    const list = (encoded && encoded.frames) || [];
    const steps = (encoded && encoded.index) || null; // step → frame, when an answered pause replaces its frame
    const n = steps ? steps.length : list.length;
    if (!list.length || (encoded.more && i >= n)) return null; // sealed still: not a frame to show yet
    i = Math.max(0, Math.min(i, n - 1));
    if (steps) i = steps[i];
    for (let k = cache.length; k <= i; k++) {
      const prev = k ? cache[k - 1] : { head: {}, marks: new Map(), order: [] };
      const d = list[k];
      const head = { ...prev.head, ...(d.head || {}) };
      const marks = new Map(prev.marks);
      const gone = new Set(d.del || []);
      for (const key of gone) marks.delete(key);
      let order = prev.order.filter((key) => !gone.has(key));
      for (const m of d.set || []) { if (!marks.has(m.key)) order.push(m.key); marks.set(m.key, m); }
      for (const c of d.mod || []) { // the fields that changed; null: back at its default (left out)
        const m = { ...marks.get(c.key) };
        // == null: a Pyodide kernel (JupyterLite) delivers Python's None as undefined, not null
        for (const [name, value] of Object.entries(c)) { if (value == null) delete m[name]; else m[name] = value; }
        marks.set(c.key, m);
      }
      if (d.order) order = d.order.slice();
      cache.push({ head, marks, order });
    }
    const c = cache[i];
    return { ...c.head, marks: c.order.map((key) => c.marks.get(key)) };
  };
}

function renderScene({ model, el }) {
  const root = document.createElement("div");
  root.className = "rq-scene";
  const style = document.createElement("style");
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("role", "img");
  const titleEl = document.createElementNS(SVG, "title");
  const descEl = document.createElementNS(SVG, "desc");
  const defs = document.createElementNS(SVG, "defs");
  svg.append(titleEl, descEl, defs);
  root.append(style, svg);
  el.appendChild(root);
  let frame = 0;
  let pending = false;
  let frameOf = () => null;
  let defsFor = null; // the svg id the arrow marker was written for
  const nodes = new Map();

  // shown (not in a hidden tab), as a ResizeObserver last saw it: a hidden tab's picture has no box (0 × 0), and the
  // observer tells after the page's own layout, when a tab is opened too (then a pending frame is drawn). Asking the
  // page at every draw instead (checkVisibility(), offsetParent) forced a style recalculation of the whole page once
  // per picture, per Step and per kernel message: about 10 ms each in lab 03's notebook, most of a Step's time.
  let shown = false; // until the observer's first report (a picture hidden from the start gets none)
  const sizer = typeof ResizeObserver !== "undefined"
    ? new ResizeObserver((entries) => {
      const box = entries[entries.length - 1].contentRect;
      shown = box.width > 0 || box.height > 0;
      if (shown && pending) draw();
    }) : null;
  if (sizer) sizer.observe(root);
  function visible() {
    if (sizer) return shown;
    return root.offsetParent !== null || root.getClientRects().length > 0;
  }

  const at = followRun(model, () => draw());

  function draw() {
    const run = model.get("run");
    const fromFrames = run && at.index >= 0 ? frameOf(at.index) : null;
    if (run && at.index >= 0 && !fromFrames && frameCount(model)) { pending = true; return; } // sealed: when opened
    const scene = fromFrames || model.get("scene") || {};
    if (!scene.marks) return;
    if (!visible() && frame > 0) { pending = true; return; } // a hidden tab draws when it is shown
    pending = false;
    const started = performance.now();
    const sid = svgId(scene.testid);
    root.setAttribute("data-testid", scene.testid || "rq-scene");
    for (const [k, v] of Object.entries(scene.extra || {})) root.setAttribute(`data-${k}`, v);
    root.style.setProperty("--rq-duration", `${model.get("duration_ms")}ms`);
    // only when they changed: a new stylesheet text restyles the whole page (JupyterLab's too) at every Step
    if (style.textContent !== (scene.css || "")) style.textContent = scene.css || "";
    svg.setAttribute("width", scene.width);
    svg.setAttribute("height", scene.height);
    svg.setAttribute("viewBox", `0 0 ${scene.width} ${scene.height}`);
    svg.setAttribute("aria-label", scene.label || "");
    titleEl.textContent = scene.label || "";
    descEl.textContent = scene.label ? `${scene.label}: ${scene.marks.filter((m) => m.role === "token").length} messages drawn` : "";
    if (defsFor !== sid) {
      defsFor = sid;
      defs.innerHTML =
        `<marker id="${sid}-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" ` +
        `orient="auto-start-reverse"><path class="rq-marker" d="M0,0 L10,5 L0,10 z"/></marker>`;
    }
    const seen = new Set();
    let prev = defs;
    for (const m of scene.marks) {
      seen.add(m.key);
      let node = nodes.get(m.key);
      const fresh = !node || node.tagName !== TAG[m.kind] || node.hasAttribute("data-leaving");
      if (fresh) {
        if (node) node.remove();
        node = document.createElementNS(SVG, TAG[m.kind]);
        nodes.set(m.key, node);
        if (frame > 0) { node.style.opacity = "0"; }
      }
      apply(node, m, sid);
      if (prev.nextSibling !== node) prev.after(node); // keep drawing order = mark order
      prev = node;
      if (fresh && frame > 0) requestAnimationFrame(() => { node.style.opacity = ""; });
    }
    for (const [key, node] of nodes) {
      if (seen.has(key)) continue;
      nodes.delete(key);
      node.setAttribute("data-leaving", "1");
      node.style.opacity = "0";
      setTimeout(() => node.remove(), 220);
    }
    frame += 1;
    root.setAttribute("data-draw-ms", (performance.now() - started).toFixed(1)); // for bench/browser_step_latency
    root.setAttribute("data-frame", String(frame));
    root.setAttribute("data-step", String(at.index));
    root.dispatchEvent(new CustomEvent("rq-drawn", { bubbles: true }));
  }

  const stopFrames = openedFrames(model, (encoded) => { frameOf = decoder(encoded); draw(); });
  // the kernel's scene is the picture whenever this view has no frame to show: the kernel's own position (index
  // -1), no run, or a hidden tab whose frames have not been sent yet (it follows the kernel, which follows the
  // page: after the page's Reset it shows the reset position's picture, not the one it was first drawn with)
  const onScene = () => { if (at.index < 0 || !model.get("run") || !frameCount(model)) draw(); };
  model.on("change:scene", onScene);
  model.on("change:duration_ms", draw);
  return () => {
    at.stop(); stopFrames();
    if (sizer) sizer.disconnect();
    model.off("change:scene", onScene); model.off("change:duration_ms", draw);
  };
}

// ---------------------------------------------------------------- the player
const QUIET_MS = 300; // the player tells the kernel its position this long after the last move of a burst

const PLAYER_CSS = `
.rq-player { font-family: var(--jp-ui-font-family, sans-serif); font-size: 13px; color: var(--jp-ui-font-color1, #1f1f1f); }
.rq-player .rq-row { display: flex; flex-wrap: wrap; gap: 4px; align-items: center; margin: 2px 0; }
.rq-player button { font: inherit; padding: 2px 10px; min-height: 26px; cursor: pointer;
  color: var(--jp-ui-font-color1, #1f1f1f); background: var(--jp-layout-color2, #eeeeee);
  border: 1px solid var(--jp-border-color1, #8a8a8a); border-radius: 2px; }
.rq-player button:focus-visible, .rq-player input:focus-visible, .rq-player select:focus-visible,
.rq-scene [data-choice]:focus-visible { outline: 2px solid var(--jp-brand-color1, #1565c0); outline-offset: 2px; }
.rq-player button:disabled { opacity: .55; cursor: default; }
.rq-player input[type=range].rq-scrub { flex: 1 1 14em; min-width: 10em; }
.rq-player .rq-row select { flex: 0 0 13em; width: 13em; min-width: 0; }
.rq-player .rq-speed { display: inline-block; min-width: 2.6em; }
.rq-dashboard .rq-knob.widget-inline-hbox { height: auto; min-height: var(--jp-widgets-inline-height, 28px); }
.rq-dashboard .rq-knob.widget-inline-hbox > label { white-space: normal; flex: 0 1 auto; min-width: 0;
  line-height: 1.3; align-self: center; }
.rq-dashboard .rq-knob.widget-inline-hbox > input, .rq-dashboard .rq-knob.widget-inline-hbox > select {
  flex: 1 0 6.5em; min-width: 6.5em; }
.rq-player .rq-clock { font-variant-numeric: tabular-nums; }
.rq-player .rq-status { display: flex; flex-wrap: wrap; gap: 2px 1.5em; align-items: baseline; }
.rq-player .rq-caption { border-left: 3px solid var(--jp-brand-color1, #1565c0); padding: 2px 8px; margin: 2px 0;
  line-height: 1.4; min-height: 2.8em; }
.rq-player .rq-ask { border: 2px solid var(--jp-warn-color0, #b34700); border-radius: 4px; padding: 4px 8px;
  margin: 2px 0; background: var(--jp-layout-color1, #ffffff); }
.rq-player .rq-ask button { min-height: 24px; padding: 1px 8px; }
.rq-player .rq-ask[hidden], .rq-player .rq-row[hidden] { display: none; }
.rq-player .rq-ask .rq-q { font-weight: 600; margin-bottom: 2px; }
.rq-player .rq-ask .rq-feedback { margin-top: 4px; }
.rq-player .rq-ask .rq-wrong { color: var(--jp-error-color1, #b71c1c); }
.rq-player .rq-ask .rq-right { color: var(--jp-success-color1, #1b5e20); }
.rq-player .rq-score { color: var(--jp-ui-font-color2, #555555); }
.rq-scene svg:has([data-choice]) text, .rq-scene svg:has([data-choice]) g.rq-token { pointer-events: none; }
.rq-scene [data-choice] { cursor: pointer; }
.rq-scene :not(rect)[data-choice] { outline: 3px dashed var(--jp-warn-color0, #b34700); outline-offset: 2px; }
/* a place on offer: its own border, dashed (an outline around a rect covered the lane's label above it) */
.rq-scene rect[data-choice] { stroke: var(--jp-warn-color0, #b34700) !important; stroke-width: 3 !important;
  stroke-dasharray: 7 3 !important; }
.rq-scene rect[data-choice]:focus-visible { outline: 2px solid var(--jp-brand-color1, #1565c0); outline-offset: -6px; }
`;

function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  return node;
}

// The player's words in the kernel's language: English text -> translation (the "words" trait, empty in English),
// with {name} places filled from vars.
let WORDS = {};
function tr(english, vars = {}) {
  return (WORDS[english] || english).replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
}

function button(label, tip, key) {
  const b = el("button", { type: "button", class: "rq-btn", title: key ? tr("{tip} (key: {key})", { tip, key }) : tip,
    "aria-label": label, ...(key ? { "aria-keyshortcuts": key } : {}) }, label);
  return b;
}

// the player's data with the opened segments appended: clocks, captions and Jump counts per frame
function mergePlayer(base, segs) {
  const parts = [base, ...segs];
  const total = parts.reduce((n, p) => n + (p.clocks || []).length, 0);
  const jumps = {};
  let at = 0;
  for (const p of parts) {
    for (const [kind, per] of Object.entries(p.jumps || {})) {
      jumps[kind] = jumps[kind] || new Array(total).fill(0);
      per.forEach((n, j) => { jumps[kind][at + j] = n; });
    }
    at += (p.clocks || []).length;
  }
  const captions = parts.flatMap((p) => p.captions || []);
  for (const p of segs) if (p.answer) captions[p.answer.frame] = p.answer.caption; // the pause, answered
  return { ...base, clocks: parts.flatMap((p) => p.clocks || []), captions, jumps };
}

function renderPlayer({ model, el: host }) {
  WORDS = model.get("words") || {};
  const root = el("div", { class: "rq-player", "data-testid": "rq-player", role: "group",
    "aria-label": tr("run controls: Space plays or pauses, Left and Right arrows step, Home and End go to the first and last step, J jumps") });
  root.tabIndex = -1;
  const style = el("style"); style.textContent = PLAYER_CSS;
  const reset = button(tr("Reset"), tr("back to the start of the run (t = 0)"), "Home");
  const back = button(tr("Step back"), tr("back to the previous meaningful step"), "ArrowLeft");
  const step = button(tr("Step"), tr("advance to the next meaningful event"), "ArrowRight");
  const play = button(tr("Play"), tr("play one step per tick; Pause stops"), "Space");
  const speed = el("input", { type: "range", min: "1", max: "20", value: "5", "aria-label": tr("steps per second"),
    title: tr("playback speed: steps per second") });
  const speedOut = el("span", { class: "rq-speed", "aria-hidden": "true" }, "5/s");
  const scrub = el("input", { type: "range", class: "rq-scrub", min: "0", max: "0", value: "0",
    "aria-label": tr("step"), title: tr("scrub through the run's steps") });
  const jumpKind = el("select", { "aria-label": tr("event kind to jump to"),
    title: tr("the kinds still to come, and how many") });
  const jump = button(tr("Jump"), tr("advance to the next step with an event of the chosen kind"), "J");
  const clock = el("div", { class: "rq-clock", "data-testid": "rq-clock", role: "timer", "aria-live": "off" });
  const caption = el("div", { class: "rq-caption", "data-testid": "rmq-caption", role: "status", "aria-live": "polite",
    "aria-label": tr("what this step did") });
  const ask = el("div", { class: "rq-ask", "data-testid": "rq-checkpoint", role: "dialog", "aria-live": "assertive",
    "aria-label": tr("checkpoint question") });
  ask.hidden = true;
  const score = el("div", { class: "rq-score", "data-testid": "rq-score", "aria-live": "polite" });
  // compact (issue #30's fold): one row of controls (it wraps when narrow), the clock and the score on one line,
  // then the caption and the question, so that the picture and the tab a question is about fit the screen under them
  const row = el("div", { class: "rq-row" });
  row.append(reset, back, step, play, speed, speedOut, scrub, jumpKind, jump);
  const status = el("div", { class: "rq-status" });
  status.append(clock, score);
  root.append(style, row, status, caption, ask);
  host.appendChild(root);

  let plain = model.get("data") || {}; // as sent: past the first question, sealed (widgets/page_seal.py)
  let data = mergePlayer(plain, []); // with every segment opened so far
  let wanted = null; // a frame asked for (by the kernel) before its segment was opened
  let index = 0;
  let picked = ""; // the Jump kind the student chose (kept while it is ahead)
  let timer = null;
  const done = new Map(); // checkpoint name -> {tries, shown, right}
  const count = () => (data.positions || []).length;
  const run = () => data.run || "";
  const checkpointAt = (i) => (data.checkpoints || []).find((c) => c.frame === i && !(done.get(c.name) || {}).right);

  function setPlaying(on) {
    if (timer) { clearInterval(timer); timer = null; }
    if (on) timer = setInterval(tick, Number(model.get("interval")) || 200);
    play.textContent = on ? tr("Pause") : tr("Play");
    play.setAttribute("aria-label", on ? tr("Pause") : tr("Play"));
    play.setAttribute("aria-pressed", on ? "true" : "false");
    root.setAttribute("data-playing", on ? "1" : "0");
  }

  function showScore() {
    const cps = data.checkpoints || [];
    if (!cps.length) { score.textContent = ""; return; }
    const answered = [...done.values()].filter((d) => d.right);
    const first = answered.filter((d) => d.tries === 1 && !d.shown).length;
    score.textContent = tr("checkpoints: {answered} of {total} answered · {first} right first time",
      { answered: answered.length, total: cps.length, first });
  }

  // open the segments the run's keys open (the checkpoints answered, or passed by the kernel), then show a frame
  // the kernel asked for meanwhile
  async function reopenData() {
    const from = plain;
    const segs = await openSegments(run(), from.sealed);
    if (from !== plain) return;
    data = mergePlayer(plain, segs);
    if (wanted !== null && wanted < data.clocks.length) { const w = wanted; wanted = null; show(w, { fromKernel: true }); }
    else if (index >= 0) { // an answered pause now says what it hid
      caption.replaceChildren(...data.captions[index].map((t) => el("div", {}, t)));
      fillJumps();
    }
  }

  function show(i, { fromKernel = false } = {}) {
    const n = count();
    if (!n) return;
    if (i >= data.clocks.length) { wanted = i; return; } // sealed still: shown once its key came
    if (i < 0) { // the kernel shows a position that is not a frame
      index = -1;
      back.disabled = false;
      step.disabled = false;
      root.setAttribute("data-step", "-1");
      clock.textContent = model.get("live_clock") || "";
      caption.replaceChildren(...(model.get("live_caption") || []).map((t) => el("div", {}, t)));
      announce(run(), -1);
      return;
    }
    index = Math.max(0, Math.min(i, n - 1));
    scrub.max = String(n - 1);
    scrub.value = String(index);
    scrub.setAttribute("aria-valuetext", tr("step {index} of {last}: {clock}", { index, last: n - 1, clock: data.clocks[index] }));
    clock.textContent = data.clocks[index];
    caption.replaceChildren(...data.captions[index].map((t) => el("div", {}, t)));
    back.disabled = index === 0;
    step.disabled = index >= n - 1 && data.complete;
    fillJumps();
    announce(run(), index);
    root.setAttribute("data-step", String(index));
    if (!fromKernel) tellKernelSoon();
    const cp = checkpointAt(index);
    if (cp && !ask.hidden && ask.dataset.name === cp.name) return;
    // the explanation of an answered checkpoint stays up while play goes on, until the next question; stepping,
    // scrubbing or jumping away from it (back before its step, or on past the step it played) closes it
    const askedAt = Number(ask.dataset.frame);
    if (cp) askCheckpoint(cp);
    else if (ask.dataset.right !== "1" || index < askedAt || (!timer && index > askedAt + 1)) closeAsk();
  }

  // The kernel follows the page (it walks its run to the frame shown, for the notebook's `controller.position`):
  // told once a burst of Steps, a Play or a scrub has settled (QUIET_MS after the last move), not at every move,
  // so its work does not take the CPU from the page's next Steps (in JupyterLite the kernel shares the cores).
  let tellTimer = null;
  function tellKernel() {
    if (tellTimer) { clearTimeout(tellTimer); tellTimer = null; }
    if (index >= 0 && model.get("position") !== index) { model.set("position", index); model.save_changes(); }
  }
  function tellKernelSoon() {
    if (tellTimer) clearTimeout(tellTimer);
    tellTimer = setTimeout(tellKernel, QUIET_MS);
  }

  function fillJumps() {
    const jumps = data.jumps || {};
    const opts = [];
    // only what a Jump can reach before a question still to answer: the kinds beyond it would tell its answer
    const limit = gate(count());
    for (const [kind, per] of Object.entries(jumps)) {
      const ahead = per.slice(index + 1, limit + 1).reduce((a, b) => a + b, 0);
      // the kind's name in the kernel's language ("kind:<kind>" among the words; English: the kind itself)
      if (ahead) opts.push([kind, tr("{kind} ({n})", { kind: WORDS[`kind:${kind}`] || kind, n: ahead })]);
    }
    jumpKind.replaceChildren(...opts.map(([v, t]) => { const o = el("option", { value: v }, t); return o; }));
    if (!opts.length) jumpKind.append(el("option", { value: "" }, limit < count() ? tr("answer the question first") : tr("nothing ahead")));
    // the student's own pick stays while it is ahead; else the lesson's kind, never bookkeeping (widgets/jump_default.py)
    if (opts.some(([v]) => v === picked)) jumpKind.value = picked;
    else if (opts.length) jumpKind.value = defaultKind(opts.map(([v]) => v), limit);
    jump.disabled = jumpKind.disabled = !opts.length;
  }
  function defaultKind(kinds, limit) {
    if (kinds.includes(data.jump_main)) return data.jump_main;
    const chores = new Set(data.housekeeping || []);
    const n = (k) => data.jumps[k].slice(index + 1, limit + 1).reduce((a, b) => a + b, 0);
    const rarest = (ks) => ks.slice().sort((a, b) => n(a) - n(b) || (a < b ? -1 : a > b ? 1 : 0))[0];
    return rarest(kinds.filter((k) => !chores.has(k))) || rarest(kinds);
  }

  const from = () => (index < 0 ? Number(model.get("live_near")) || 0 : index);
  // a checkpoint not answered yet stops every move forward at its question: Step, Play, a scrub, Jump, End
  // (widgets/checkpoint_gate.py is the kernel's twin)
  function gate(target) {
    const here = from();
    if (target <= here) return target;
    const waiting = (data.checkpoints || [])
      .filter((c) => !(done.get(c.name) || {}).right && c.frame >= here && c.frame < target).map((c) => c.frame);
    return waiting.length ? Math.min(...waiting) : target;
  }
  function forward() {
    if (!ask.hidden && ask.dataset.right !== "1") { setPlaying(false); return false; } // answer first
    if (from() < count() - 1) {
      const next = gate(from() + 1);
      if (next === from()) { setPlaying(false); show(next); return false; }
      show(next); return true;
    }
    if (!data.complete) { tellKernel(); model.send({ cmd: "step" }); } // the kernel steps on from the page's place
    return false;
  }

  function tick() { if (!forward()) setPlaying(false); }

  // ---- checkpoints
  let choiceNodes = [];
  function clearChoices() {
    for (const n of choiceNodes) {
      n.removeAttribute("data-choice"); n.removeAttribute("tabindex"); n.removeAttribute("role");
      n.removeAttribute("aria-label"); n.onclick = null; n.onkeydown = null;
    }
    choiceNodes = [];
  }
  function closeAsk() { clearChoices(); ask.hidden = true; ask.dataset.name = ""; ask.replaceChildren(); }

  function askCheckpoint(cp) {
    setPlaying(false);
    clearChoices();
    ask.hidden = false;
    ask.dataset.name = cp.name;
    ask.dataset.frame = String(cp.frame);
    ask.dataset.right = "0";
    const state = done.get(cp.name) || { tries: 0, shown: false, right: false };
    done.set(cp.name, state);
    const q = el("div", { class: "rq-q", id: `${run()}-q-${cp.frame}` }, tr("Checkpoint: {question}", { question: cp.question }));
    const choices = el("div", { class: "rq-row", role: "group", "aria-label": tr("answers") });
    const feedback = el("div", { class: "rq-feedback", "data-testid": "rq-feedback", role: "status" });
    const showMe = button(tr("Show me"), tr("play the step and see the answer"), "");
    let busy = false;
    // a choice's box, opened with its key: {right, text}; a right one opens the frames past the question too
    const opened = async (key) => {
      const c = cp.choices.find((x) => x.key === key);
      const [boxKey, framesKey] = await choiceKeys(cp, key);
      const got = JSON.parse(await openBox(boxKey, c.box));
      if (got.right) { unlock(run(), cp.name, framesKey); await reopenData(); }
      return got;
    };
    const noCrypto = () => {
      feedback.className = "rq-feedback rq-wrong";
      feedback.textContent = tr("This page cannot check answers or play past a question: the browser offers no Web Crypto here (open the page from disk, over https or on localhost).");
    };
    const answerWith = async (key) => {
      if (!crypt()) { noCrypto(); return; }
      if (busy || state.right) return;
      busy = true;
      const got = await opened(key).finally(() => { busy = false; });
      state.tries += 1;
      if (got.right) {
        state.right = true; ask.dataset.right = "1";
        feedback.className = "rq-feedback rq-right"; feedback.textContent = got.text;
        choices.hidden = true; showMe.hidden = true;  // answered: the buttons go, the explanation stays
        clearChoices(); showScore(); report(); fillJumps();
        const wasPlaying = root.dataset.resume === "1";
        if (wasPlaying) setPlaying(true);
      } else {
        feedback.className = "rq-feedback rq-wrong";  // the near-miss hint of this choice
        feedback.textContent = tr("Not quite. Hint: {hint} Try again, or Show me.", { hint: got.text });
      }
    };
    for (const c of cp.choices) {
      const b = button(c.label, tr("answer: {label}", { label: c.label }), "");
      b.dataset.key = c.key;
      b.onclick = () => answerWith(c.key);
      choices.append(b);
    }
    showMe.onclick = async () => {  // the page finds the right choice as a student would: box by box
      if (!crypt()) { noCrypto(); return; }
      if (busy || state.right) return;
      busy = true;
      let text = "";
      try {
        for (const c of cp.choices) { const got = await opened(c.key); if (got.right) { text = got.text; break; } }
      } finally { busy = false; }
      state.shown = true; state.right = true; ask.dataset.right = "1";
      feedback.className = "rq-feedback"; feedback.textContent = text;
      choices.hidden = true; showMe.hidden = true;
      clearChoices(); showScore(); report(); forward();
    };
    choices.append(showMe);  // on the answers' line: hidden with them once answered
    ask.replaceChildren(q, choices, feedback);
    openTab(cp.tab);
    // the places in the picture: every scene of this run that draws the choice's mark
    requestAnimationFrame(() => {
      for (const c of cp.choices) {
        if (!c.mark) continue;
        for (const node of document.querySelectorAll(`[data-key="${CSS.escape(c.mark)}"]`)) {
          if (!node.closest(".rq-scene") || node.hasAttribute("data-leaving")) continue;
          node.setAttribute("data-choice", c.key); node.setAttribute("tabindex", "0"); node.setAttribute("role", "button");
          node.setAttribute("aria-label", tr("answer: {label}", { label: c.label }));
          node.onclick = () => answerWith(c.key);
          node.onkeydown = (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); answerWith(c.key); } };
          choiceNodes.push(node);
        }
      }
    });
  }

  // the tab the question is about (lab 05: ProcessQueues, whose committed offset it asks about), opened as a click
  // on its button does, so that the kernel's tabs follow and a tab whose frames are not sent yet gets them
  function openTab(title) {
    const dash = title ? host.closest(".rq-dashboard") : null;
    const tab = dash && [...dash.querySelectorAll(".rq-view-tabs button")].find((b) => b.textContent.trim() === title);
    if (tab && !tab.classList.contains("mod-active")) tab.click();
  }

  function report() {
    const list = [...done.entries()].filter(([, d]) => d.right)
      .map(([name, d]) => ({ name, tries: d.tries, shown: d.shown }));
    model.set("answers", list); model.save_changes();
  }

  // ---- controls
  reset.onclick = () => { setPlaying(false); show(0); };
  back.onclick = () => { setPlaying(false); show(index < 0 ? from() : index - 1); };
  step.onclick = () => { setPlaying(false); forward(); };
  play.onclick = () => {
    if (timer) { setPlaying(false); root.dataset.resume = "0"; return; }
    if (index >= count() - 1 && data.complete) show(0);
    root.dataset.resume = "1";
    setPlaying(true);
  };
  speed.oninput = () => {
    speedOut.textContent = `${speed.value}/s`;
    model.set("interval", Math.round(1000 / Number(speed.value))); model.save_changes();
    if (timer) setPlaying(true);
  };
  scrub.oninput = () => { setPlaying(false); show(gate(Number(scrub.value))); };
  jumpKind.onchange = () => { picked = jumpKind.value; };
  jump.onclick = () => {
    setPlaying(false);
    const per = (data.jumps || {})[jumpKind.value] || [];
    for (let j = from() + 1; j < per.length; j++) if (per[j]) { show(gate(j)); return; }
  };
  root.addEventListener("keydown", (e) => {
    const t = e.target;
    if (t && (t.tagName === "SELECT" || (t.tagName === "INPUT" && t.type !== "range"))) return;
    if (e.key === " " && t.tagName !== "BUTTON") { e.preventDefault(); play.click(); }
    else if (e.key === "ArrowRight" && t.type !== "range") { e.preventDefault(); step.click(); }
    else if (e.key === "ArrowLeft" && t.type !== "range") { e.preventDefault(); back.click(); }
    else if (e.key === "Home" && t.type !== "range") { e.preventDefault(); reset.click(); }
    else if (e.key === "End" && t.type !== "range") { e.preventDefault(); setPlaying(false); show(gate(count() - 1)); }
    else if ((e.key === "j" || e.key === "J") && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault(); // JupyterLab's command-mode J (select the cell below) honours it
      if (!jump.disabled) jump.click();
    }
  });

  const onUnlocked = () => {  // the kernel moved past questions itself: their keys
    for (const [name, hex] of Object.entries(model.get("unlocked") || {})) unlock(run(), name, unhex(hex));
    reopenData();
  };
  const onData = () => {
    clearTimeout(tellTimer); tellTimer = null;
    plain = model.get("data") || {}; data = mergePlayer(plain, []); wanted = null;
    BUS.keys[run()] = {}; // a new build: its answers (and keys) may differ
    done.clear(); setPlaying(false); showScore(); show(model.get("position") || 0, { fromKernel: true });
    onUnlocked();
  };
  const onPosition = () => { const p = model.get("position"); if (p !== index) show(p, { fromKernel: true }); };
  const onInterval = () => { if (timer) setPlaying(true); };
  model.on("change:data", onData);
  model.on("change:position", onPosition);
  model.on("change:interval", onInterval);
  model.on("change:unlocked", onUnlocked);
  onData();
  return () => {
    try { tellKernel(); } catch (e) { /* the model went with the kernel: nothing to tell */ } // a move not told yet
    setPlaying(false);
    model.off("change:data", onData); model.off("change:position", onPosition); model.off("change:interval", onInterval);
    model.off("change:unlocked", onUnlocked);
  };
}

// ---------------------------------------------------------------- the Events tab's table (widgets/event_table.py)
// A table frame is a head (summary, headers, label, testid) and keyed rows ("marks", decoded like a scene's), so
// a step sends only the rows that are new at that step. The DOM matches event_table_html() exactly.
const CURRENT_ROW_STYLE = "font-weight:bold;outline:2px solid #0072B2";

// what the table shows, as plain data (the browser-free test compares it with the kernel's view-model)
function tableCells(table) {
  return {
    testid: table.testid || "rq-event-log",
    label: table.label || "",
    summary: table.summary || "",
    headers: (table.headers || []).slice(),
    rows: (table.marks || []).map((r) => ({
      key: r.key, current: !!r.current, repeats: r.repeats || "",
      cells: [String(r.seq), r.when || "", r.kind || "", r.actor || "", r.msg || "", r.details || ""],
    })),
  };
}

function tableNode(table) {
  const t = tableCells(table);
  const root = el("div", { class: "rq-table", "data-testid": t.testid });
  const grid = el("table", { class: "rmq-events", "aria-label": t.label, style: "font-size:12px" });
  const head = el("tr");
  for (const h of t.headers) head.append(el("th", {}, h));
  const body = el("tbody");
  for (const r of t.rows) {
    const row = el("tr", { "data-key": r.key, class: r.current ? "current" : "", style: r.current ? CURRENT_ROW_STYLE : "" });
    r.cells.forEach((text, i) => {
      const cell = el("td", i === 1 ? { style: "white-space:nowrap" } : {});
      if (i === 5 && r.repeats) cell.append(el("b", { "data-role": "repeats" }, r.repeats), ": ");
      cell.append(text);
      row.append(cell);
    });
    body.append(row);
  }
  grid.append(el("thead"), body);
  grid.firstChild.append(head);
  root.append(el("div", { class: "rq-table-summary" }, t.summary), grid);
  return root;
}

function renderTable({ model, el: host }) {
  const root = el("div", { class: "rq-table-view" });
  host.appendChild(root);
  let frameOf = () => null;
  const at = followRun(model, () => draw());
  function draw() {
    const run = model.get("run");
    const fromFrames = run && at.index >= 0 ? frameOf(at.index) : null;
    if (run && at.index >= 0 && !fromFrames && frameCount(model)) return; // sealed: drawn when opened
    const table = fromFrames || model.get("table") || {};
    if (!table.marks) return;
    root.replaceChildren(tableNode(table));
    root.setAttribute("data-step", String(at.index));
    root.setAttribute("data-frames", String(frameCount(model)));
    root.dispatchEvent(new CustomEvent("rq-drawn", { bubbles: true }));
  }
  const onTable = () => { if (at.index < 0 || !model.get("run") || !frameCount(model)) draw(); };
  const stopFrames = openedFrames(model, (encoded) => { frameOf = decoder(encoded); draw(); });
  model.on("change:table", onTable);
  return () => {
    at.stop(); stopFrames();
    model.off("change:table", onTable);
  };
}

function render(ctx) {
  const kind = ctx.model.get("kind");
  return kind === "player" ? renderPlayer(ctx) : kind === "table" ? renderTable(ctx) : renderScene(ctx);
}

// ---------------------------------------------------------------- a page with no kernel
// A stand-in for the widget model: get / set / on / off / save_changes / send, over plain values.
class LocalModel {
  constructor(values) { this.values = { ...values }; this.handlers = {}; }
  get(name) { return this.values[name]; }
  set(name, value) { this.values[name] = value; for (const fn of this.handlers[`change:${name}`] || []) fn(); }
  on(event, fn) { (this.handlers[event] = this.handlers[event] || []).push(fn); }
  off(event, fn) { this.handlers[event] = (this.handlers[event] || []).filter((f) => f !== fn); }
  save_changes() {}
  send() {}
}

// data: {player: {...traits}, scenes: [{id, traits}]}; each is drawn into the element with that id
function mountStatic(playerId, data) {
  for (const s of data.scenes) {
    const host = document.getElementById(s.id);
    if (host) { host.replaceChildren(); render({ model: new LocalModel(s.traits), el: host }); }
  }
  const host = document.getElementById(playerId);
  if (host) { host.replaceChildren(); renderPlayer({ model: new LocalModel(data.player), el: host }); }
}
globalThis.rqlabMountStatic = mountStatic;

export { decoder, tableCells }; // for tests that run this file without a browser (tests/test_event_frames.py)
export default { render };
