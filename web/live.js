// steerkit playground: the controls of `steerkit serve`, added to the replay player's page.
// The player (web/replay.html) draws; this script talks to the server over a WebSocket (one
// simulation per tab), feeds the player the world and frames it sends, draws the draggable
// handles over the canvas, and turns drags, clicks, sliders and buttons into messages.
// Protocol: docs/playground.md.
(function () {
  "use strict";
  var R = window.steerkitReplay;
  if (!R) return;
  var KEEP_FRAMES = 125;        // frames kept for trails (5 s at 25 frames/s)
  var SEND_EVERY_MS = 50;       // a drag or a slider sends at most 20 messages a second
  var HANDLE_PX = 12;           // a handle is grabbed within this many CSS px
  var ERROR_MS = 12000;         // an error stays shown this long

  function $(id) { return document.getElementById(id); }
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // ---------- layout ----------
  var css = el("style");
  css.textContent =
    "#live-bar { display: flex; align-items: center; gap: 6px; flex-wrap: wrap; flex: 1; }" +
    "#live-bar .sep { width: 1px; height: 22px; background: var(--line); margin: 0 4px; }" +
    "#live-bar button.on { background: var(--accent); color: #fff; border-color: var(--accent); }" +
    "#live-status { font: 12px var(--mono); color: var(--muted); margin-left: auto; white-space: nowrap; }" +
    "#live-error { left: 50%; top: 12px; transform: translateX(-50%); padding: 8px 14px; max-width: 80%;" +
    "  color: #8b1a1a; background: #fff1f1; border-color: #f3b7b7; display: none; font: 12px/1.45 var(--mono); white-space: pre-wrap; }" +
    "#live-handles { position: absolute; inset: 0; width: 100%; height: 100%; pointer-events: none; }" +
    "#params .param { margin-bottom: 7px; }" +
    "#params .param .row { display: flex; justify-content: space-between; gap: 6px; font-size: 12px; }" +
    "#params .param .owner { color: var(--muted); }" +
    "#params .param input { width: 100%; margin: 2px 0 0; accent-color: var(--accent); }" +
    "#params .param .v { font: 12px var(--mono); }" +
    "#params .none { color: var(--muted); }" +
    "#turret-counts div { font: 12px var(--mono); margin-bottom: 3px; }" +
    "#turret-counts .sw { display: inline-block; width: 9px; height: 9px; margin-right: 5px; border: 1px solid #111; }";
  document.head.appendChild(css);

  var footer = document.querySelector("footer");
  Array.prototype.forEach.call(footer.children, function (c) { c.style.display = "none"; });
  var bar = el("div", { id: "live-bar" });
  footer.appendChild(bar);
  var pick = el("select", { id: "live-scenario", "aria-label": "Scenario", title: "Open a demo or a gallery scenario" });
  var upload = el("input", { id: "live-upload", type: "file", accept: ".toml,text/plain", style: "display:none" });
  var uploadBtn = el("button", { id: "live-upload-button", title: "Load a scenario file (.toml)" }, "Upload…");
  var playBtn = el("button", { id: "live-play", title: "Pause / run (Space)" }, "Pause");
  var stepBtn = el("button", { id: "live-step", title: "One step (→)" }, "Step");
  var resetBtn = el("button", { id: "live-reset", title: "Back to the scenario as loaded" }, "Reset");
  var speed = el("select", { id: "live-speed", "aria-label": "Speed", title: "Simulated seconds per real second" });
  [0.25, 0.5, 1, 2, 4].forEach(function (v) {
    var o = el("option", { value: String(v) }, v + "×");
    if (v === 1) o.selected = true;
    speed.appendChild(o);
  });
  var toolMove = el("button", { id: "tool-move", class: "on", title: "Drag goals, targets, obstacles and wall ends; click an agent to select it; Shift+click to send the selected agent's goal there" }, "Move");
  var toolSelect = el("button", { id: "tool-select", title: "Drag a box round agents (or click one) to select them; click anywhere else to send them there, each to its own spot; Esc clears" }, "Select");
  var toolAdd = el("button", { id: "tool-add", title: "Click to add an agent to the chosen group" }, "Add");
  var addGroup = el("select", { id: "live-add-group", "aria-label": "Group to add to" });
  var toolRemove = el("button", { id: "tool-remove", title: "Click an agent to remove it" }, "Remove");
  var saveBtn = el("button", { id: "live-save", title: "Download the current state as a scenario file that steerkit run plays" }, "Save");
  var status = el("span", { id: "live-status" }, "connecting…");
  function sep() { return el("span", { class: "sep" }); }
  [pick, uploadBtn, upload, sep(), playBtn, stepBtn, resetBtn, speed, sep(), toolMove, toolSelect, toolAdd, addGroup, toolRemove, sep(), saveBtn, status]
    .forEach(function (e) { bar.appendChild(e); });

  var errorBox = el("div", { id: "live-error", class: "floating", role: "alert" });
  $("stage").appendChild(errorBox);
  var overlay = el("canvas", { id: "live-handles" });
  $("stage").appendChild(overlay);

  var paramSection = el("section", { id: "params-section" });
  paramSection.appendChild(el("h2", {}, "Parameters"));
  var paramBox = el("div", { id: "params" });
  paramSection.appendChild(paramBox);
  var aside = document.querySelector("aside");
  aside.insertBefore(paramSection, aside.children[1] || null);
  // a world with turrets: each one's counts since the load, as metrics.json gives them
  var turretSection = el("section", { id: "turrets-section", style: "display:none" });
  turretSection.appendChild(el("h2", {}, "Turrets"));
  var turretBox = el("div", { id: "turret-counts" });
  turretSection.appendChild(turretBox);
  aside.insertBefore(turretSection, paramSection);
  $("events-section").style.display = "none";
  R.hooks.title = "playground";

  // ---------- state ----------
  var live = {
    connected: false, name: null, paused: false, step: 0, time: 0, frames: 0,
    handles: [], params: [], groups: [], lastError: null, lastSaved: null, lastFrame: null, errors: 0,
    scenarios: [], turrets: null, shots: null, picked: [], sinceLoad: 0
  };
  window.steerkitLive = live;
  var tool = "move";
  var ws = null;

  function send(msg) {
    if (ws && ws.readyState === 1) ws.send(JSON.stringify(msg));
  }
  live.send = send;

  var errorTimer = null;
  function showError(text) {
    live.lastError = text;
    live.errors++;
    errorBox.textContent = text;
    errorBox.style.display = "block";
    if (errorTimer) clearTimeout(errorTimer);
    errorTimer = setTimeout(function () { errorBox.style.display = "none"; }, ERROR_MS);
  }
  errorBox.addEventListener("click", function () { errorBox.style.display = "none"; });

  function setPaused(p) {
    live.paused = p;
    playBtn.textContent = p ? "Run" : "Pause";
    playBtn.classList.toggle("on", p);
  }

  // ---------- sliders ----------
  var pending = {}, paramTimer = null;
  function flushParams() {
    paramTimer = null;
    Object.keys(pending).forEach(function (path) { send({ type: "set_param", path: path, value: pending[path] }); });
    pending = {};
  }
  // New values into the sliders there are (not the one being dragged), or new sliders when the
  // parameters themselves changed (another scenario, an agent's group emptied...).
  function updateParams(params) {
    var inputs = paramBox.querySelectorAll("input[data-path]");
    var same = inputs.length === params.length && params.every(function (p, i) { return inputs[i].getAttribute("data-path") === p.path; });
    if (!same) { buildParams(params); return; }
    live.params = params;
    params.forEach(function (p, i) {
      var input = inputs[i];
      if (input === document.activeElement || pending[p.path] !== undefined) return;
      input.value = String(p.value);
      input.parentNode.querySelector(".v").textContent = String(+p.value.toFixed(3));
    });
  }
  function buildParams(params) {
    live.params = params;
    paramBox.textContent = "";
    if (!params.length) { paramBox.appendChild(el("span", { class: "none" }, "No numeric parameters.")); return; }
    params.forEach(function (p) {
      var div = el("div", { class: "param" });
      var row = el("div", { class: "row" });
      var name = el("span", { title: p.path });
      name.appendChild(el("span", { class: "owner" }, p.owner + " · "));
      name.appendChild(document.createTextNode(p.label));
      var v = el("span", { class: "v" }, String(+p.value.toFixed(3)));
      row.appendChild(name); row.appendChild(v);
      var input = el("input", { type: "range", min: String(p.min), max: String(p.max), step: String(p.step), "data-path": p.path, "aria-label": p.owner + " " + p.label });
      input.value = String(p.value);
      input.addEventListener("input", function () {
        v.textContent = String(+(+input.value).toFixed(3));
        pending[p.path] = +input.value;
        if (!paramTimer) paramTimer = setTimeout(flushParams, SEND_EVERY_MS);
      });
      div.appendChild(row); div.appendChild(input);
      paramBox.appendChild(div);
    });
  }

  // ---------- handles ----------
  // In a 3D world (y up) handles carry x, y, z; a drag moves them on the horizontal plane
  // through the handle (the top view: x and z under the pointer; the 3D view: where the
  // pointer's ray meets that plane), keeping their height.
  var drag = null, lastSent = 0, dragTimer = null;
  function is3d() { return R.dims === 3; }
  function screenOf(h) {
    return is3d() ? R.toScreen3(h.x, h.y, h.z || 0) : R.toScreen(h.x, h.y);
  }
  // the world point under the pointer: 2D (x, y); 3D on the plane at height `height`
  function worldAt(px, py, height) {
    return is3d() ? R.toWorld3(px, py, height) : R.toWorld(px, py);
  }
  // a height for a new point in 3D: the selected agent's, else the view's centre's
  function pickHeight() {
    var f = live.lastFrame, sel = R.selected;
    if (f && sel >= 0 && f.position && isFinite(f.position[3 * sel + 1])) return f.position[3 * sel + 1];
    var cam = R.camera();
    return cam ? cam.target[1] : 0;
  }
  function handleAt(px, py) {
    var best = null, bestD = HANDLE_PX * HANDLE_PX;
    live.handles.forEach(function (h) {
      var s = screenOf(h);
      if (!s) return;
      var d = (s.x - px) * (s.x - px) + (s.y - py) * (s.y - py);
      if (d <= bestD) { bestD = d; best = h; }
    });
    return best;
  }
  function agentAt(px, py) {
    var best = -1, bestD = 14 * 14;
    for (var k = 0; k < R.agentCount; k++) {
      var s = R.screenPosition(k);
      if (!s) continue;
      var d = (s.x - px) * (s.x - px) + (s.y - py) * (s.y - py);
      if (d < bestD) { bestD = d; best = k; }
    }
    return best;
  }
  // a message's point: x, y, and z in 3D
  function withPoint(msg, w) {
    msg.x = w.x; msg.y = w.y;
    if (is3d()) msg.z = w.z;
    return msg;
  }
  function moveMessage(h, w) {
    switch (h.kind) {
      case "goal": return withPoint({ type: "move_goal", agent: h.agent }, w);
      case "target": return withPoint({ type: "move_target", path: h.path }, w);
      case "obstacle": return withPoint({ type: "move_obstacle", id: h.id }, w);
      case "wall_end": return withPoint({ type: "move_wall_end", id: h.id, end: h.end }, w);
      case "turret": return withPoint({ type: "move_turret", id: h.id }, w);
    }
    return null;
  }
  function sendDrag() {
    dragTimer = null;
    if (!drag) return;
    lastSent = Date.now();
    send(moveMessage(drag.handle, drag.at));
  }
  R.hooks.down = function (px, py, ev) {
    // in the 3D view Shift+drag pans: Shift+click sets goals in the top view only
    if (ev && ev.shiftKey && tool === "move" && R.view !== "3d") {
      // Shift+click: the selected agent's goal goes there (or the only goal or target there is)
      var aims = live.handles.filter(function (h) { return h.kind === "goal" || h.kind === "target"; });
      var sel = R.selected;
      var goal = live.handles.filter(function (h) { return h.kind === "goal" && h.agent === sel; })[0];
      var w = worldAt(px, py, goal ? goal.y : aims.length === 1 ? aims[0].y : pickHeight());
      if (!w) return true;
      if (sel >= 0) send(withPoint({ type: "move_goal", agent: sel }, w));
      else if (aims.length === 1) send(moveMessage(aims[0], w));
      else showError("Shift+click moves the selected agent's goal: click an agent first");
      return true;
    }
    if (tool === "select") {
      box = { x0: px, y0: py, x1: px, y1: py };
      return true;
    }
    if (tool === "add") {
      var at = worldAt(px, py, pickHeight());
      if (at) send(withPoint({ type: "add_agent", group: addGroup.value }, at));
      return true;
    }
    if (tool === "remove") {
      var k = agentAt(px, py);
      if (k >= 0) send({ type: "remove_agent", id: k });
      return true;
    }
    var h = handleAt(px, py);
    if (!h) return false;
    drag = { handle: h, at: { x: h.x, y: h.y, z: h.z } };
    return true;
  };
  R.hooks.move = function (px, py) {
    if (box) { box.x1 = px; box.y1 = py; return; }
    if (!drag) return;
    var w = worldAt(px, py, drag.handle.y);
    if (!w) return;
    drag.at = w;
    drag.handle.x = w.x; drag.handle.y = w.y;
    if (is3d()) drag.handle.z = w.z;
    if (!dragTimer) dragTimer = setTimeout(sendDrag, Math.max(0, SEND_EVERY_MS - (Date.now() - lastSent)));
  };
  R.hooks.up = function (px, py) {
    if (box) { finishBox(px, py); return; }
    if (!drag) return;
    if (dragTimer) { clearTimeout(dragTimer); dragTimer = null; }
    send(moveMessage(drag.handle, drag.at));
    drag = null;
  };
  // The Select tool: a box picks the agents drawn inside it, a click on an agent picks it, a
  // click elsewhere sends the picked agents there (the server gives each its own spot).
  var box = null;
  function finishBox(px, py) {
    var b = box;
    box = null;
    var x0 = Math.min(b.x0, px), x1 = Math.max(b.x0, px), y0 = Math.min(b.y0, py), y1 = Math.max(b.y0, py);
    if (x1 - x0 > 4 || y1 - y0 > 4) {
      live.picked = [];
      for (var k = 0; k < R.agentCount; k++) {
        var s = R.screenPosition(k);
        if (s && s.x >= x0 && s.x <= x1 && s.y >= y0 && s.y <= y1) live.picked.push(k);
      }
      return;
    }
    var k = agentAt(px, py);
    if (k >= 0) { live.picked = [k]; return; }
    if (!live.picked.length) { showError("Select agents first: drag a box round them or click one"); return; }
    var w = worldAt(px, py, pickHeight());
    if (w) send(withPoint({ type: "move_goals", agents: live.picked.slice() }, w));
  }
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape" && live.picked.length) live.picked = [];
  });
  R.hooks.pick = function (k) { send({ type: "select", id: k >= 0 ? k : null }); };

  var COLOURS = { goal: "#e8590c", target: "#14a098", obstacle: "#5b6475", wall_end: "#3b4350", turret: "#3b4350" };
  function drawHandles() {
    var r = overlay.getBoundingClientRect(), dpr = window.devicePixelRatio || 1;
    if (overlay.width !== Math.round(r.width * dpr) || overlay.height !== Math.round(r.height * dpr)) {
      overlay.width = Math.round(r.width * dpr); overlay.height = Math.round(r.height * dpr);
    }
    var g = overlay.getContext("2d");
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, r.width, r.height);
    if (live.picked.length) {
      g.strokeStyle = "#111827"; g.lineWidth = 1.5; g.setLineDash([]);
      g.beginPath();
      live.picked.forEach(function (k) {
        var s = k < R.agentCount ? R.screenPosition(k) : null;
        if (s) { g.moveTo(s.x + 11, s.y); g.arc(s.x, s.y, 11, 0, Math.PI * 2); }
      });
      g.stroke();
    }
    if (box) {
      g.strokeStyle = "#2563eb"; g.fillStyle = "rgba(37,99,235,.08)"; g.lineWidth = 1; g.setLineDash([4, 3]);
      g.beginPath(); g.rect(Math.min(box.x0, box.x1), Math.min(box.y0, box.y1), Math.abs(box.x1 - box.x0), Math.abs(box.y1 - box.y0));
      g.fill(); g.stroke(); g.setLineDash([]);
    }
    live.handles.forEach(function (h) {
      var s = screenOf(h);
      if (!s) return;
      g.strokeStyle = COLOURS[h.kind] || "#333";
      g.fillStyle = "rgba(255,255,255,.85)";
      g.lineWidth = 2;
      g.beginPath();
      if (h.kind === "obstacle") { g.rect(s.x - 5, s.y - 5, 10, 10); }
      else if (h.kind === "turret") { g.moveTo(s.x, s.y - 10); g.lineTo(s.x + 10, s.y); g.lineTo(s.x, s.y + 10); g.lineTo(s.x - 10, s.y); g.closePath(); }
      else if (h.kind === "wall_end") { g.arc(s.x, s.y, 5, 0, Math.PI * 2); }
      else {
        g.arc(s.x, s.y, 8, 0, Math.PI * 2);
        g.moveTo(s.x - 12, s.y); g.lineTo(s.x - 4, s.y); g.moveTo(s.x + 4, s.y); g.lineTo(s.x + 12, s.y);
        g.moveTo(s.x, s.y - 12); g.lineTo(s.x, s.y - 4); g.moveTo(s.x, s.y + 4); g.lineTo(s.x, s.y + 12);
      }
      g.fill(); g.stroke();
    });
  }
  (function loop() { drawHandles(); requestAnimationFrame(loop); })();

  // ---------- turrets ----------
  function showTurrets(list) {
    live.turrets = list || null;
    turretSection.style.display = list && list.length ? "" : "none";
    if (!list || !list.length) return;
    var shapes = live.turretShapes || [];
    turretBox.textContent = "";
    list.forEach(function (t, i) {
      var row = el("div");
      var sw = el("span", { class: "sw" });
      sw.style.background = (shapes[i] || {}).colour || "#888";
      row.appendChild(sw);
      var parts = [t.shots + " fired"];
      if (t.hits || t.misses) parts.push(t.hits + " hit (" + t.target_hits + " its target)", t.misses + " missed");
      if (t.blasts) parts.push(t.blasts + " blasts", t.caught + " caught (" + t.target_caught + " its target)");
      if (t.no_solution) parts.push(t.no_solution + " without a solution");
      row.title = "shots since the load or the last reset, as metrics.json counts them";
      row.appendChild(document.createTextNode(t.name + ": " + parts.join(", ")));
      turretBox.appendChild(row);
    });
  }

  // ---------- toolbar ----------
  function setTool(t) {
    tool = t;
    toolMove.classList.toggle("on", t === "move");
    toolSelect.classList.toggle("on", t === "select");
    toolAdd.classList.toggle("on", t === "add");
    toolRemove.classList.toggle("on", t === "remove");
  }
  toolMove.addEventListener("click", function () { setTool("move"); });
  toolSelect.addEventListener("click", function () { setTool("select"); });
  toolAdd.addEventListener("click", function () { setTool("add"); });
  toolRemove.addEventListener("click", function () { setTool("remove"); });
  playBtn.addEventListener("click", function () { send({ type: live.paused ? "play" : "pause" }); setPaused(!live.paused); });
  stepBtn.addEventListener("click", function () { send({ type: "step" }); setPaused(true); });
  resetBtn.addEventListener("click", function () { send({ type: "reset" }); });
  speed.addEventListener("change", function () { send({ type: "speed", factor: +speed.value }); });
  pick.addEventListener("change", function () { send({ type: "load", name: pick.value }); });
  uploadBtn.addEventListener("click", function () { upload.click(); });
  upload.addEventListener("change", function () {
    var f = upload.files && upload.files[0];
    if (!f) return;
    f.text().then(function (text) { send({ type: "load", toml: text, file: f.name }); });
    upload.value = "";
  });
  saveBtn.addEventListener("click", function () { send({ type: "save" }); });
  // Space and the arrows drive the server's simulation, not the replay's timeline.
  window.addEventListener("keydown", function (ev) {
    var tag = (ev.target && ev.target.tagName) || "";
    if (tag === "INPUT" || tag === "SELECT" || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.key === " ") { ev.preventDefault(); ev.stopImmediatePropagation(); playBtn.click(); }
    else if (ev.key === "ArrowRight") { ev.preventDefault(); ev.stopImmediatePropagation(); stepBtn.click(); }
    else if (ev.key === "ArrowLeft" || ev.key === "Home" || ev.key === "End") { ev.stopImmediatePropagation(); }
  }, true);

  function download(name, text) {
    var a = el("a", { download: name + ".toml" });
    a.href = URL.createObjectURL(new Blob([text], { type: "application/toml" }));
    document.body.appendChild(a);
    a.click();
    setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
  }

  // ---------- socket ----------
  function connect() {
    ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
    ws.onopen = function () { live.connected = true; status.textContent = "connected"; };
    ws.onclose = function () {
      live.connected = false;
      status.textContent = "disconnected — reload the page";
    };
    ws.onmessage = function (ev) {
      var m;
      try { m = JSON.parse(ev.data); } catch (e) { showError("unreadable message from the server"); return; }
      switch (m.type) {
        case "hello":
          live.scenarios = m.scenarios;
          pick.textContent = "";
          [["demo", "Demos"], ["gallery", "Gallery"]].forEach(function (kind) {
            var og = el("optgroup", { label: kind[1] });
            m.scenarios.filter(function (s) { return s.kind === kind[0]; }).forEach(function (s) {
              og.appendChild(el("option", { value: s.name }, s.name.replace(/_/g, " ")));
            });
            pick.appendChild(og);
          });
          break;
        case "scenario":
          var same = live.name === m.name;
          live.name = m.name;
          live.sinceLoad = 0;
          live.groups = m.groups;
          live.meta = m.recording.meta;
          live.turretShapes = (m.recording.world && m.recording.world.turrets) || [];
          R.load(m.recording, same);
          if (!same) { errorBox.style.display = "none"; live.picked = []; }
          if (same) updateParams(m.params); else buildParams(m.params);
          var chosen = addGroup.value;
          addGroup.textContent = "";
          m.groups.forEach(function (g) { addGroup.appendChild(el("option", { value: g }, g)); });
          if (m.groups.indexOf(chosen) >= 0) addGroup.value = chosen;
          if (Array.prototype.some.call(pick.options, function (o) { return o.value === m.name; })) pick.value = m.name;
          setPaused(m.paused);
          break;
        case "frame":
          live.step = m.step; live.time = m.time; live.frames++; live.sinceLoad++;
          live.lastFrame = m.frame;
          if (!drag) live.handles = m.handles;
          setPaused(m.paused);
          if (m.shots) { live.shots = m.shots; R.setShots(m.shots); }
          showTurrets(m.turrets);
          R.push(m.frame, KEEP_FRAMES);
          status.textContent = "t = " + m.time.toFixed(2) + " s · step " + m.step + (m.paused ? " · paused" : "");
          // the player's header counts a recording's length; live, it shows the running state
          if (live.meta) $("meta").textContent = R.agentCount + " agents · live, t = " + m.time.toFixed(1) + " s · dt " + (live.meta.dt * 1000).toFixed(1) + " ms · seed " + live.meta.seed + (live.meta.dims === 3 ? " · 3D" : "");
          break;
        case "params":
          updateParams(m.params);
          break;
        case "error":
          showError(m.message);
          break;
        case "saved":
          live.lastSaved = m.toml;
          download(m.name + "-saved", m.toml);
          break;
      }
    };
  }
  connect();
})();
