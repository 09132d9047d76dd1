// steerkit replay player, part 5 of 7: the 3D view: overlays, bodies and the frame.
// The parts are one script, joined in order into replay.html (steerkit_scenario::recording::PLAYER).
  // Overlays in 3D, from the layers' whole 3D arrays.
  function billboard(x, y, z, r) {
    if (!proj(x, y, z)) return;
    var R = r * view3.F / PZ;
    ctx.moveTo(PX + R, PY);
    ctx.arc(PX, PY, R, 0, 2 * Math.PI);
  }
  function drawOverlays3(f, s, show) {
    var L = state.layers, P = s.pos, i, k, l;
    if (L.neighbour && (l = f.neighbour_radius)) {
      overlayStroke(COLORS.neighbour, 1, [3, 4], function () {
        for (i = 0; i < l.agent.length; i++) { k = l.agent[i]; if (show[k]) billboard(P[3 * k], P[3 * k + 1], P[3 * k + 2], l.radius[i]); }
      });
    }
    if (L.boxes && (l = f.boxes)) {
      ctx.fillStyle = "rgba(8,145,178,0.07)";
      overlayStroke(COLORS.box, 1.25, [5, 3], function () {
        var c = view3.clip;
        for (i = 0; i < l.agent.length; i++) {
          if (!show[l.agent[i]]) continue;
          for (var j = 0; j < 12; j++) c[j] = l.corners3[12 * i + j];
          poly3(4);
        }
        ctx.fill();
      });
    }
    if (L.wander && (l = f.wander)) {
      var C = l.center3, T = l.target3;
      overlayStroke(COLORS.wander, 1.25, null, function () {
        for (i = 0; i < l.agent.length; i++) {
          k = l.agent[i];
          if (!show[k]) continue;
          ring3(C[3 * i], C[3 * i + 1], C[3 * i + 2], l.radius[i], false);
          seg3(P[3 * k], P[3 * k + 1], P[3 * k + 2], C[3 * i], C[3 * i + 1], C[3 * i + 2]);
        }
      });
      ctx.fillStyle = COLORS.wander;
      ctx.beginPath();
      for (i = 0; i < l.agent.length; i++) {
        if (!show[l.agent[i]] || !proj(T[3 * i], T[3 * i + 1], T[3 * i + 2])) continue;
        ctx.moveTo(PX + 3, PY); ctx.arc(PX, PY, 3, 0, 2 * Math.PI);
      }
      ctx.fill();
    }
    if (L.rays && (l = f.rays)) {
      var A = l.from3, Z = l.to3;
      overlayStroke(COLORS.ray, 1.25, null, function () {
        for (i = 0; i < l.agent.length; i++) {
          if (show[l.agent[i]]) seg3(A[3 * i], A[3 * i + 1], A[3 * i + 2], Z[3 * i], Z[3 * i + 1], Z[3 * i + 2]);
        }
      });
      overlayStroke(COLORS.hit, 2, null, function () {
        for (i = 0; i < l.agent.length; i++) {
          var t = l.hit[i];
          if (!show[l.agent[i]] || !(t >= 0)) continue;
          var o = 3 * i;
          if (!proj(A[o] + t * (Z[o] - A[o]), A[o + 1] + t * (Z[o + 1] - A[o + 1]), A[o + 2] + t * (Z[o + 2] - A[o + 2]))) continue;
          ctx.moveTo(PX - 4, PY - 4); ctx.lineTo(PX + 4, PY + 4); ctx.moveTo(PX - 4, PY + 4); ctx.lineTo(PX + 4, PY - 4);
        }
      });
    }
    if (L.slots && (l = f.slots)) {
      var S = l.point3;
      overlayStroke(COLORS.slot, 1, [2, 3], function () {
        for (i = 0; i < l.agent.length; i++) { k = l.agent[i]; if (show[k]) seg3(P[3 * k], P[3 * k + 1], P[3 * k + 2], S[3 * i], S[3 * i + 1], S[3 * i + 2]); }
      });
      overlayStroke(COLORS.slot, 1.5, null, function () {
        for (i = 0; i < l.agent.length; i++) {
          if (show[l.agent[i]] && proj(S[3 * i], S[3 * i + 1], S[3 * i + 2])) ctx.rect(PX - 4, PY - 4, 8, 8);
        }
      });
    }
    if (L.paths && (l = f.target)) {
      var G = l.point3;
      overlayStroke(COLORS.path, 1, [2, 3], function () {
        for (i = 0; i < l.agent.length; i++) { k = l.agent[i]; if (show[k]) seg3(P[3 * k], P[3 * k + 1], P[3 * k + 2], G[3 * i], G[3 * i + 1], G[3 * i + 2]); }
      });
      overlayStroke(COLORS.path, 1.75, null, function () {
        for (i = 0; i < l.agent.length; i++) {
          if (!show[l.agent[i]] || !proj(G[3 * i], G[3 * i + 1], G[3 * i + 2])) continue;
          var X = PX, Y = PY;
          ctx.moveTo(X + 5, Y); ctx.arc(X, Y, 5, 0, 2 * Math.PI);
          ctx.moveTo(X - 8, Y); ctx.lineTo(X - 3, Y); ctx.moveTo(X + 3, Y); ctx.lineTo(X + 8, Y);
          ctx.moveTo(X, Y - 8); ctx.lineTo(X, Y - 3); ctx.moveTo(X, Y + 3); ctx.lineTo(X, Y + 8);
        }
      });
    }
  }
  function arrow3(x, y, z, dx, dy, dz) {
    if (!proj(x, y, z)) return;
    var X0 = PX, Y0 = PY;
    if (!proj(x + dx, y + dy, z + dz)) return;
    arrowPx(X0, Y0, PX, PY);
  }
  function drawVectors3(f, s, show) {
    var L = state.layers, P = s.pos, k, i, l;
    if (L.velocity) {
      var V = f.vel3;
      overlayStroke(COLORS.velocity, 1.5, null, function () {
        for (k = 0; k < n; k++) {
          if (show[k]) arrow3(P[3 * k], P[3 * k + 1], P[3 * k + 2], V[3 * k] * VELOCITY_SECONDS, V[3 * k + 1] * VELOCITY_SECONDS, V[3 * k + 2] * VELOCITY_SECONDS);
        }
      });
    }
    if (L.steering && (l = f.steering)) {
      var A = l.vector3;
      overlayStroke(COLORS.steering, 1.5, null, function () {
        for (i = 0; i < l.agent.length; i++) {
          k = l.agent[i];
          if (show[k]) arrow3(P[3 * k], P[3 * k + 1], P[3 * k + 2], A[3 * i] * STEERING_SCALE, A[3 * i + 1] * STEERING_SCALE, A[3 * i + 2] * STEERING_SCALE);
        }
      });
    }
  }

  // One body, the size of its group's radius. By default a sphere: a disc of the projected
  // radius shaded toward the light, with a tick from the centre to the rim along the body's
  // forward axis. As an option a dart with a fin inside that sphere, turned by its attitude, lit
  // by facing. In a big crowd (`batch`) the disc or the wing alone is added to the path of its
  // colour (and the tick to one path of ticks), drawn by flushBodies().
  var DV = new Float64Array(12), FV = new Float64Array(9);
  var batchPaths = [], batchUsed = [], batchTicks = null;
  var sphereFills = [], lightX = 0, lightY = 0;   // gradients per group and haze, made per frame
  function sphereFill(gi, fog) {
    var key = gi * FOGS + fog, g = sphereFills[key];
    if (g) return g;
    // in a unit disc at the origin, drawn through a scaling transform
    var table = view3.shades[gi] || view3.shades[0], o = fog * SHADES;
    g = ctx.createRadialGradient(lightX * 0.45, lightY * 0.45, 0.05, 0, 0, 1);
    g.addColorStop(0, table[o + SHADES - 1]);
    g.addColorStop(0.6, table[o + SPHERE_SHADE]);
    g.addColorStop(1, table[o + 3]);
    return (sphereFills[key] = g);
  }
  function drawBody3(k, s, f, outline, batch) {
    var v = view3, o = 3 * k, x = s.pos[o], y = s.pos[o + 1], z = s.pos[o + 2];
    var gi = agentGroup[k];
    bodyAxes(k, s, f);
    var r = v.ar[k] / (v.F / v.az[k]);   // body radius in metres, at least a few pixels on screen
    var i, lx, ly, lz;
    if (!state.layers.darts) {
      var X = v.ax[k], Y = v.ay[k], R = v.ar[k], fogK = fogLevel(v.az[k]);
      // the tick's end: the point a radius ahead, projected
      var tick = R >= MARK_BODY_PX && proj(x + r * B[0], y + r * B[1], z + r * B[2]);
      var TX = PX, TY = PY;
      if (tick) {
        // keep the tick inside the disc's outline
        var len = Math.hypot(TX - X, TY - Y), keep = len > R - 1 ? (R - 1) / len : 1;
        TX = X + (TX - X) * keep; TY = Y + (TY - Y) * keep;
      }
      if (batch) {
        var bslot = (gi * FOGS + fogK) * SHADES + SPHERE_SHADE, bpath = batchPaths[bslot];
        if (!bpath) { bpath = batchPaths[bslot] = new Path2D(); batchUsed.push(bslot); }
        bpath.moveTo(X + R, Y); bpath.arc(X, Y, R, 0, 2 * Math.PI);
        if (tick) { if (!batchTicks) batchTicks = new Path2D(); batchTicks.moveTo(X, Y); batchTicks.lineTo(TX, TY); }
        return;
      }
      var rf = outline ? R - 0.5 : R;
      ctx.setTransform(dpr * rf, 0, 0, dpr * rf, dpr * X, dpr * Y);
      ctx.fillStyle = sphereFill(gi, fogK);
      ctx.beginPath();
      ctx.arc(0, 0, 1, 0, 2 * Math.PI);
      ctx.fill();
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.strokeStyle = groupStroke[gi];
      if (outline) {
        ctx.lineWidth = 1;
        ctx.beginPath();
        ctx.arc(X, Y, rf, 0, 2 * Math.PI);
        ctx.stroke();
      }
      if (tick) {
        ctx.lineWidth = Math.min(Math.max(R * 0.14, 1), 2.5);
        ctx.beginPath();
        ctx.moveTo(X, Y); ctx.lineTo(TX, TY);
        ctx.stroke();
      }
      return;
    }
    for (i = 0; i < 4; i++) {
      lx = DART[3 * i] * r; ly = DART[3 * i + 1] * r; lz = DART[3 * i + 2] * r;
      if (!proj(x + lx * B[0] + ly * B[3] + lz * B[6], y + lx * B[1] + ly * B[4] + lz * B[7], z + lx * B[2] + ly * B[5] + lz * B[8])) return;
      DV[3 * i] = PX; DV[3 * i + 1] = PY;
    }
    if (batch) {
      var slot = (gi * FOGS + fogLevel(v.az[k])) * SHADES + Math.round(lit(B[3], B[4], B[5], x, y, z) * (SHADES - 1));
      var path = batchPaths[slot];
      if (!path) { path = batchPaths[slot] = new Path2D(); batchUsed.push(slot); }
      path.moveTo(DV[0], DV[1]); path.lineTo(DV[3], DV[4]); path.lineTo(DV[6], DV[7]); path.lineTo(DV[9], DV[10]); path.closePath();
      return;
    }
    for (i = 0; i < 3; i++) {
      lx = FIN[3 * i] * r; ly = FIN[3 * i + 1] * r; lz = FIN[3 * i + 2] * r;
      if (!proj(x + lx * B[0] + ly * B[3] + lz * B[6], y + lx * B[1] + ly * B[4] + lz * B[7], z + lx * B[2] + ly * B[5] + lz * B[8])) return;
      FV[3 * i] = PX; FV[3 * i + 1] = PY;
    }
    var fog = fogLevel(v.az[k]) * SHADES, table = v.shades[gi] || v.shades[0];
    var wing = table[fog + Math.round(lit(B[3], B[4], B[5], x, y, z) * (SHADES - 1))];
    var fin = table[fog + Math.round(lit(B[6], B[7], B[8], x, y, z) * (SHADES - 1))];
    // seen from above the wing, the fin stands in front of it; from below, behind
    var above = (v.ex - x) * B[3] + (v.ey - y) * B[4] + (v.ez - z) * B[5] > 0;
    ctx.lineWidth = 0.8;
    ctx.lineJoin = "round";
    ctx.strokeStyle = groupStroke[gi];
    if (above) { wing3(wing, outline); fin3(fin, outline); } else { fin3(fin, outline); wing3(wing, outline); }
  }
  function flushBodies() {
    for (var i = 0; i < batchUsed.length; i++) {
      var slot = batchUsed[i], table = view3.shades[Math.floor(slot / (FOGS * SHADES))];
      ctx.fillStyle = table[slot % (FOGS * SHADES)];
      ctx.fill(batchPaths[slot]);
      batchPaths[slot] = null;
    }
    batchUsed.length = 0;
    if (batchTicks) {
      ctx.strokeStyle = "rgba(25,30,45,0.6)";
      ctx.lineWidth = 1;
      ctx.stroke(batchTicks);
      batchTicks = null;
    }
  }
  function wing3(style, outline) {
    ctx.beginPath();
    ctx.moveTo(DV[0], DV[1]); ctx.lineTo(DV[3], DV[4]); ctx.lineTo(DV[6], DV[7]); ctx.lineTo(DV[9], DV[10]);
    ctx.closePath();
    ctx.fillStyle = style;
    ctx.fill();
    if (outline) ctx.stroke();
  }
  function fin3(style, outline) {
    ctx.beginPath();
    ctx.moveTo(FV[0], FV[1]); ctx.lineTo(FV[3], FV[4]); ctx.lineTo(FV[6], FV[7]);
    ctx.closePath();
    ctx.fillStyle = style;
    ctx.fill();
    if (outline) ctx.stroke();
  }

  function drawSphere3(i) {
    var v = view3, c = spheres[i];
    if (!proj(c.center[0], c.center[1], c.center[2]) || PZ <= c.radius) return;
    var X = PX, Y = PY, R = c.radius * v.F / Math.sqrt(PZ * PZ - c.radius * c.radius);
    // the lit side toward the light, as seen from the camera
    var lx = LIGHT[0] * v.rx + LIGHT[1] * v.ry + LIGHT[2] * v.rz, ly = -(LIGHT[0] * v.ux + LIGHT[1] * v.uy + LIGHT[2] * v.uz);
    var g = ctx.createRadialGradient(X + lx * R * 0.45, Y + ly * R * 0.45, R * 0.05, X, Y, R);
    g.addColorStop(0, "#fbfcfe");
    g.addColorStop(0.55, "#c9d0dc");
    g.addColorStop(1, "#7f8a9c");
    ctx.fillStyle = g;
    ctx.strokeStyle = COLORS.obstacleStroke;
    ctx.lineWidth = 1.25;
    ctx.beginPath();
    ctx.arc(X, Y, R, 0, 2 * Math.PI);
    ctx.fill();
    ctx.stroke();
  }
  var CUBE_FACES = [
    // normal, then four corners as (x, y, z) picks: 0 = min, 1 = max
    [-1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1], [1, 0, 0, 1, 0, 0, 1, 0, 1, 1, 1, 1, 1, 1, 0],
    [0, -1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 1, 0, 0], [0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1],
    [0, 0, -1, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0], [0, 0, 1, 0, 0, 1, 0, 1, 1, 1, 1, 1, 1, 0, 1]
  ];
  var cuboidRgb = parseHex("#cfd6e0");
  function drawCuboid3(i) {
    var v = view3, b = cuboids[i], c = v.clip;
    ctx.strokeStyle = COLORS.obstacleStroke;
    ctx.lineWidth = 1.25;
    ctx.lineJoin = "round";
    for (var fi = 0; fi < 6; fi++) {
      var F = CUBE_FACES[fi];
      var px = F[0] > 0 ? b.max[0] : b.min[0], py = F[1] > 0 ? b.max[1] : b.min[1], pz = F[2] > 0 ? b.max[2] : b.min[2];
      if ((v.ex - px) * F[0] + (v.ey - py) * F[1] + (v.ez - pz) * F[2] <= 0) continue;   // faces away
      for (var j = 0; j < 4; j++) {
        c[3 * j] = F[3 + 3 * j] ? b.max[0] : b.min[0];
        c[3 * j + 1] = F[4 + 3 * j] ? b.max[1] : b.min[1];
        c[3 * j + 2] = F[5 + 3 * j] ? b.max[2] : b.min[2];
      }
      var k = 0.62 + 0.45 * Math.max(0, F[0] * LIGHT[0] + F[1] * LIGHT[1] + F[2] * LIGHT[2]);
      ctx.fillStyle = "rgb(" + cuboidRgb.map(function (x) { return Math.round(Math.min(255, x * k)); }).join(",") + ")";
      ctx.beginPath();
      poly3(4);
      ctx.fill();
      ctx.stroke();
    }
  }
  function drawSegment3(i) {
    var S = view3.segs, o = 6 * i;
    ctx.strokeStyle = COLORS.path;
    ctx.lineWidth = 2;
    ctx.globalAlpha = 0.8;
    ctx.setLineDash([8, 5]);
    ctx.beginPath();
    seg3(S[o], S[o + 1], S[o + 2], S[o + 3], S[o + 4], S[o + 5]);
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.globalAlpha = 1;
  }

  function drawAxes3() {
    var v = view3, X = 40, Y = cssH - 42, L = 24;
    ctx.fillStyle = "rgba(255,255,255,.85)";
    ctx.strokeStyle = "#dde1e7";
    ctx.lineWidth = 1;
    ctx.beginPath(); ctx.arc(X, Y, 33, 0, 2 * Math.PI); ctx.fill(); ctx.stroke();
    var axes = [[1, 0, 0, "x", "#dc2626"], [0, 1, 0, "y", "#16a34a"], [0, 0, 1, "z", "#2563eb"]];
    // back to front: the axis pointing away from the viewer first
    axes.sort(function (a, b) { return (b[0] * v.fx + b[1] * v.fy + b[2] * v.fz) - (a[0] * v.fx + a[1] * v.fy + a[2] * v.fz); });
    ctx.font = "11px " + getComputedStyle(document.body).getPropertyValue("--font");
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    axes.forEach(function (a) {
      var dx = a[0] * v.rx + a[1] * v.ry + a[2] * v.rz, dy = -(a[0] * v.ux + a[1] * v.uy + a[2] * v.uz);
      ctx.strokeStyle = a[4];
      ctx.lineWidth = 2;
      ctx.beginPath(); ctx.moveTo(X, Y); ctx.lineTo(X + dx * L, Y + dy * L); ctx.stroke();
      ctx.fillStyle = a[4];
      ctx.fillText(a[3], X + dx * (L + 7), Y + dy * (L + 7));
    });
    ctx.textAlign = "start";
    ctx.textBaseline = "alphabetic";
    ctx.fillStyle = "rgba(255,255,255,.85)";
    ctx.fillRect(80, cssH - 26, 92, 18);
    ctx.fillStyle = "#374151";
    var g = v.grid;
    ctx.fillText("grid " + (g >= 1 ? g.toFixed(0) : g.toPrecision(1)) + " " + unit(), 86, cssH - 13);
  }

  function draw3d() {
    var v = view3, f = frames[state.frame], s = agentState3(), P = s.pos, k;
    if (state.follow && state.selected >= 0 && isFinite(P[3 * state.selected])) {
      v.tx = P[3 * state.selected]; v.ty = P[3 * state.selected + 1]; v.tz = P[3 * state.selected + 2];
    }
    camera3();
    // the light as seen from the camera, for the shaded spheres
    lightX = LIGHT[0] * v.rx + LIGHT[1] * v.ry + LIGHT[2] * v.rz;
    lightY = -(LIGHT[0] * v.ux + LIGHT[1] * v.uy + LIGHT[2] * v.uz);
    sphereFills.length = 0;
    drawGround3();

    // project the agents: which are in view, where, how big
    var visible = 0, margin = 40;
    for (k = 0; k < n; k++) {
      var ok = groupVisible[agentGroup[k]] && proj(P[3 * k], P[3 * k + 1], P[3 * k + 2]);
      if (ok) {
        v.ax[k] = PX; v.ay[k] = PY; v.az[k] = PZ;
        v.ar[k] = Math.max(((groups[agentGroup[k]] || {}).radius || 0.3) * v.F / PZ, MIN_BODY_PX);
        ok = PX >= -margin && PX <= cssW + margin && PY >= -margin && PY <= cssH + margin;
      }
      inView[k] = ok ? 1 : 0;
      visible += inView[k];
    }
    chooseOverlays(visible);

    drawShadows3(s, visible);
    drawVolume3();
    if (state.layers.trails) drawTrails3(visible);
    drawSelectedTrail3();
    drawOverlays3(f, s, show);
    drawShots(true);

    // agents, spheres, cuboids and path segments, far to near
    var keys = v.keys, m = 0, base = v.keyBase, S = spheres.length, C = cuboids.length, i;
    function push(idx, z) { keys[m++] = Math.floor(Math.max(0, 1e6 - z) * 64) * base + idx; }
    for (k = 0; k < n; k++) if (inView[k]) push(k, v.az[k]);
    for (i = 0; i < S; i++) { var c = spheres[i].center; push(n + i, depth3(c[0], c[1], c[2])); }
    for (i = 0; i < C; i++) {
      var b = cuboids[i];
      push(n + S + i, depth3((b.min[0] + b.max[0]) / 2, (b.min[1] + b.max[1]) / 2, (b.min[2] + b.max[2]) / 2));
    }
    if (state.layers.paths) {
      for (i = 0; i < v.segPath.length; i++) {
        var o = 6 * i, sg = v.segs;
        push(n + S + C + i, depth3((sg[o] + sg[o + 3]) / 2, (sg[o + 1] + sg[o + 4]) / 2, (sg[o + 2] + sg[o + 5]) / 2));
      }
    }
    var order = keys.subarray(0, m);
    order.sort();
    // a big crowd is drawn a colour at a time between the solid obstacles
    var outline = visible <= OUTLINE_AGENT_LIMIT, batch = visible > BATCH_AGENT_LIMIT;
    for (i = 0; i < m; i++) {
      var idx = order[i] % base;
      if (idx < n) { drawBody3(idx, s, f, outline, batch); continue; }
      if (idx < n + S + C) flushBodies();
      if (idx < n + S) drawSphere3(idx - n);
      else if (idx < n + S + C) drawCuboid3(idx - n - S);
      else drawSegment3(idx - n - S - C);
    }
    flushBodies();

    drawVectors3(f, s, show);
    var sel = state.selected;
    if (sel >= 0 && inView[sel]) {
      ctx.strokeStyle = COLORS.select;
      ctx.lineWidth = 1.5;
      ctx.setLineDash([4, 3]);
      ctx.beginPath();
      ctx.arc(v.ax[sel], v.ay[sel], Math.max(v.ar[sel] * 2.1, 11), 0, 2 * Math.PI);
      ctx.stroke();
      ctx.setLineDash([]);
    }
    drawAxes3();
  }

  // The agent drawn nearest a point of the canvas (CSS px), or −1.
  function pick3(px, py) {
    var v = view3, s = agentState3(), P = s.pos, best = -1, bestD = Infinity;
    camera3();
    for (var k = 0; k < n; k++) {
      if (!groupVisible[agentGroup[k]] || !proj(P[3 * k], P[3 * k + 1], P[3 * k + 2])) continue;
      var dx = PX - px, dy = PY - py, d = dx * dx + dy * dy;
      var reach = Math.max(10, ((groups[agentGroup[k]] || {}).radius || 0) * v.F / PZ * 1.5);
      // among bodies under the pointer, the nearest to the camera
      var score = d + PZ * 1e-6;
      if (d <= reach * reach && score < bestD) { bestD = score; best = k; }
    }
    return best;
  }
  function orbit3(dx, dy, from) {
    view3.yaw = from.yaw - dx * 0.008;
    view3.pitch = Math.min(Math.max(from.pitch + dy * 0.008, 0.03), 1.55);
    requestDraw();
  }
  function pan3(dx, dy, from) {
    var v = view3, mpp = 2 * v.dist * Math.tan(FOV / 2) / cssH;   // metres per pixel at the target
    v.tx = from.tx - (dx * v.rx - dy * v.ux) * mpp;
    v.ty = from.ty - (dx * v.ry - dy * v.uy) * mpp;
    v.tz = from.tz - (dx * v.rz - dy * v.uz) * mpp;
    state.follow = false;
    requestDraw();
  }
  // Dolly by `factor` (< 1 nearer), keeping the point under the pointer where it is.
  function zoom3(px, py, factor) {
    var v = view3;
    camera3();
    var nd = Math.min(Math.max(v.dist * factor, 0.5), 1e5);
    factor = nd / v.dist;
    var mpp = 2 * v.dist * Math.tan(FOV / 2) / cssH, ox = (px - cssW / 2) * mpp, oy = -(py - cssH / 2) * mpp;
    // the point under the pointer at the target's depth moves toward the camera with it
    var wx_ = v.tx + ox * v.rx + oy * v.ux, wy_ = v.ty + ox * v.ry + oy * v.uy, wz_ = v.tz + ox * v.rz + oy * v.uz;
    if (!state.follow) {
      v.tx = wx_ + (v.tx - wx_) * factor; v.ty = wy_ + (v.ty - wy_) * factor; v.tz = wz_ + (v.tz - wz_) * factor;
    }
    v.dist = nd;
    requestDraw();
  }
  function setView3(on) {
    if (!view3) return;
    view3.on = on;
    $("view3d").textContent = on ? "Top view" : "3D view";
    $("view3d").title = on ? "Show the ground seen from above (V)" : "Show the 3D view (V)";
    $("reset3d").style.display = on ? "" : "none";
    $("fit").style.display = on ? "none" : "";
    canvas.setAttribute("aria-label", on ? "Simulation view, 3D" : "Simulation view, from above");
    requestDraw();
  }

  // Per-agent overlays only when few agents are in view, otherwise for the selected one.
  function chooseOverlays(visible) {
    var all = visible <= OVERLAY_AGENT_LIMIT;
    for (var k = 0; k < n; k++) show[k] = all ? inView[k] : 0;
    if (state.selected >= 0) show[state.selected] = 1;
    state.overlaysHidden = !all;
    var hint = $("hint");
    if (!all) {
      hint.textContent = visible + " agents in view: overlays only for the selected agent (zoom in or click one)";
      hint.style.display = "block";
    } else hint.style.display = "none";
  }
  var drawPending = false;
  function requestDraw() {
    if (!drawPending) { drawPending = true; requestAnimationFrame(draw); }
  }
  function draw(now) {
    drawPending = false;
    advance(now);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    // every frame starts from the same stroke state, whichever view drew last
    ctx.lineJoin = "round";
    ctx.lineCap = "butt";
    ctx.fillStyle = COLORS.background;
    ctx.fillRect(0, 0, cssW, cssH);
    if (!frameCount) return;
    if (view3 && view3.on) {
      draw3d();
      if (state.playing) requestDraw();
      updateReadout();
      return;
    }
    var f = frames[state.frame], s = agentState();
    if (state.follow && state.selected >= 0 && isFinite(s.pos[2 * state.selected])) {
      state.cx = s.pos[2 * state.selected];
      state.cy = s.pos[2 * state.selected + 1];
    }
    drawWorld();

    // which agents are in view (with a margin for bodies and arrows)
    var margin = 40 / state.scale + 2;
    var x0 = wx(0) - margin, x1 = wx(cssW) + margin, y0 = wy(cssH) - margin, y1 = wy(0) + margin;
    var visible = 0;
    for (var k = 0; k < n; k++) {
      var x = s.pos[2 * k], y = s.pos[2 * k + 1];
      var v = x >= x0 && x <= x1 && y >= y0 && y <= y1 && groupVisible[agentGroup[k]] ? 1 : 0;
      inView[k] = v;
      visible += v;
    }
    chooseOverlays(visible);

    if (state.layers.trails) drawTrails(inView, visible);
    drawSelectedTrail();
    drawOverlays(f, show);
    drawShots(false);
    drawAgents(s, inView, visible);
    drawVectors(f, s, show);
    drawScaleBar();
    if (state.playing) requestDraw();
    updateReadout();
  }

