// scene.js — draws a widgets.scene.Scene and morphs it frame to frame.
//
// Marks are matched by `key`: an element whose key survives keeps its DOM node and only its
// attributes change, so a token (a message) *travels* to its new place through a CSS transition on
// `transform`. New marks fade in; marks that vanished fade out and are then removed (they carry
// `data-leaving` meanwhile, so tests can ignore them). The DOM matches Scene.to_svg() exactly.

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

function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "rq-scene";
  const style = document.createElement("style");
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("role", "img");
  const defs = document.createElementNS(SVG, "defs");
  svg.appendChild(defs);
  root.append(style, svg);
  el.appendChild(root);
  let frame = 0;
  const nodes = new Map();

  function draw() {
    const scene = model.get("scene") || {};
    if (!scene.marks) return;
    const started = performance.now();
    const sid = svgId(scene.testid);
    root.setAttribute("data-testid", scene.testid || "rq-scene");
    for (const [k, v] of Object.entries(scene.extra || {})) root.setAttribute(`data-${k}`, v);
    root.style.setProperty("--rq-duration", `${model.get("duration_ms")}ms`);
    style.textContent = scene.css || "";
    svg.setAttribute("width", scene.width);
    svg.setAttribute("height", scene.height);
    svg.setAttribute("viewBox", `0 0 ${scene.width} ${scene.height}`);
    svg.setAttribute("aria-label", scene.label || "");
    defs.innerHTML =
      `<marker id="${sid}-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" ` +
      `orient="auto-start-reverse"><path class="rq-marker" d="M0,0 L10,5 L0,10 z"/></marker>`;
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
  }

  model.on("change:scene", draw);
  model.on("change:duration_ms", draw);
  draw();
  return () => { model.off("change:scene", draw); model.off("change:duration_ms", draw); };
}

export default { render };
