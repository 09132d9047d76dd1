// steerkit replay player, part 7 of 7: pointer and keys, start, and the page's API (window.steerkitReplay).
// The parts are one script, joined in order into replay.html (steerkit_scenario::recording::PLAYER).
  // ---------- input ----------
  var drag = null;
  // A live page's pointer handlers (steerkit serve): `down(px, py, ev)` returns true when it
  // takes the drag (a target, an obstacle), then gets `move(px, py)` and `up(px, py)`; `pick(k)`
  // hears each selection. Empty in a replay.
  var liveHooks = {};
  function in3d() { return view3 !== null && view3.on; }
  function canvasPoint(ev) { var r = canvas.getBoundingClientRect(); return [ev.clientX - r.left, ev.clientY - r.top]; }
  canvas.addEventListener("pointerdown", function (ev) {
    canvas.setPointerCapture(ev.pointerId);
    var at = canvasPoint(ev);
    if (liveHooks.down && ev.button === 0 && liveHooks.down(at[0], at[1], ev)) { drag = { live: true }; return; }
    drag = { x: ev.clientX, y: ev.clientY, cx: state.cx, cy: state.cy, moved: false };
    if (in3d()) {
      // left drag orbits; Shift, the right or the middle button pans
      drag.pan = ev.shiftKey || ev.button === 1 || ev.button === 2;
      drag.button = ev.button;
      drag.from = { yaw: view3.yaw, pitch: view3.pitch, tx: view3.tx, ty: view3.ty, tz: view3.tz };
      if (ev.button === 1) ev.preventDefault();
    }
  });
  canvas.addEventListener("contextmenu", function (ev) { if (in3d()) ev.preventDefault(); });
  canvas.addEventListener("pointermove", function (ev) {
    if (!drag) return;
    if (drag.live) { var at = canvasPoint(ev); liveHooks.move(at[0], at[1]); return; }
    var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (drag.from && in3d()) {
      if (!drag.moved && Math.hypot(dx, dy) > 4) { drag.moved = true; canvas.classList.add("dragging"); }
      if (drag.moved) { if (drag.pan) pan3(dx, dy, drag.from); else orbit3(dx, dy, drag.from); }
      return;
    }
    if (!drag.moved && Math.hypot(dx, dy) > 4) { drag.moved = true; canvas.classList.add("dragging"); state.follow = false; }
    if (drag.moved) {
      state.cx = drag.cx - dx / state.scale;
      state.cy = drag.cy + dy / state.scale;
      requestDraw();
    }
  });
  canvas.addEventListener("pointerup", function (ev) {
    if (drag && drag.live) { var at = canvasPoint(ev); drag = null; liveHooks.up(at[0], at[1]); return; }
    if (drag && !drag.moved && !(drag.from && drag.button !== 0)) {
      var r = canvas.getBoundingClientRect();
      pick(ev.clientX - r.left, ev.clientY - r.top);
    }
    drag = null;
    canvas.classList.remove("dragging");
  });
  canvas.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    var r = canvas.getBoundingClientRect();
    var d = ev.deltaMode === 1 ? ev.deltaY * 16 : ev.deltaY;
    if (in3d()) { zoom3(ev.clientX - r.left, ev.clientY - r.top, Math.exp(d * 0.0015)); return; }
    zoomAt(ev.clientX - r.left, ev.clientY - r.top, Math.exp(-d * 0.0015));
  }, { passive: false });
  function pick(px, py) {
    if (!frameCount) return;
    var s = agentState(), best = -1, bestD = Infinity;
    for (var k = 0; k < n; k++) {
      if (!groupVisible[agentGroup[k]]) continue;
      var dx = sx(s.pos[2 * k]) - px, dy = sy(s.pos[2 * k + 1]) - py, d = dx * dx + dy * dy;
      var reach = Math.max(10, ((groups[agentGroup[k]] || {}).radius || 0) * state.scale * 1.5);
      if (d < bestD && d <= reach * reach) { bestD = d; best = k; }
    }
    if (in3d()) best = pick3(px, py);   // nearest on screen in the 3D view
    state.selected = best;
    if (best < 0) state.follow = false;
    updateSelected();
    requestDraw();
    if (liveHooks.pick) liveHooks.pick(best);
  }
  $("play").addEventListener("click", function () { setPlaying(!state.playing); });
  scrub.addEventListener("input", function () { setPlaying(false); seekFrame(+scrub.value); });
  speedSel.addEventListener("change", function () { setSpeed(+speedSel.value); });
  $("fit").addEventListener("click", fit);
  $("zoomin").addEventListener("click", function () { if (in3d()) zoom3(cssW / 2, cssH / 2, 1 / 1.4); else zoomAt(cssW / 2, cssH / 2, 1.4); });
  $("zoomout").addEventListener("click", function () { if (in3d()) zoom3(cssW / 2, cssH / 2, 1.4); else zoomAt(cssW / 2, cssH / 2, 1 / 1.4); });
  $("reset3d").addEventListener("click", function () { resetView3(); });
  $("view3d").addEventListener("click", function () { setView3(!view3.on); });
  document.addEventListener("keydown", function (ev) {
    var tag = (ev.target && ev.target.tagName) || "";
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    switch (ev.key) {
      case " ":
        if (tag === "SELECT") return;
        ev.preventDefault();
        setPlaying(!state.playing);
        break;
      case "ArrowRight": case "ArrowLeft":
        // the slider and the speed list move themselves
        if (ev.target === scrub || tag === "SELECT") return;
        ev.preventDefault();
        setPlaying(false);
        seekFrame(state.frame + (ev.key === "ArrowRight" ? 1 : -1) * (ev.shiftKey ? 10 : 1));
        break;
      case "Home": setPlaying(false); seekFrame(0); break;
      case "End": setPlaying(false); seekFrame(frameCount - 1); break;
      case "]": case "+": case "=": setSpeed(SPEEDS[Math.min(SPEEDS.indexOf(state.speed) + 1, SPEEDS.length - 1)]); break;
      case "[": case "-": setSpeed(SPEEDS[Math.max(SPEEDS.indexOf(state.speed) - 1, 0)]); break;
      case "f": case "F": if (in3d()) resetView3(); else fit(); break;
      case "v": case "V": if (!view3) return; setView3(!view3.on); break;
      case "t": case "T": case "b": case "B":
        var id = ev.key === "t" || ev.key === "T" ? "trails" : "darts";
        state.layers[id] = !state.layers[id];
        $("layer-" + id).checked = state.layers[id];
        requestDraw();
        break;
      case "Escape": state.selected = -1; state.follow = false; updateSelected(); requestDraw(); break;
      default: return;
    }
  });
  window.addEventListener("resize", resize);
  // the stage also changes size without the window (a live page's toolbar wrapping onto a second
  // line): the canvas follows, so that it is never drawn stretched
  if (window.ResizeObserver) {
    var stageSize = [0, 0];
    new ResizeObserver(function () {
      var r = stage.getBoundingClientRect();
      if (r.width === stageSize[0] && r.height === stageSize[1]) return;
      stageSize = [r.width, r.height];
      resize();
    }).observe(stage);
  }

  // ---------- start ----------
  scrub.max = Math.max(0, frameCount - 1);
  buildHeader();
  buildLegend();
  buildLayers();
  buildMetrics();
  resize();
  fit();
  if (view3) {
    setup3();
    $("view3d").style.display = "";
    $("help3d").style.display = "";
    setView3(true);
  }
  seekFrame(0);
  applyFragment(location.hash, true);
  fragmentBooting = false;
  window.addEventListener("hashchange", function () {
    if (location.hash === fragmentWritten) return;
    applyFragment(location.hash, false);
  });

  // A small read-only handle for scripts and tests.
  window.steerkitReplay = {
    get frame() { return state.frame; },
    get frameCount() { return frameCount; },
    get playing() { return state.playing; },
    get speed() { return state.speed; },
    // the moment shown (s): the readout's t
    get time() { return frameCount ? Math.max(state.step, frames[state.frame].step) * dt : 0; },
    get scale() { return state.scale; },
    get selected() { return state.selected; },
    get overlaysHidden() { return state.overlaysHidden; },
    layers: function () { return Object.assign({}, state.layers); },
    // where agent k is drawn now, in CSS pixels from the canvas' top-left corner
    screenPosition: function (k) {
      if (!frameCount) return null;
      if (in3d()) {
        var p = agentState3().pos;
        camera3();
        return proj(p[3 * k], p[3 * k + 1], p[3 * k + 2]) ? { x: PX, y: PY } : null;
      }
      var s = agentState();
      return { x: sx(s.pos[2 * k]), y: sy(s.pos[2 * k + 1]) };
    },
    // "2d" for a 2D recording; "3d" or "top" for a 3D one
    get view() { return view3 ? (view3.on ? "3d" : "top") : "2d"; },
    // the 3D camera (null for a 2D recording): yaw and pitch (rad), distance to its target (m)
    camera: function () { return view3 ? { yaw: view3.yaw, pitch: view3.pitch, distance: view3.dist, target: [view3.tx, view3.ty, view3.tz] } : null; },
    get dims() { return dims; },
    get agentCount() { return n; },
    // ---- live pages (steerkit serve): the same renderer fed by a socket ----
    hooks: liveHooks,
    // Replaces the recording (a live page's world, groups and first frame); `keepView` keeps
    // the zoom and centre (an edit of the same scenario).
    load: function (r, keepView) {
      var was = view3;
      ingest(r);
      if (state.selected >= n) state.selected = -1;
      scrub.max = Math.max(0, frameCount - 1);
      buildHeader(); buildLegend(); buildLayers(); buildMetrics();
      if (!keepView) fit();
      // a 3D world gets the 3D view (its arrays sized for this crowd); an edit keeps the camera
      makeView3();
      if (view3) {
        setup3();
        if (keepView && was) {
          ["on", "yaw", "pitch", "dist", "tx", "ty", "tz"].forEach(function (k) { view3[k] = was[k]; });
        }
      }
      $("view3d").style.display = view3 ? "" : "none";
      $("help3d").style.display = view3 ? "" : "none";
      if (view3) setView3(view3.on);
      else { $("reset3d").style.display = "none"; $("fit").style.display = ""; canvas.setAttribute("aria-label", "Simulation view"); }
      seekFrame(frameCount - 1);
      requestDraw();
    },
    // Appends a frame (the recording's per-frame shape) and shows it; keeps the last `keep`.
    push: function (f, keep) {
      var g = convertFrame(f), known = Object.keys(present).length;
      notePresent(g);
      if (Object.keys(present).length !== known) buildLayers();   // a layer got data
      frames.push(g);
      if (keep && frames.length > keep) frames.splice(0, frames.length - keep);
      frameCount = frames.length;
      scrub.max = Math.max(0, frameCount - 1);
      state.frame = frameCount - 1;
      state.step = g.step;
      frameChanged();
    },
    // Replaces the shots drawn (the recording's `shots` shape): a live page's shots in the air
    // and those just ended, sent with each frame of a world with turrets.
    setShots: function (list) { shots = list || []; requestDraw(); },
    // canvas CSS pixels ↔ world metres (the top view's transform)
    toWorld: function (px, py) { return { x: wx(px), y: wy(py) }; },
    toScreen: function (x, y) { return { x: sx(x), y: sy(y) }; },
    // 3D worlds (y up): where a point is drawn (CSS px) in the view shown, null when behind
    // the camera; and the point under the pointer on the horizontal plane at height h (the
    // top view: x and z under the pointer; in perspective, the pointer's ray meets the
    // plane), null when the ray misses it
    toScreen3: function (x, y, z) {
      if (!view3) return null;
      if (!view3.on) return { x: sx(x), y: sy(-z) };
      camera3();
      return proj(x, y, z) ? { x: PX, y: PY } : null;
    },
    toWorld3: function (px, py, h) {
      if (!view3) return null;
      if (!view3.on) return { x: wx(px), y: h, z: -wy(py) };
      var v = view3;
      camera3();
      var a = (px - cssW / 2) / v.F, b = -(py - cssH / 2) / v.F;
      var dx = v.fx + a * v.rx + b * v.ux, dy = v.fy + a * v.ry + b * v.uy, dz = v.fz + a * v.rz + b * v.uz;
      if (Math.abs(dy) < 1e-9) return null;
      var t = (h - v.ey) / dy;
      if (!(t > 0) || t > 1e6) return null;
      return { x: v.ex + t * dx, y: h, z: v.ez + t * dz };
    },
    select: function (k) { state.selected = k; updateSelected(); requestDraw(); },
    redraw: function () { requestDraw(); }
  };
})();
