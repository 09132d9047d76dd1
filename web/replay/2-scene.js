// steerkit replay player, part 2 of 7: the scene from above: the world, trails, overlays, vectors, bodies.
// The parts are one script, joined in order into replay.html (steerkit_scenario::recording::PLAYER).
  // ---------- the scene ----------
  function drawGrid() {
    var e = worldExtent;
    var step = niceStep(50), major = step * 5;
    var x0 = Math.max(wx(0), e.x0), x1 = Math.min(wx(cssW), e.x1);
    var y0 = Math.max(wy(cssH), e.y0), y1 = Math.min(wy(0), e.y1);
    if (x0 >= x1 || y0 >= y1) return;
    ctx.lineWidth = 1;
    [[step, COLORS.grid], [major, COLORS.gridMajor]].forEach(function (g) {
      ctx.strokeStyle = g[1];
      ctx.beginPath();
      for (var x = Math.ceil(x0 / g[0]) * g[0]; x <= x1; x += g[0]) { var X = Math.round(sx(x)) + 0.5; ctx.moveTo(X, sy(y0)); ctx.lineTo(X, sy(y1)); }
      for (var y = Math.ceil(y0 / g[0]) * g[0]; y <= y1; y += g[0]) { var Y = Math.round(sy(y)) + 0.5; ctx.moveTo(sx(x0), Y); ctx.lineTo(sx(x1), Y); }
      ctx.stroke();
    });
  }
  // The navigation mesh: where a navigating body's centre may go, its convex polygons outlined.
  function drawNavmesh() {
    ctx.beginPath();
    world.navmesh.forEach(function (p) {
      p.points.forEach(function (q, i) { if (i) ctx.lineTo(sx(q[0]), sy(q[1])); else ctx.moveTo(sx(q[0]), sy(q[1])); });
      ctx.closePath();
    });
    ctx.fillStyle = COLORS.navmesh;
    ctx.globalAlpha = 0.12;
    ctx.fill();
    ctx.globalAlpha = 0.6;
    ctx.strokeStyle = COLORS.navmesh;
    ctx.lineWidth = 1;
    ctx.stroke();
    ctx.globalAlpha = 1;
  }
  function drawWorld() {
    var e = worldExtent;
    ctx.fillStyle = COLORS.world;
    ctx.fillRect(sx(e.x0), sy(e.y1), (e.x1 - e.x0) * state.scale, (e.y1 - e.y0) * state.scale);
    drawGrid();
    if (bounds) {
      ctx.strokeStyle = COLORS.bounds;
      ctx.lineWidth = 1.5;
      ctx.setLineDash(world.wrap ? [6, 4] : []);
      ctx.strokeRect(sx(bounds.x0), sy(bounds.y1), (bounds.x1 - bounds.x0) * state.scale, (bounds.y1 - bounds.y0) * state.scale);
      ctx.setLineDash([]);
    }
    if (state.layers.navmesh && world.navmesh) drawNavmesh();
    if (state.layers.paths && world.paths) {
      ctx.strokeStyle = COLORS.path;
      ctx.lineWidth = 2;
      ctx.globalAlpha = 0.75;
      ctx.setLineDash([8, 5]);
      ctx.beginPath();
      world.paths.forEach(function (p) {
        p.points.forEach(function (q, i) { if (i) ctx.lineTo(sx(q[0]), sy(pathY(q))); else ctx.moveTo(sx(q[0]), sy(pathY(q))); });
        if (p.looping && p.points.length > 2) ctx.closePath();
      });
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.globalAlpha = 1;
      ctx.fillStyle = COLORS.path;
      world.paths.forEach(function (p) {
        if (!p.points.length) return;
        var q = p.points[0];
        ctx.beginPath(); ctx.arc(sx(q[0]), sy(pathY(q)), 3.5, 0, 2 * Math.PI); ctx.fill();
      });
    }
    ctx.fillStyle = COLORS.obstacleFill;
    ctx.strokeStyle = COLORS.obstacleStroke;
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    (world.circles || []).forEach(function (c) { circle(c.center[0], c.center[1], c.radius); });
    (world.boxes || []).forEach(function (b) { ctx.rect(sx(b.min[0]), sy(b.max[1]), (b.max[0] - b.min[0]) * state.scale, (b.max[1] - b.min[1]) * state.scale); });
    spheres.forEach(function (c) { circle(c.center[0], -c.center[2], c.radius); });
    cuboids.forEach(function (b) { ctx.rect(sx(b.min[0]), sy(-b.min[2]), (b.max[0] - b.min[0]) * state.scale, (b.max[2] - b.min[2]) * state.scale); });
    (world.polygons || []).forEach(function (p) {
      p.points.forEach(function (q, i) { if (i) ctx.lineTo(sx(q[0]), sy(q[1])); else ctx.moveTo(sx(q[0]), sy(q[1])); });
      ctx.closePath();
    });
    ctx.fill();
    ctx.stroke();
    drawWaypoints();
    if (world.walls && world.walls.length) {
      ctx.strokeStyle = COLORS.wall;
      ctx.lineWidth = Math.max(3, Math.min(8, 0.15 * state.scale));
      ctx.lineCap = "round";
      ctx.beginPath();
      world.walls.forEach(function (w) { line(w.a[0], w.a[1], w.b[0], w.b[1]); });
      ctx.stroke();
      ctx.lineCap = "butt";
    }
  }

  // A race's waypoints: an orange ring until visited, then filled green with its visit number.
  function rankWaypoints() {
    var seen = (world.waypoints || []).map(function (w, i) { return [w.visited, i]; })
      .filter(function (v) { return v[0] !== null && v[0] !== undefined; })
      .sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
    var rank = {};
    seen.forEach(function (v, k) { rank[v[1]] = k + 1; });
    return rank;
  }
  function drawWaypoints() {
    var wps = world.waypoints || [];
    if (!wps.length) return;
    var now = frames[state.frame] ? frames[state.frame].step : 0;
    ctx.font = "11px " + getComputedStyle(document.body).fontFamily;
    ctx.textAlign = "center"; ctx.textBaseline = "middle";
    wps.forEach(function (w, i) {
      var done = w.visited !== null && w.visited !== undefined && w.visited <= now;
      var r = Math.max(w.radius * state.scale, 4);
      ctx.beginPath(); ctx.arc(sx(w.center[0]), sy(w.center[1]), r, 0, 2 * Math.PI);
      ctx.fillStyle = done ? "#009e73" : "rgba(230,159,0,0.15)"; ctx.fill();
      ctx.strokeStyle = done ? "#006b4f" : "#e69f00"; ctx.lineWidth = 2; ctx.stroke();
      if (done) { ctx.fillStyle = "#fff"; ctx.fillText(String(waypointRank[i]), sx(w.center[0]), sy(w.center[1])); }
    });
    ctx.textAlign = "start"; ctx.textBaseline = "alphabetic";
  }

  // Adds agent k's trail from frame `from` to frame `to` (both kept, every `stride`-th frame
  // between) to the current path; the pen lifts where the agent is missing and where it jumps
  // across a wrapping world's edge.
  function traceTrail(k, from, to, stride) {
    var pen = false, px = 0, py = 0;
    for (var f = from; f <= to; f = f === to ? f + 1 : Math.min(f + stride, to)) {
      var P = frames[f].pos, x = P[2 * k], y = P[2 * k + 1];
      if (!isFinite(x) || !isFinite(y)) { pen = false; continue; }
      if (pen && wrapJump && (Math.abs(x - px) > wrapJump.x || Math.abs(y - py) > wrapJump.y)) pen = false;
      if (pen) ctx.lineTo(sx(x), sy(y)); else ctx.moveTo(sx(x), sy(y));
      pen = true; px = x; py = y;
    }
  }

  // Each visible group's trails over the last TRAIL_SECONDS, in three bands fading with age
  // (`trace(k, from, to, stride)` draws agent k's; a vehicle's is coloured by speed instead),
  // thinned to about TRAIL_POINTS points in all; `look` is [line width, join, first band's
  // alpha, alpha step]. The top view's and the 3D view's trails.
  function bandedTrails(inView, visible, trace, look) {
    var span = Math.max(2, Math.round(TRAIL_SECONDS / (dt * (meta.every || 1))));
    var end = state.frame, start = Math.max(0, end - span);
    if (end - start < 1) return;
    // thin big crowds' trails to about TRAIL_POINTS points in all
    var stride = Math.max(1, Math.ceil(visible * (end - start) / TRAIL_POINTS));
    // three bands, fading with age; each band is one path per group
    var bands = 3, cut = [start];
    for (var b = 1; b < bands; b++) cut.push(start + Math.round((end - start) * b / bands));
    cut.push(end);
    ctx.lineWidth = look[0];
    ctx.lineJoin = look[1];
    for (var gi = 0; gi < groups.length; gi++) {
      if (!groupVisible[gi]) continue;
      var members = groupAgents[gi];
      if (groups[gi].vehicle) {
        // vehicles: the trail coloured by speed, so braking points show
        for (var v = 0; v < members.length; v++) {
          if (inView[members[v]] || members[v] === state.selected) speedTrail(members[v], start, end);
        }
        continue;
      }
      ctx.strokeStyle = groupFill[gi];
      for (b = 0; b < bands; b++) {
        ctx.globalAlpha = look[2] + look[3] * b;
        ctx.beginPath();
        for (var m = 0; m < members.length; m++) {
          var k = members[m];
          if (!inView[k] && k !== state.selected) continue;
          trace(k, cut[b], cut[b + 1], stride);
        }
        ctx.stroke();
      }
    }
    ctx.globalAlpha = 1;
  }
  function drawTrails(inView, visible) {
    bandedTrails(inView, visible, traceTrail, [1.25, "round", 0.12, 0.16]);
  }

  // Agent k's trail from frame `from` to `to`, each step coloured by its speed from dark blue
  // (at rest) to yellow (the fastest speed in the replay).
  var fastest = -1;
  function speedTrail(k, from, to) {
    if (fastest < 0) {
      fastest = 1e-6;
      for (var f = 0; f < frames.length; f++) {
        for (var j = 0; j < n; j++) {
          var q = Math.hypot(frames[f].vel[2 * j], frames[f].vel[2 * j + 1]);
          if (isFinite(q) && q > fastest) fastest = q;
        }
      }
    }
    ctx.lineWidth = 2.5;
    for (var i = from; i < to; i++) {
      var a = frames[i], b = frames[i + 1];
      var x0 = a.pos[2 * k], y0 = a.pos[2 * k + 1], x1 = b.pos[2 * k], y1 = b.pos[2 * k + 1];
      if (!isFinite(x0 + y0 + x1 + y1)) continue;
      var t = Math.min(1, Math.hypot(b.vel[2 * k], b.vel[2 * k + 1]) / fastest);
      ctx.strokeStyle = "rgb(" + Math.round(40 + 200 * t) + "," + Math.round(30 + 190 * t) + "," + Math.round(120 - 90 * t) + ")";
      ctx.beginPath(); ctx.moveTo(sx(x0), sy(y0)); ctx.lineTo(sx(x1), sy(y1)); ctx.stroke();
    }
    ctx.lineWidth = 1.25;
  }

  // The full trail of the selected agent, drawn darker.
  function drawSelectedTrail() {
    var k = state.selected;
    if (k < 0) return;
    ctx.strokeStyle = groupStroke[agentGroup[k]] || COLORS.select;
    ctx.globalAlpha = 0.55;
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    traceTrail(k, 0, state.frame, 1);
    ctx.stroke();
    ctx.globalAlpha = 1;
  }

  function overlayStroke(color, width, dash, fn) {
    ctx.strokeStyle = color;
    ctx.lineWidth = width;
    ctx.setLineDash(dash || []);
    ctx.beginPath();
    fn();
    ctx.stroke();
    ctx.setLineDash([]);
  }

  function drawOverlays(f, show) {
    var L = state.layers, i, k, l;
    if (L.neighbour && (l = f.neighbour_radius)) {
      overlayStroke(COLORS.neighbour, 1, [3, 4], function () {
        for (i = 0; i < l.agent.length; i++) { k = l.agent[i]; if (show[k]) circle(f.pos[2 * k], f.pos[2 * k + 1], l.radius[i]); }
      });
    }
    if (L.boxes && (l = f.boxes)) {
      ctx.fillStyle = "rgba(8,145,178,0.07)";
      overlayStroke(COLORS.box, 1.25, [5, 3], function () {
        for (i = 0; i < l.agent.length; i++) {
          if (!show[l.agent[i]]) continue;
          var c = l.corners, o = 8 * i;
          ctx.moveTo(sx(c[o]), sy(c[o + 1]));
          for (var j = 1; j < 4; j++) ctx.lineTo(sx(c[o + 2 * j]), sy(c[o + 2 * j + 1]));
          ctx.closePath();
        }
        ctx.fill();
      });
    }
    if (L.wander && (l = f.wander)) {
      overlayStroke(COLORS.wander, 1.25, null, function () {
        for (i = 0; i < l.agent.length; i++) {
          k = l.agent[i];
          if (!show[k]) continue;
          circle(l.center[2 * i], l.center[2 * i + 1], l.radius[i]);
          line(f.pos[2 * k], f.pos[2 * k + 1], l.center[2 * i], l.center[2 * i + 1]);
        }
      });
      ctx.fillStyle = COLORS.wander;
      ctx.beginPath();
      for (i = 0; i < l.agent.length; i++) {
        if (!show[l.agent[i]]) continue;
        var tx = sx(l.target[2 * i]), ty = sy(l.target[2 * i + 1]);
        ctx.moveTo(tx + 3, ty); ctx.arc(tx, ty, 3, 0, 2 * Math.PI);
      }
      ctx.fill();
    }
    if (L.rays && (l = f.rays)) {
      overlayStroke(COLORS.ray, 1.25, null, function () {
        for (i = 0; i < l.agent.length; i++) {
          if (show[l.agent[i]]) line(l.from[2 * i], l.from[2 * i + 1], l.to[2 * i], l.to[2 * i + 1]);
        }
      });
      overlayStroke(COLORS.hit, 2, null, function () {
        for (i = 0; i < l.agent.length; i++) {
          var t = l.hit[i];
          if (!show[l.agent[i]] || !(t >= 0)) continue;
          var hx = sx(l.from[2 * i] + t * (l.to[2 * i] - l.from[2 * i])), hy = sy(l.from[2 * i + 1] + t * (l.to[2 * i + 1] - l.from[2 * i + 1]));
          ctx.moveTo(hx - 4, hy - 4); ctx.lineTo(hx + 4, hy + 4); ctx.moveTo(hx - 4, hy + 4); ctx.lineTo(hx + 4, hy - 4);
        }
      });
    }
    if (L.routes && (l = f.routes)) {
      // each navigating agent's route ahead: from the body through its corners to its goal,
      // the next corner marked
      var starts = [], at = 0;
      for (i = 0; i < l.agent.length; i++) { starts.push(at); at += l.count[i]; }
      overlayStroke(COLORS.route, 1, [4, 3], function () {
        for (i = 0; i < l.agent.length; i++) {
          k = l.agent[i];
          if (!show[k] || !l.count[i]) continue;
          ctx.moveTo(sx(f.pos[2 * k]), sy(f.pos[2 * k + 1]));
          for (var j = 0; j < l.count[i]; j++) ctx.lineTo(sx(l.point[2 * (starts[i] + j)]), sy(l.point[2 * (starts[i] + j) + 1]));
        }
      });
      ctx.fillStyle = COLORS.route;
      ctx.beginPath();
      for (i = 0; i < l.agent.length; i++) {
        if (!show[l.agent[i]] || !l.count[i]) continue;
        var cx = sx(l.point[2 * starts[i]]), cy = sy(l.point[2 * starts[i] + 1]);
        ctx.moveTo(cx + 3, cy); ctx.arc(cx, cy, 3, 0, 2 * Math.PI);
      }
      ctx.fill();
    }
    if (L.slots && (l = f.slots)) {
      overlayStroke(COLORS.slot, 1, [2, 3], function () {
        for (i = 0; i < l.agent.length; i++) { k = l.agent[i]; if (show[k]) line(f.pos[2 * k], f.pos[2 * k + 1], l.point[2 * i], l.point[2 * i + 1]); }
      });
      overlayStroke(COLORS.slot, 1.5, null, function () {
        for (i = 0; i < l.agent.length; i++) {
          if (!show[l.agent[i]]) continue;
          var X = sx(l.point[2 * i]), Y = sy(l.point[2 * i + 1]);
          ctx.rect(X - 4, Y - 4, 8, 8);
        }
      });
    }
    if (L.paths && (l = f.target)) {
      overlayStroke(COLORS.path, 1, [2, 3], function () {
        for (i = 0; i < l.agent.length; i++) { k = l.agent[i]; if (show[k]) line(f.pos[2 * k], f.pos[2 * k + 1], l.point[2 * i], l.point[2 * i + 1]); }
      });
      overlayStroke(COLORS.path, 1.75, null, function () {
        for (i = 0; i < l.agent.length; i++) {
          if (!show[l.agent[i]]) continue;
          var X = sx(l.point[2 * i]), Y = sy(l.point[2 * i + 1]);
          ctx.moveTo(X + 5, Y); ctx.arc(X, Y, 5, 0, 2 * Math.PI);
          ctx.moveTo(X - 8, Y); ctx.lineTo(X - 3, Y); ctx.moveTo(X + 3, Y); ctx.lineTo(X + 8, Y);
          ctx.moveTo(X, Y - 8); ctx.lineTo(X, Y - 3); ctx.moveTo(X, Y + 3); ctx.lineTo(X, Y + 8);
        }
      });
    }
  }

  function drawVectors(f, s, show) {
    var L = state.layers, k, i, l;
    if (L.velocity) {
      overlayStroke(COLORS.velocity, 1.5, null, function () {
        for (k = 0; k < n; k++) {
          if (!show[k]) continue;
          arrow(s.pos[2 * k], s.pos[2 * k + 1], f.vel[2 * k] * VELOCITY_SECONDS, f.vel[2 * k + 1] * VELOCITY_SECONDS);
        }
      });
    }
    if (L.steering && (l = f.steering)) {
      overlayStroke(COLORS.steering, 1.5, null, function () {
        for (i = 0; i < l.agent.length; i++) {
          k = l.agent[i];
          if (!show[k]) continue;
          arrow(s.pos[2 * k], s.pos[2 * k + 1], l.vector[2 * i] * STEERING_SCALE, l.vector[2 * i + 1] * STEERING_SCALE);
        }
      });
    }
  }

  // Bodies: a disc of the group's radius (its outline inside the rim, so the edge is the true
  // size) with a mark from the centre to the rim along the heading; or, as an option, a dart whose
  // nose reaches 1.5 radii ahead. One path per group.
  // A vehicle's body in the frame of its reference point (x forward, y left; m): a car's
  // reference point is its rear axle, so the body reaches the wheelbase plus overhangs ahead.
  function drawVehicle(gi, k, s, controls) {
    var v = groups[gi].vehicle, x = s.pos[2 * k], y = s.pos[2 * k + 1], h = s.ori[k];
    var c = Math.cos(h), sn = Math.sin(h), S = state.scale;
    var ctl = controls ? [controls[3 * k], controls[3 * k + 1], controls[3 * k + 2]] : [NaN, NaN, NaN];
    function P(fx, fy) { return [sx(x + fx * c - fy * sn), sy(y + fx * sn + fy * c)]; }
    function rect(x0, y0, x1, y1) {
      var a = P(x0, y0), b = P(x1, y0), d = P(x1, y1), e = P(x0, y1);
      ctx.moveTo(a[0], a[1]); ctx.lineTo(b[0], b[1]); ctx.lineTo(d[0], d[1]); ctx.lineTo(e[0], e[1]); ctx.closePath();
    }
    // a wheel of length l centred at (fx, fy), turned by a (rad)
    function wheel(fx, fy, l, w, a) {
      var ca = Math.cos(a) * l / 2, sa = Math.sin(a) * l / 2, cw = -Math.sin(a) * w / 2, sw = Math.cos(a) * w / 2;
      var q = [P(fx - ca - cw, fy - sa - sw), P(fx + ca - cw, fy + sa - sw), P(fx + ca + cw, fy + sa + sw), P(fx - ca + cw, fy - sa + sw)];
      ctx.moveTo(q[0][0], q[0][1]); for (var i = 1; i < 4; i++) ctx.lineTo(q[i][0], q[i][1]); ctx.closePath();
    }
    var L = v.length, W = v.width, wb = v.wheelbase || 0;
    var back = wb ? -(L - wb) / 2 : -L / 2, front = back + L;
    ctx.beginPath();
    if (v.model === "human") {
      // shoulders across the heading, a nose ahead
      rect(-L / 2, -W / 2, L / 2, W / 2);
    } else if (v.model === "ship") {
      // an arrowhead; a flame behind while thrusting
      var n = P(L / 2, 0), l = P(-L / 2, W / 2), m = P(-L / 4, 0), rr = P(-L / 2, -W / 2);
      ctx.moveTo(n[0], n[1]); ctx.lineTo(l[0], l[1]); ctx.lineTo(m[0], m[1]); ctx.lineTo(rr[0], rr[1]); ctx.closePath();
    } else {
      rect(back, -W / 2, front, W / 2);
    }
    ctx.fillStyle = groupFill[gi]; ctx.fill();
    ctx.strokeStyle = groupStroke[gi]; ctx.lineWidth = 1; ctx.stroke();
    ctx.beginPath();
    var steer = isFinite(ctl[1]) ? ctl[1] * (v.max_steer || 0) : 0;
    if (v.model === "car" || v.model === "discrete_car") {
      var wl = Math.min(0.7, L * 0.16), ww = Math.min(0.3, W * 0.16), ax = wb || L * 0.6, y0 = W / 2 - ww / 2;
      var x0 = wb ? 0 : -L * 0.3;
      wheel(x0, y0, wl, ww, 0); wheel(x0, -y0, wl, ww, 0);
      wheel(x0 + ax, y0, wl, ww, steer); wheel(x0 + ax, -y0, wl, ww, steer);
    } else if (v.model === "motorbike") {
      wheel(0, 0, Math.min(0.65, L * 0.3), W * 0.3, 0); wheel(wb, 0, Math.min(0.65, L * 0.3), W * 0.3, steer);
    } else if (v.model === "tank") {
      var tw = v.track_width || W * 0.8, tr = Math.max(W - tw, W * 0.15);
      rect(-L / 2, tw / 2 - tr / 2, L / 2, tw / 2 + tr / 2); rect(-L / 2, -tw / 2 - tr / 2, L / 2, -tw / 2 + tr / 2);
    } else if (v.model === "human") {
      var a = P(L / 2 + W * 0.35, 0), b = P(L / 2, W * 0.2), d = P(L / 2, -W * 0.2);
      ctx.moveTo(a[0], a[1]); ctx.lineTo(b[0], b[1]); ctx.lineTo(d[0], d[1]); ctx.closePath();
    }
    ctx.fillStyle = "#333"; ctx.fill();
    if (v.model === "ship" && ctl[0] > 0) {
      var f0 = P(-L / 4, 0), f1 = P(-L, W / 5), f2 = P(-L, -W / 5);
      ctx.beginPath(); ctx.moveTo(f0[0], f0[1]); ctx.lineTo(f1[0], f1[1]); ctx.lineTo(f2[0], f2[1]); ctx.closePath();
      ctx.fillStyle = "#e69f00"; ctx.fill();
    }
    if (v.model === "tank" && isFinite(ctl[0])) {
      // each track's commanded speed: a bar from the track's middle, forward positive
      var tw2 = v.track_width || W * 0.8;
      ctx.beginPath();
      [[ctl[0], tw2 / 2], [ctl[1], -tw2 / 2]].forEach(function (t) {
        var a = P(0, t[1]), b = P(t[0] * L / 2, t[1]);
        ctx.moveTo(a[0], a[1]); ctx.lineTo(b[0], b[1]);
      });
      ctx.strokeStyle = COLORS.steering; ctx.lineWidth = Math.max(2, 0.25 * S); ctx.stroke();
    }
  }

