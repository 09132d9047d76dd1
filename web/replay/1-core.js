// steerkit replay player, part 1 of 7: the recording, the state, the view and time, links to a moment, drawing helpers.
// The parts are one script, joined in order into replay.html (steerkit_scenario::recording::PLAYER).
(function () {
  "use strict";

  // ---------- constants ----------
  var SPEEDS = [0.25, 0.5, 1, 2, 4, 8];
  var OVERLAY_AGENT_LIMIT = 250;   // per-agent overlays when at most this many agents are in view
  var OUTLINE_AGENT_LIMIT = 1500;  // outline bodies when at most this many are in view
  var MIN_BODY_PX = 2;             // a body's radius on screen, at least (CSS px)
  var MARK_BODY_PX = 3;            // heading marks on bodies at least this big
  var TRAIL_SECONDS = 4;
  var TRAIL_POINTS = 40000;       // trail vertices drawn per frame, at most (about)
  var VELOCITY_SECONDS = 0.5;      // a velocity arrow shows where the agent is in 0.5 s
  var STEERING_SCALE = 0.15;       // a steering arrow is 0.15 s² × acceleration long
  var COLORS = {
    background: "#f7f8fa", world: "#ffffff", grid: "#eef0f4", gridMajor: "#e2e6ec", bounds: "#c5cad3",
    obstacleFill: "#dfe3ea", obstacleStroke: "#8a94a6", wall: "#3b4350",
    path: "#14a098", velocity: "#2563eb", steering: "#dc2626", wander: "#9333ea",
    ray: "#ea7a0c", hit: "#d0021b", box: "#0891b2", neighbour: "#7a8599", slot: "#b8860b",
    select: "#111827", navmesh: "#5aa9e6", route: "#2f7d32"
  };
  var LAYERS = [
    { id: "darts", label: "Bodies as darts", on: false, body: true },
    { id: "trails", label: "Trails", key: "#9aa3b2", on: true },
    { id: "velocity", label: "Velocity", key: COLORS.velocity, on: true },
    { id: "steering", label: "Steering", key: COLORS.steering, on: true, data: "steering" },
    { id: "wander", label: "Wander circles", key: COLORS.wander, on: true, data: "wander" },
    { id: "rays", label: "Feelers / rays", key: COLORS.ray, on: true, data: "rays" },
    { id: "boxes", label: "Detection boxes", key: COLORS.box, on: true, data: "boxes", dash: true },
    { id: "neighbour", label: "Neighbour radius", key: COLORS.neighbour, on: false, data: "neighbour_radius", dash: true },
    { id: "paths", label: "Paths & targets", key: COLORS.path, on: true, data: "target", dash: true },
    { id: "slots", label: "Formation slots", key: COLORS.slot, on: true, data: "slots" },
    { id: "navmesh", label: "Navigation mesh", key: COLORS.navmesh, on: false, data: "navmesh" },
    { id: "routes", label: "Navigation routes", key: COLORS.route, on: true, data: "routes", dash: true }
  ];

  // ---------- elements ----------
  function $(id) { return document.getElementById(id); }
  var canvas = $("view"), ctx = canvas.getContext("2d");
  var stage = $("stage"), scrub = $("scrub"), readout = $("readout"), speedSel = $("speed");
  var ticks = $("ticks");

  function showMessage(text) {
    var m = $("message");
    m.textContent = text;
    m.style.display = "block";
  }

  // ---------- data ----------
  var rec;
  try {
    rec = JSON.parse($("recording").textContent);
  } catch (e) {
    showMessage("This replay holds no readable recording (" + e.message + ").");
    return;
  }
  if (!rec || rec.format !== "steerkit-replay" || rec.version !== 1) {
    showMessage("Unsupported recording: expected steerkit-replay version 1.");
    return;
  }

  // Everything derived from a recording; ingest() sets it (again when a live page loads one).
  var meta, world, groups, dims, n, agentGroup, dt, frames, frameCount, metrics, events, present;
  var volume, spheres, cuboids, bounds, wrapJump, worldExtent;
  var groupFill, groupStroke, groupCounts, groupVisible, groupAgents;
  var interp, waypointRank, turrets, shots, inView, show;

  function toF32(a) {
    var out = new Float32Array(a ? a.length : 0);
    for (var i = 0; i < out.length; i++) out[i] = a[i] === null ? NaN : a[i];
    return out;
  }
  // Agent data in the drawing plane: x, y per agent (3D: x, −z).
  function planarOf(src) {
    if (dims === 2) return src;
    var out = new Float32Array((src.length / 3) * 2);
    for (var i = 0, j = 0; i < src.length; i += 3, j += 2) { out[j] = src[i]; out[j + 1] = -src[i + 2]; }
    return out;
  }
  function planar(a) { return planarOf(toF32(a)); }
  // A layer's arrays; in 3D the points and vectors are also kept whole, as `<name>3`.
  function layer(o, name, fields) {
    var l = o && o[name];
    if (!l || !l.agent || !l.agent.length) return null;
    var out = { agent: Uint32Array.from(l.agent) };
    for (var k = 0; k < fields.length; k++) {
      var f = fields[k], raw = toF32(l[f[0]]);
      out[f[0]] = f[1] ? planarOf(raw) : raw;
      if (f[1] && dims === 3) out[f[0] + "3"] = raw;
    }
    return out;
  }
  function convertFrame(f) {
    var o = f.overlays || {};
    var pos3 = dims === 3 ? toF32(f.position) : null, vel3 = dims === 3 ? toF32(f.velocity) : null;
    return {
      step: f.step,
      pos: pos3 ? planarOf(pos3) : planar(f.position),
      vel: vel3 ? planarOf(vel3) : planar(f.velocity),
      pos3: pos3,
      vel3: vel3,
      // body orientations (unit quaternions x, y, z, w), when the 3D recording has them
      att: dims === 3 && f.attitude && f.attitude.length === 4 * n ? toF32(f.attitude) : null,
      ori: toF32(f.orientation),
      steering: layer(o, "steering", [["vector", true]]),
      target: layer(o, "target", [["point", true]]),
      wander: layer(o, "wander", [["center", true], ["radius", false], ["target", true]]),
      rays: layer(o, "rays", [["from", true], ["to", true], ["hit", false]]),
      boxes: layer(o, "boxes", [["corners", true]]),
      neighbour_radius: layer(o, "neighbour_radius", [["radius", false]]),
      slots: layer(o, "slots", [["point", true]]),
      routes: layer(o, "routes", [["count", false], ["point", true]]),
      controls: controlsOf(o.controls)
    };
  }
  // a vehicle's controls by agent (3 values each, NaN where the frame has none)
  function controlsOf(l) {
    if (!l || !l.agent || !l.agent.length) return null;
    var out = new Float32Array(3 * n).fill(NaN), v = toF32(l.value);
    for (var i = 0; i < l.agent.length; i++) {
      var k = l.agent[i];
      if (k < n) { out[3 * k] = v[3 * i]; out[3 * k + 1] = v[3 * i + 1]; out[3 * k + 2] = v[3 * i + 2]; }
    }
    return out;
  }
  var CONTROL_NAMES = {
    car: ["throttle", "steer"], motorbike: ["throttle", "steer"], tank: ["left track", "right track"],
    human: ["forward", "strafe", "turn"], discrete_car: ["pedal", "turn"], ship: ["thrust", "turn"]
  };
  function notePresent(f) {
    ["steering", "target", "wander", "rays", "boxes", "neighbour_radius", "slots", "routes"].forEach(function (k) { if (f[k]) present[k] = true; });
  }
  // a 3D path point [x, y, z] is drawn at (x, −z) from above
  function pathY(q) { return q.length >= 3 ? -q[2] : q[1]; }

  function extent() {
    if (bounds) return bounds;
    var e = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
    function add(x, y) {
      if (!isFinite(x) || !isFinite(y)) return;
      if (x < e.x0) e.x0 = x; if (x > e.x1) e.x1 = x;
      if (y < e.y0) e.y0 = y; if (y > e.y1) e.y1 = y;
    }
    (world.circles || []).forEach(function (c) { add(c.center[0] - c.radius, c.center[1] - c.radius); add(c.center[0] + c.radius, c.center[1] + c.radius); });
    (world.polygons || []).forEach(function (p) { p.points.forEach(function (q) { add(q[0], q[1]); }); });
    (world.paths || []).forEach(function (p) { p.points.forEach(function (q) { add(q[0], pathY(q)); }); });
    spheres.forEach(function (c) { add(c.center[0] - c.radius, -c.center[2] - c.radius); add(c.center[0] + c.radius, -c.center[2] + c.radius); });
    cuboids.forEach(function (b) { add(b.min[0], -b.max[2]); add(b.max[0], -b.min[2]); });
    (world.boxes || []).forEach(function (b) { add(b.min[0], b.min[1]); add(b.max[0], b.max[1]); });
    (world.walls || []).forEach(function (w) { add(w.a[0], w.a[1]); add(w.b[0], w.b[1]); });
    var stride = Math.max(1, Math.floor(frameCount / 200));
    for (var fi = 0; fi < frameCount; fi += stride) {
      var p = frames[fi].pos;
      for (var i = 0; i < n; i++) add(p[2 * i], p[2 * i + 1]);
    }
    if (e.x0 > e.x1) return { x0: -10, y0: -10, x1: 10, y1: 10 };
    var pad = 1 + 0.03 * Math.max(e.x1 - e.x0, e.y1 - e.y0);
    return { x0: e.x0 - pad, y0: e.y0 - pad, x1: e.x1 + pad, y1: e.y1 + pad };
  }

  // ---------- colours ----------
  function parseHex(c) {
    var h = (c || "#888888").replace("#", "");
    if (h.length === 3) h = h[0] + h[0] + h[1] + h[1] + h[2] + h[2];
    var v = parseInt(h, 16);
    return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
  }
  function shade(c, k) {
    var rgb = parseHex(c);
    return "rgb(" + rgb.map(function (x) { return Math.round(k < 1 ? x * k : x + (255 - x) * (k - 1)); }).join(",") + ")";
  }

  // ---------- the recording ----------
  // Sets everything derived from a recording: the replay's own at start, and each one a live
  // page loads (steerkit serve pushes its world, groups and frames through steerkitReplay).
  function ingest(r) {
    rec = r;
    meta = rec.meta; world = rec.world || {}; groups = rec.groups || [];
    dims = meta.dims === 3 ? 3 : 2;
    n = rec.agent_groups.length;
    agentGroup = Uint16Array.from(rec.agent_groups);
    dt = meta.dt;
    frames = rec.frames.map(convertFrame);
    frameCount = frames.length;
    metrics = (rec.metrics || []).map(function (m) { return { name: m.name, unit: m.unit || "", values: toF32(m.values) }; });
    events = (rec.events || []).slice().sort(function (a, b) { return a.step - b.step; });
    present = {};
    frames.forEach(notePresent);
    if (world.paths && world.paths.length) present.target = true;
    if (world.navmesh && world.navmesh.length) present.navmesh = true;
    // 3D shapes (3D recordings only)
    volume = dims === 3 && world.volume ? world.volume : null;
    spheres = dims === 3 ? world.spheres || [] : []; cuboids = dims === 3 ? world.cuboids || [] : [];
    bounds = world.bounds ? { x0: world.bounds.min[0], y0: world.bounds.min[1], x1: world.bounds.max[0], y1: world.bounds.max[1] }
      : volume ? { x0: volume.min[0], y0: -volume.max[2], x1: volume.max[0], y1: -volume.min[2] } : null;
    wrapJump = bounds && world.wrap ? { x: (bounds.x1 - bounds.x0) / 2, y: (bounds.y1 - bounds.y0) / 2 } : null;
    worldExtent = extent();
    groupFill = groups.map(function (g) { return g.colour; });
    groupStroke = groups.map(function (g) { return shade(g.colour, 0.6); });
    groupCounts = groups.map(function () { return 0; });
    for (var ai = 0; ai < n; ai++) if (agentGroup[ai] < groupCounts.length) groupCounts[agentGroup[ai]]++;
    groupVisible = groups.map(function () { return true; });
    var members = groups.map(function () { return []; });
    for (ai = 0; ai < n; ai++) if (agentGroup[ai] < groups.length) members[agentGroup[ai]].push(ai);
    groupAgents = members.map(function (a) { return Uint32Array.from(a); });
    interp = { pos: new Float32Array(2 * n), ori: new Float32Array(n) };
    waypointRank = rankWaypoints();
    turrets = world.turrets || []; shots = rec.shots || [];
    inView = new Uint8Array(n); show = new Uint8Array(n);
  }
  ingest(rec);

  // ---------- state ----------
  var state = {
    playing: false, speed: 1, step: frames.length ? frames[0].step : 0, frame: 0,
    cx: 0, cy: 0, scale: 10, follow: false, selected: -1,
    layers: {}, overlaysShown: 0, overlaysHidden: false
  };
  LAYERS.forEach(function (l) { state.layers[l.id] = l.on; });
  var cssW = 1, cssH = 1, dpr = 1;

  // ---------- view ----------
  function sx(x) { return cssW / 2 + (x - state.cx) * state.scale; }
  function sy(y) { return cssH / 2 - (y - state.cy) * state.scale; }
  function wx(px) { return state.cx + (px - cssW / 2) / state.scale; }
  function wy(py) { return state.cy - (py - cssH / 2) / state.scale; }
  function fit() {
    var e = worldExtent, w = Math.max(e.x1 - e.x0, 1e-3), h = Math.max(e.y1 - e.y0, 1e-3);
    state.cx = (e.x0 + e.x1) / 2;
    state.cy = (e.y0 + e.y1) / 2;
    state.scale = Math.min((cssW - 48) / w, (cssH - 48) / h);
    if (!(state.scale > 0)) state.scale = 10;
    state.follow = false;
    requestDraw();
  }
  function zoomAt(px, py, factor) {
    var x = wx(px), y = wy(py);
    state.scale = Math.min(Math.max(state.scale * factor, 1e-3), 1e5);
    state.cx = x - (px - cssW / 2) / state.scale;
    state.cy = y + (py - cssH / 2) / state.scale;
    requestDraw();
  }
  function resize() {
    var r = stage.getBoundingClientRect();
    dpr = window.devicePixelRatio || 1;
    cssW = Math.max(1, r.width);
    cssH = Math.max(1, r.height);
    canvas.width = Math.round(cssW * dpr);
    canvas.height = Math.round(cssH * dpr);
    var t = ticks.getBoundingClientRect();
    ticks.width = Math.max(1, Math.round(t.width * dpr));
    ticks.height = Math.max(1, Math.round(t.height * dpr));
    drawTicks();
    drawSparklines();
    requestDraw();
  }

  // ---------- time ----------
  function frameAtStep(step) {
    var lo = 0, hi = frameCount - 1;
    if (hi < 0) return 0;
    if (step <= frames[0].step) return 0;
    if (step >= frames[hi].step) return hi;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (frames[mid].step <= step) lo = mid; else hi = mid - 1;
    }
    return lo;
  }
  // The recorded frame nearest a time (s).
  function frameAtTime(t) {
    var step = t / dt, i = frameAtStep(step);
    if (i + 1 < frameCount && Math.abs(frames[i + 1].step - step) < Math.abs(step - frames[i].step)) i++;
    return i;
  }
  function seekFrame(i) {
    if (!frameCount) return;
    i = Math.max(0, Math.min(frameCount - 1, i | 0));
    state.frame = i;
    state.step = frames[i].step;
    frameChanged();
    if (!state.playing) noteMoment();
  }
  // `quiet`: not the viewer's doing (the end of the recording, opening the page), so the address
  // is left alone.
  function setPlaying(p, quiet) {
    if (p && state.frame >= frameCount - 1) seekFrame(0);
    var was = state.playing;
    state.playing = p && frameCount > 1;
    $("icon-play").style.display = state.playing ? "none" : "";
    $("icon-pause").style.display = state.playing ? "" : "none";
    $("play").setAttribute("aria-label", state.playing ? "Pause" : "Play");
    lastTime = null;
    // pausing stops on the recorded frame nearest the moment shown, the one a link names
    if (was && !state.playing && !quiet) seekFrame(frameAtStep(state.step + 0.5 * (frames[Math.min(state.frame + 1, frameCount - 1)].step - frames[state.frame].step)));
    if (!quiet) noteMoment();
    requestDraw();
  }

  // ---------- links to a moment ----------
  // The address' fragment names a moment: `#t=12.5` (seconds, the nearest recorded frame) or
  // `#f=120` (the frame as the readout counts, from 1), `&paused` to open paused there. Pausing,
  // scrubbing and stepping write `#t=…&paused` (history.replaceState, no reload, no new history
  // entry; a quarter of a second after the last change, so a drag of the slider writes once);
  // playing clears it. Anything unreadable is ignored.
  var FRAGMENT_DELAY_MS = 250;
  var fragmentTimer = null, fragmentBooting = true, fragmentWritten = null;
  function readFragment(hash) {
    var text = String(hash || "").replace(/^#/, "");
    if (!text || !frameCount) return null;
    var out = { frame: -1, paused: false };
    text.split("&").forEach(function (part) {
      var eq = part.indexOf("="), key = eq < 0 ? part : part.slice(0, eq), value = eq < 0 ? "" : part.slice(eq + 1);
      if (key === "paused" && eq < 0) out.paused = true;
      else if (key === "t" && /^\d+(\.\d*)?$|^\.\d+$/.test(value)) out.frame = frameAtTime(Number(value));
      else if (key === "f" && /^\d{1,9}$/.test(value) && +value >= 1) out.frame = Math.min(+value, frameCount) - 1;
    });
    return out.frame >= 0 || out.paused ? out : null;
  }
  function timeText(i) {
    var digits = Math.max(2, Math.min(6, Math.ceil(-Math.log10(dt)) + 1));
    return String(parseFloat((frames[i].step * dt).toFixed(digits)));
  }
  function momentFragment() { return state.playing || !frameCount ? "" : "#t=" + timeText(state.frame) + "&paused"; }
  function noteMoment() {
    if (fragmentBooting) return;
    if (fragmentTimer !== null) clearTimeout(fragmentTimer);
    fragmentTimer = setTimeout(writeFragment, FRAGMENT_DELAY_MS);
  }
  function writeFragment() {
    fragmentTimer = null;
    var want = momentFragment();
    if (want === (location.hash === "#" ? "" : location.hash)) return;
    fragmentWritten = want;
    var url = location.href.split("#")[0] + want;
    try { history.replaceState(history.state, "", url); } catch (e) { fragmentWritten = null; }
  }
  // Opens the moment a fragment names (the page's own or one typed into the address bar).
  function applyFragment(hash, opening) {
    var m = readFragment(hash), booting = fragmentBooting;
    fragmentBooting = true;   // the address already says it
    var reduced = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    if (m && m.frame >= 0) seekFrame(m.frame);
    var play = opening ? !(m && m.paused) && !reduced : !(m && m.paused);
    if (play && state.frame >= frameCount - 1) play = false;   // opened at the end: nothing to play
    if (opening || m) setPlaying(play, true);
    fragmentBooting = booting;
  }
  function setSpeed(s) {
    state.speed = s;
    speedSel.value = String(s);
  }
  var lastTime = null;
  function advance(now) {
    if (!state.playing) return;
    if (lastTime !== null) {
      var elapsed = Math.min((now - lastTime) / 1000, 0.25);
      state.step += elapsed * state.speed / dt;
      var last = frames[frameCount - 1].step;
      if (state.step >= last) { state.step = last; setPlaying(false, true); }
      var f = frameAtStep(state.step);
      if (f !== state.frame) { state.frame = f; frameChanged(true); }
    }
    lastTime = now;
  }

  // ---------- drawing helpers ----------
  function line(x0, y0, x1, y1) { ctx.moveTo(sx(x0), sy(y0)); ctx.lineTo(sx(x1), sy(y1)); }
  function circle(x, y, r) { var X = sx(x), Y = sy(y); ctx.moveTo(X + r * state.scale, Y); ctx.arc(X, Y, r * state.scale, 0, Math.PI * 2); }
  function arrow(x, y, dx, dy) { arrowPx(sx(x), sy(y), sx(x + dx), sy(y + dy)); }
  // An arrow between two canvas points (CSS px), its head a few pixels long.
  function arrowPx(X0, Y0, X1, Y1) {
    var len = Math.hypot(X1 - X0, Y1 - Y0);
    if (!(len > 0.5)) return;
    ctx.moveTo(X0, Y0); ctx.lineTo(X1, Y1);
    var h = Math.min(7, len * 0.4), ux = (X1 - X0) / len, uy = (Y1 - Y0) / len;
    ctx.moveTo(X1 - h * ux + h * 0.5 * uy, Y1 - h * uy - h * 0.5 * ux);
    ctx.lineTo(X1, Y1);
    ctx.lineTo(X1 - h * ux - h * 0.5 * uy, Y1 - h * uy + h * 0.5 * ux);
  }
  function niceStep(px) {
    var raw = px / state.scale, p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;
    return (m < 2 ? 2 : m < 5 ? 5 : 10) * p;
  }

  // Positions at the current (fractional) step: interpolated between recorded frames.
  function agentState() {
    var i = state.frame, a = frames[i];
    var b = frames[Math.min(i + 1, frameCount - 1)];
    var t = b.step > a.step ? Math.min(Math.max((state.step - a.step) / (b.step - a.step), 0), 1) : 0;
    var P = interp.pos, O = interp.ori;
    for (var k = 0; k < n; k++) {
      var ax = a.pos[2 * k], ay = a.pos[2 * k + 1], bx = b.pos[2 * k], by = b.pos[2 * k + 1];
      var dx = bx - ax, dy = by - ay;
      var jump = !(isFinite(bx) && isFinite(by)) || (wrapJump && (Math.abs(dx) > wrapJump.x || Math.abs(dy) > wrapJump.y));
      if (jump || t === 0) { P[2 * k] = ax; P[2 * k + 1] = ay; O[k] = a.ori[k]; continue; }
      P[2 * k] = ax + dx * t; P[2 * k + 1] = ay + dy * t;
      var d = b.ori[k] - a.ori[k];
      d -= Math.round(d / (2 * Math.PI)) * 2 * Math.PI;
      O[k] = a.ori[k] + d * t;
    }
    return interp;
  }

