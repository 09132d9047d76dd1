// steerkit replay player, part 6 of 7: the side panels: header, groups, layers, the selected agent, metrics, events.
// The parts are one script, joined in order into replay.html (steerkit_scenario::recording::PLAYER).
  // ---------- panels ----------
  function fmt(v, digits) {
    if (!isFinite(v)) return "–";
    if (digits === undefined && Number.isInteger(v) && Math.abs(v) < 1e9) return String(v);
    var a = Math.abs(v);
    if (a !== 0 && (a >= 1e5 || a < 1e-3)) return v.toExponential(2);
    return v.toFixed(digits === undefined ? (a >= 100 ? 1 : a >= 10 ? 2 : 3) : digits);
  }
  function updateReadout() {
    if (!frameCount) return;
    var f = frames[state.frame];
    readout.textContent = "frame " + (state.frame + 1) + " / " + frameCount + "  ·  step " + f.step + "  ·  t = " + (Math.max(state.step, f.step) * dt).toFixed(2) + " s";
    if (+scrub.value !== state.frame) scrub.value = state.frame;
  }
  function frameChanged(fromPlayback) {
    if (!fromPlayback) requestDraw();
    updateSelected();
    drawSparklines();
    updateEvents();
    updateReadout();
  }

  var headerBound = false;
  function buildHeader() {
    document.title = meta.scenario + " · steerkit " + (liveHooks.title || "replay");
    $("scenario").textContent = meta.scenario;
    $("description").textContent = meta.description || "";
    $("description").title = meta.description ? "Click to show it all" : "";
    if (!headerBound) $("description").addEventListener("click", function () { this.classList.toggle("open"); resize(); });
    headerBound = true;
    var duration = (frameCount ? frames[frameCount - 1].step : 0) * dt;
    // one agent is named by its group (the PTSP race's ship), not counted
    var who = n === 1 && groups.length === 1 ? groups[0].name : n + " agents";
    $("meta").textContent = who + " · " + duration.toFixed(1) + " s · dt " + (dt * 1000).toFixed(1) + " ms · seed " + meta.seed + (dims === 3 ? " · 3D" : "");
  }
  function buildLegend() {
    var ul = $("legend");
    ul.textContent = "";
    groups.forEach(function (g, gi) {
      var li = document.createElement("li");
      li.title = "Click to hide or show this group";
      var sw = document.createElement("span");
      sw.className = "swatch";
      sw.style.background = g.colour;
      var name = document.createElement("span");
      name.textContent = g.name;
      var count = document.createElement("span");
      count.className = "count";
      count.textContent = groupCounts[gi];
      li.appendChild(sw); li.appendChild(name); li.appendChild(count);
      li.addEventListener("click", function () {
        groupVisible[gi] = !groupVisible[gi];
        li.classList.toggle("off", !groupVisible[gi]);
        requestDraw();
      });
      ul.appendChild(li);
    });
  }
  function buildLayers() {
    var box = $("layers");
    box.textContent = "";
    LAYERS.forEach(function (l) {
      var label = document.createElement("label");
      var input = document.createElement("input");
      input.type = "checkbox";
      input.id = "layer-" + l.id;
      input.checked = state.layers[l.id];
      input.addEventListener("change", function () { state.layers[l.id] = input.checked; requestDraw(); });
      var key = document.createElement("span");
      key.className = "key" + (l.dash ? " dash" : "") + (l.body ? " body" : "");
      if (l.key) key.style.borderColor = l.key;
      if (l.body) label.title = "Draw each body as a dart pointing along its heading instead of a disc of its true radius (B)";
      var text = document.createElement("span");
      text.textContent = l.label;
      if (l.data && !present[l.data]) {
        // a recording in its own unit (the PTSP race, in pixels) is no steering scenario: the
        // layers it cannot have are left out rather than offered empty
        if (meta.unit) { state.layers[l.id] = false; return; }
        label.className = "empty"; label.title = "Not recorded in this run";
      }
      label.appendChild(input); label.appendChild(key); label.appendChild(text);
      box.appendChild(label);
    });
  }

  function row(table, name, value) {
    var tr = document.createElement("tr");
    var a = document.createElement("td"), b = document.createElement("td");
    a.textContent = name; b.textContent = value;
    tr.appendChild(a); tr.appendChild(b);
    table.appendChild(tr);
  }
  function findEntry(l, k) {
    if (!l) return -1;
    for (var i = 0; i < l.agent.length; i++) if (l.agent[i] === k) return i;
    return -1;
  }
  function updateSelected() {
    var box = $("selected"), k = state.selected;
    box.textContent = "";
    if (k < 0 || !frameCount) {
      var none = document.createElement("span");
      none.className = "none";
      none.textContent = "Click an agent to inspect it.";
      box.appendChild(none);
      return;
    }
    var f = frames[state.frame], g = groups[agentGroup[k]] || { name: "?", colour: "#888" };
    var head = document.createElement("div");
    head.className = "selhead";
    var sw = document.createElement("span");
    sw.className = "swatch"; sw.style.background = g.colour;
    var title = document.createElement("span");
    title.textContent = "Agent " + k + " · " + g.name;
    var follow = document.createElement("label");
    var cb = document.createElement("input");
    cb.type = "checkbox"; cb.checked = state.follow;
    cb.addEventListener("change", function () { state.follow = cb.checked; requestDraw(); });
    follow.appendChild(cb); follow.appendChild(document.createTextNode("follow"));
    head.appendChild(sw); head.appendChild(title); head.appendChild(follow);
    box.appendChild(head);
    var t = document.createElement("table");
    var i;
    if (dims === 3) {
      var P = f.pos3, V = f.vel3, o = 3 * k;
      row(t, "position", "(" + fmt(P[o], 2) + ", " + fmt(P[o + 1], 2) + ", " + fmt(P[o + 2], 2) + ") m");
      row(t, "speed", fmt(Math.hypot(V[o], V[o + 1], V[o + 2]), 2) + " m/s");
      row(t, "climb", fmt(V[o + 1], 2) + " m/s");
      row(t, "heading", fmt(f.ori[k] * 180 / Math.PI, 1) + "°");
      if (f.att && isFinite(f.att[4 * k])) {
        bodyAxes(k, { hasAtt: true, att: f.att }, f);
        row(t, "pitch", fmt(Math.asin(Math.max(-1, Math.min(1, B[1]))) * 180 / Math.PI, 1) + "°");
        row(t, "bank", fmt(Math.atan2(B[7], B[4]) * 180 / Math.PI, 1) + "° (right wing up +)");
      }
      i = findEntry(f.steering, k);
      if (i >= 0) row(t, "steering", fmt(Math.hypot(f.steering.vector3[3 * i], f.steering.vector3[3 * i + 1], f.steering.vector3[3 * i + 2]), 2) + " m/s²");
      i = findEntry(f.target, k);
      if (i >= 0) row(t, "target", "(" + fmt(f.target.point3[3 * i], 2) + ", " + fmt(f.target.point3[3 * i + 1], 2) + ", " + fmt(f.target.point3[3 * i + 2], 2) + ")");
    } else {
      var x = f.pos[2 * k], y = f.pos[2 * k + 1], vx = f.vel[2 * k], vy = f.vel[2 * k + 1];
      row(t, "position", "(" + fmt(x, 2) + ", " + fmt(y, 2) + ") " + unit());
      row(t, "speed", fmt(Math.hypot(vx, vy), 2) + " " + unit() + "/s");
      row(t, "heading", fmt(f.ori[k] * 180 / Math.PI, 1) + "°");
      i = findEntry(f.steering, k);
      if (i >= 0) row(t, "steering", fmt(Math.hypot(f.steering.vector[2 * i], f.steering.vector[2 * i + 1]), 2) + " " + unit() + "/s²");
      i = findEntry(f.target, k);
      if (i >= 0) row(t, "target", "(" + fmt(f.target.point[2 * i], 2) + ", " + fmt(f.target.point[2 * i + 1], 2) + ")");
    }
    var veh = g.vehicle;
    if (veh) {
      row(t, "vehicle", veh.model.replace("_", " "));
      var cn = CONTROL_NAMES[veh.model] || [];
      if (f.controls && isFinite(f.controls[3 * k])) {
        cn.forEach(function (name, j) { row(t, name, fmt(f.controls[3 * k + j], 2)); });
      }
    }
    i = findEntry(f.neighbour_radius, k);
    if (i >= 0) row(t, "neighbours ≤", fmt(f.neighbour_radius.radius[i], 2) + " m");
    if (f.rays) {
      var hits = 0, rays = 0;
      for (i = 0; i < f.rays.agent.length; i++) if (f.rays.agent[i] === k) { rays++; if (f.rays.hit[i] >= 0) hits++; }
      if (rays) row(t, "feelers", rays + " (" + hits + " hit)");
    }
    box.appendChild(t);
  }

  // sparklines
  var sparks = [];
  function buildMetrics() {
    sparks = [];
    $("metrics").textContent = "";
    if (!metrics.length) { $("metrics-section").style.display = "none"; return; }
    $("metrics-section").style.display = "";
    var box = $("metrics");
    metrics.forEach(function (m) {
      var div = document.createElement("div");
      div.className = "metric";
      var head = document.createElement("div");
      head.className = "row";
      var name = document.createElement("span");
      name.className = "name"; name.textContent = m.name; name.title = m.name;
      var value = document.createElement("span");
      value.className = "value";
      head.appendChild(name); head.appendChild(value);
      var c = document.createElement("canvas");
      div.appendChild(head); div.appendChild(c);
      box.appendChild(div);
      var lo = Infinity, hi = -Infinity;
      for (var i = 0; i < m.values.length; i++) { var v = m.values[i]; if (isFinite(v)) { if (v < lo) lo = v; if (v > hi) hi = v; } }
      if (!(hi >= lo)) { lo = 0; hi = 1; }
      if (hi === lo) { hi += 0.5; lo -= 0.5; }
      var seek = function (ev) {
        var r = c.getBoundingClientRect();
        seekFrame(Math.round((ev.clientX - r.left) / r.width * (frameCount - 1)));
      };
      c.addEventListener("pointerdown", function (ev) { c.setPointerCapture(ev.pointerId); seek(ev); });
      c.addEventListener("pointermove", function (ev) { if (ev.buttons) seek(ev); });
      sparks.push({ m: m, canvas: c, value: value, lo: lo, hi: hi });
    });
  }
  function drawSparklines() {
    sparks.forEach(function (s) {
      var c = s.canvas, w = c.clientWidth, h = c.clientHeight;
      if (!w || !h) return;
      if (c.width !== Math.round(w * dpr)) { c.width = Math.round(w * dpr); c.height = Math.round(h * dpr); }
      var g = c.getContext("2d"), vals = s.m.values, N = vals.length;
      g.setTransform(dpr, 0, 0, dpr, 0, 0);
      g.clearRect(0, 0, w, h);
      g.fillStyle = "#f5f7fa";
      g.fillRect(0, 0, w, h);
      var X = function (i) { return N > 1 ? 1 + i / (N - 1) * (w - 2) : w / 2; };
      var Y = function (v) { return h - 3 - (v - s.lo) / (s.hi - s.lo) * (h - 6); };
      g.strokeStyle = "#4b6cb7";
      g.lineWidth = 1.25;
      g.lineJoin = "round";
      g.beginPath();
      var pen = false, stride = Math.max(1, Math.floor(N / (2 * w)));
      for (var i = 0; i < N; i += stride) {
        var v = vals[i];
        if (!isFinite(v)) { pen = false; continue; }
        if (pen) g.lineTo(X(i), Y(v)); else g.moveTo(X(i), Y(v));
        pen = true;
      }
      g.stroke();
      var cx = Math.round(X(state.frame)) + 0.5;
      g.strokeStyle = "#dc2626";
      g.lineWidth = 1;
      g.beginPath(); g.moveTo(cx, 0); g.lineTo(cx, h); g.stroke();
      var cur = vals[state.frame];
      if (isFinite(cur)) { g.fillStyle = "#dc2626"; g.beginPath(); g.arc(cx, Y(cur), 2.5, 0, 2 * Math.PI); g.fill(); }
      s.value.textContent = fmt(cur) + (s.m.unit ? " " + s.m.unit : "");
      s.value.title = "min " + fmt(s.lo) + ", max " + fmt(s.hi);
    });
  }

  // events
  function updateEvents() {
    var ul = $("events");
    if (!events.length) { $("events-section").style.display = "none"; return; }
    ul.textContent = "";
    var step = frameCount ? frames[state.frame].step : 0;
    var lo = 0, hi = events.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (events[mid].step <= step) lo = mid + 1; else hi = mid; }
    var shown = events.slice(Math.max(0, lo - 8), lo).reverse();
    if (!shown.length) {
      var li0 = document.createElement("li");
      li0.className = "none";
      li0.textContent = events.length + " events later in the run";
      ul.appendChild(li0);
    }
    shown.forEach(function (e) {
      var li = document.createElement("li");
      var t = document.createElement("span");
      t.className = "t"; t.textContent = (e.step * dt).toFixed(2) + " s";
      var what = document.createElement("span");
      what.textContent = e.kind + (e.agent === null || e.agent === undefined ? "" : " · agent " + e.agent);
      li.appendChild(t); li.appendChild(what);
      li.addEventListener("click", function () {
        if (e.agent !== null && e.agent !== undefined && e.agent < n) { state.selected = e.agent; }
        seekFrame(frameAtStep(e.step));
      });
      ul.appendChild(li);
    });
  }
  function drawTicks() {
    var g = ticks.getContext("2d"), w = ticks.width, h = ticks.height;
    g.clearRect(0, 0, w, h);
    if (!events.length || frameCount < 2) return;
    var first = frames[0].step, last = frames[frameCount - 1].step;
    g.fillStyle = "rgba(220,38,38,0.55)";
    var thumb = 8 * dpr; // the range input's track is inset by about half its thumb
    events.forEach(function (e) {
      var x = thumb + (e.step - first) / Math.max(1, last - first) * (w - 2 * thumb);
      g.fillRect(Math.round(x), 0, Math.max(1, dpr), h);
    });
  }

