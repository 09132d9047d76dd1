// steerkit replay player, part 4 of 7: the 3D view: camera, projection, the ground and the world.
// The parts are one script, joined in order into replay.html (steerkit_scenario::recording::PLAYER).
  // ---------- the 3D view (3D recordings) ----------
  // A perspective camera orbiting a target point: yaw about +y (0 looks from +z toward −z, so x
  // runs to the right as in the top view), pitch above the ground, distance. Everything is
  // projected here with the 2D canvas and drawn back to front (painter's algorithm): agents,
  // spheres, cuboids and path segments are sorted by depth each frame.
  var FOV = 50 * Math.PI / 180;
  var BATCH_AGENT_LIMIT = 400;                    // above this many in view, bodies are batched by colour
  var SHADES = 16, FOGS = 5;                      // body colours: lighting levels × distance haze
  var LIGHT = (function () { var l = [-0.35, 1, 0.45], m = Math.hypot(l[0], l[1], l[2]); return [l[0] / m, l[1] / m, l[2] / m]; })();
  // a dart in body axes (x forward, y up, z right), in body radii, inside the body's sphere:
  // nose, right tip, notch, left tip
  var DART = [1, 0, 0, -0.62, 0, 0.78, -0.28, 0, 0, -0.62, 0, -0.78];
  // the fin standing on the spine: front foot, back foot, top
  var FIN = [0.22, 0, 0, -0.59, 0, 0, -0.59, 0.5, 0];
  var SPHERE_SHADE = 11;                          // the lighting level of a flat (batched) sphere
  var view3 = null;
  // The 3D view's state for the recording ingested last (null in 2D); a live page calls it
  // again after each load, since the agent count sizes its arrays.
  function makeView3() {
    if (dims !== 3) { view3 = null; return; }
    view3 = {
      on: true, yaw: 0, pitch: 0, dist: 50, tx: 0, ty: 0, tz: 0,
      // camera frame, refreshed by camera3()
      ex: 0, ey: 0, ez: 0, rx: 1, ry: 0, rz: 0, ux: 0, uy: 1, uz: 0, fx: 0, fy: 0, fz: -1, F: 1, near: 0.05,
      box: null, floor: 0, ground: null, grid: 1, radius: 1,
      interp: { pos: new Float32Array(3 * n), att: new Float32Array(4 * n), hasAtt: false },
      ax: new Float32Array(n), ay: new Float32Array(n), az: new Float32Array(n), ar: new Float32Array(n),
      // depth-sort keys, path segments and body colours, made by setup3(); scratch for clipping
      keys: null, keyBase: 1, segs: null, segPath: null, shades: null, clip: new Float64Array(96), clipTmp: new Float64Array(96)
    };
  }
  makeView3();

  // The scene's box: the volume, or everything in the recording, with a little room.
  function sceneBox3() {
    var e = { x0: Infinity, y0: Infinity, z0: Infinity, x1: -Infinity, y1: -Infinity, z1: -Infinity };
    function add(x, y, z) {
      if (!isFinite(x) || !isFinite(y) || !isFinite(z)) return;
      if (x < e.x0) e.x0 = x; if (x > e.x1) e.x1 = x;
      if (y < e.y0) e.y0 = y; if (y > e.y1) e.y1 = y;
      if (z < e.z0) e.z0 = z; if (z > e.z1) e.z1 = z;
    }
    if (volume) { add(volume.min[0], volume.min[1], volume.min[2]); add(volume.max[0], volume.max[1], volume.max[2]); return e; }
    spheres.forEach(function (c) { add(c.center[0] - c.radius, c.center[1] - c.radius, c.center[2] - c.radius); add(c.center[0] + c.radius, c.center[1] + c.radius, c.center[2] + c.radius); });
    cuboids.forEach(function (b) { add(b.min[0], b.min[1], b.min[2]); add(b.max[0], b.max[1], b.max[2]); });
    (world.paths || []).forEach(function (p) { p.points.forEach(function (q) { var w = pathPoint3(q); add(w[0], w[1], w[2]); }); });
    if (bounds) { add(bounds.x0, 0, -bounds.y1); add(bounds.x1, 0, -bounds.y0); }
    var stride = Math.max(1, Math.floor(frameCount / 200));
    for (var fi = 0; fi < frameCount; fi += stride) {
      var p = frames[fi].pos3;
      for (var i = 0; i < n; i++) add(p[3 * i], p[3 * i + 1], p[3 * i + 2]);
    }
    if (e.x0 > e.x1) return { x0: -10, y0: 0, z0: -10, x1: 10, y1: 5, z1: 10 };
    var pad = 1 + 0.03 * Math.max(e.x1 - e.x0, e.y1 - e.y0, e.z1 - e.z0);
    return { x0: e.x0 - pad, y0: e.y0, z0: e.z0 - pad, x1: e.x1 + pad, y1: e.y1 + pad, z1: e.z1 + pad };
  }
  // A path point in 3D: [x, y, z] as is; an older ground point [x, −z] on the floor.
  function pathPoint3(q) { return q.length >= 3 ? q : [q[0], view3 ? view3.floor : 0, -q[1]]; }

  function setup3() {
    var v = view3;
    v.floor = volume ? volume.min[1] : 0;
    var b = sceneBox3();
    if (!volume) v.floor = Math.min(0, b.y0);
    b.y0 = Math.min(b.y0, v.floor);
    v.box = b;
    // the ground: the volume's floor, the world's bounds, or the scene's footprint
    v.ground = volume ? { x0: volume.min[0], z0: volume.min[2], x1: volume.max[0], z1: volume.max[2] }
      : bounds ? { x0: bounds.x0, z0: -bounds.y1, x1: bounds.x1, z1: -bounds.y0 }
      : { x0: b.x0, z0: b.z0, x1: b.x1, z1: b.z1 };
    var span = Math.max(v.ground.x1 - v.ground.x0, v.ground.z1 - v.ground.z0, 1e-3);
    var raw = span / 14, p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;
    v.grid = (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
    v.radius = 0.5 * Math.hypot(b.x1 - b.x0, b.y1 - b.y0, b.z1 - b.z0);
    // path segments, sorted with the bodies
    var segs = [], owner = [];
    (world.paths || []).forEach(function (path, pi) {
      var pts = path.points.map(pathPoint3), count = pts.length;
      var last = path.looping && count > 2 ? count : count - 1;
      for (var i = 0; i < last; i++) {
        var a = pts[i], c = pts[(i + 1) % count];
        segs.push(a[0], a[1], a[2], c[0], c[1], c[2]);
        owner.push(pi);
      }
    });
    v.segs = Float32Array.from(segs);
    v.segPath = Uint32Array.from(owner);
    var items = n + spheres.length + cuboids.length + owner.length;
    v.keys = new Float64Array(items);
    v.keyBase = Math.pow(2, Math.ceil(Math.log2(items + 1)));
    // body colours by lighting and haze, made once
    var bg = parseHex(COLORS.background);
    v.shades = groups.map(function (g) {
      var rgb = parseHex(g.colour), out = [];
      for (var fog = 0; fog < FOGS; fog++) {
        var h = 0.45 * fog / (FOGS - 1);
        for (var l = 0; l < SHADES; l++) {
          var k = 0.5 + 0.72 * l / (SHADES - 1);
          out.push("rgb(" + rgb.map(function (x, i) {
            var lit = k < 1 ? x * k : x + (255 - x) * (k - 1);
            return Math.round(lit + (bg[i] - lit) * h);
          }).join(",") + ")");
        }
      }
      return out;
    });
    resetView3(true);
  }

  function resetView3(quiet) {
    var v = view3, b = v.box;
    v.tx = (b.x0 + b.x1) / 2;
    v.ty = v.floor + 0.35 * (b.y1 - v.floor);
    v.tz = (b.z0 + b.z1) / 2;
    v.yaw = -0.5;
    v.pitch = 0.5;
    // the nearest distance at which the box's eight corners are all in the picture, with a margin
    v.dist = 1;
    camera3();
    var tanV = Math.tan(FOV / 2) * 0.94, tanH = tanV * Math.max(0.2, cssW / cssH), need = 1;
    for (var i = 0; i < 8; i++) {
      var cx = (i & 1 ? b.x1 : b.x0) - v.tx, cy = (i & 2 ? b.y1 : v.floor) - v.ty, cz = (i & 4 ? b.z1 : b.z0) - v.tz;
      var x = cx * v.rx + cy * v.ry + cz * v.rz, y = cx * v.ux + cy * v.uy + cz * v.uz, z = cx * v.fx + cy * v.fy + cz * v.fz;
      // a corner at depth dist + z is in view when |x| ≤ tanH·(dist + z) and |y| ≤ tanV·(dist + z)
      need = Math.max(need, Math.abs(x) / tanH - z, Math.abs(y) / tanV - z);
    }
    v.dist = need;
    state.follow = false;
    if (!quiet) requestDraw();
  }

  function camera3() {
    var v = view3, cp = Math.cos(v.pitch), sp = Math.sin(v.pitch), cy = Math.cos(v.yaw), sy_ = Math.sin(v.yaw);
    var ox = cp * sy_, oy = sp, oz = cp * cy;   // unit vector from the target to the eye
    v.ex = v.tx + v.dist * ox; v.ey = v.ty + v.dist * oy; v.ez = v.tz + v.dist * oz;
    v.fx = -ox; v.fy = -oy; v.fz = -oz;
    // right = forward × up(+y), normalised; up = right × forward
    var rx = -v.fz, rz = v.fx, rl = Math.hypot(rx, rz) || 1;
    v.rx = rx / rl; v.ry = 0; v.rz = rz / rl;
    v.ux = v.ry * v.fz - v.rz * v.fy; v.uy = v.rz * v.fx - v.rx * v.fz; v.uz = v.rx * v.fy - v.ry * v.fx;
    v.F = (cssH / 2) / Math.tan(FOV / 2);
    v.near = Math.max(0.02, v.dist * 0.002);
  }

  // Projection of a world point: sets PX, PY (CSS px) and PZ (depth, m); false behind the camera.
  var PX = 0, PY = 0, PZ = 0;
  function proj(x, y, z) {
    var v = view3, dx = x - v.ex, dy = y - v.ey, dz = z - v.ez;
    PZ = dx * v.fx + dy * v.fy + dz * v.fz;
    if (!(PZ > v.near)) return false;
    var k = v.F / PZ;
    PX = cssW / 2 + (dx * v.rx + dy * v.ry + dz * v.rz) * k;
    PY = cssH / 2 - (dx * v.ux + dy * v.uy + dz * v.uz) * k;
    return true;
  }
  function depth3(x, y, z) { var v = view3; return (x - v.ex) * v.fx + (y - v.ey) * v.fy + (z - v.ez) * v.fz; }
  // A segment, cut at the near plane.
  function seg3(x0, y0, z0, x1, y1, z1) {
    var near = view3.near, d0 = depth3(x0, y0, z0), d1 = depth3(x1, y1, z1);
    if (!(d0 > near) && !(d1 > near)) return;
    if (!(d0 > near)) { var t = (near * 1.001 - d0) / (d1 - d0); x0 += (x1 - x0) * t; y0 += (y1 - y0) * t; z0 += (z1 - z0) * t; }
    else if (!(d1 > near)) { var u = (near * 1.001 - d1) / (d0 - d1); x1 += (x0 - x1) * u; y1 += (y0 - y1) * u; z1 += (z0 - z1) * u; }
    if (!proj(x0, y0, z0)) return;
    ctx.moveTo(PX, PY);
    if (proj(x1, y1, z1)) ctx.lineTo(PX, PY);
  }
  // A flat polygon (xyz triples in view3.clip, `count` points) cut at the near plane, added to the path.
  function poly3(count) {
    var v = view3, src = v.clip, dst = v.clipTmp, near = v.near * 1.001, m = 0, i;
    var allIn = true;
    for (i = 0; i < count; i++) if (!(depth3(src[3 * i], src[3 * i + 1], src[3 * i + 2]) > near)) { allIn = false; break; }
    if (!allIn) {
      for (i = 0; i < count && m < 30; i++) {
        var j = (i + 1) % count;
        var ax = src[3 * i], ay = src[3 * i + 1], az = src[3 * i + 2], bx = src[3 * j], by = src[3 * j + 1], bz = src[3 * j + 2];
        var da = depth3(ax, ay, az) - near, db = depth3(bx, by, bz) - near;
        if (da >= 0) { dst[3 * m] = ax; dst[3 * m + 1] = ay; dst[3 * m + 2] = az; m++; }
        if ((da >= 0) !== (db >= 0)) {
          var t = da / (da - db);
          dst[3 * m] = ax + (bx - ax) * t; dst[3 * m + 1] = ay + (by - ay) * t; dst[3 * m + 2] = az + (bz - az) * t; m++;
        }
      }
      if (m < 3) return;
      src = dst; count = m;
    }
    for (i = 0; i < count; i++) {
      proj(src[3 * i], src[3 * i + 1], src[3 * i + 2]);
      if (i) ctx.lineTo(PX, PY); else ctx.moveTo(PX, PY);
    }
    ctx.closePath();
  }
  // A horizontal circle (ground footprints, wander rings) as a polygon or a closed line.
  function ring3(x, y, z, r, fill) {
    var c = view3.clip, k = 24;
    if (fill) {
      for (var i = 0; i < k; i++) { var a = i / k * 2 * Math.PI; c[3 * i] = x + r * Math.cos(a); c[3 * i + 1] = y; c[3 * i + 2] = z + r * Math.sin(a); }
      poly3(k);
      return;
    }
    for (var j = 0; j < k; j++) {
      var a0 = j / k * 2 * Math.PI, a1 = (j + 1) / k * 2 * Math.PI;
      seg3(x + r * Math.cos(a0), y, z + r * Math.sin(a0), x + r * Math.cos(a1), y, z + r * Math.sin(a1));
    }
  }

  // Positions and attitudes at the current (fractional) step, as agentState() does in 2D.
  function agentState3() {
    var I = view3.interp, i = state.frame, a = frames[i], b = frames[Math.min(i + 1, frameCount - 1)];
    var t = b.step > a.step ? Math.min(Math.max((state.step - a.step) / (b.step - a.step), 0), 1) : 0;
    var P = I.pos, Q = I.att, A = a.pos3, B = b.pos3, qa = a.att, qb = b.att;
    I.hasAtt = !!qa;
    for (var k = 0; k < n; k++) {
      var o = 3 * k, ax = A[o], ay = A[o + 1], az = A[o + 2], bx = B[o], by = B[o + 1], bz = B[o + 2];
      var dx = bx - ax, dy = by - ay, dz = bz - az;
      var jump = !(isFinite(bx) && isFinite(by) && isFinite(bz)) || (wrapJump && (Math.abs(dx) > wrapJump.x || Math.abs(dz) > wrapJump.y));
      var q = 4 * k;
      if (jump || t === 0) {
        P[o] = ax; P[o + 1] = ay; P[o + 2] = az;
        if (qa) { Q[q] = qa[q]; Q[q + 1] = qa[q + 1]; Q[q + 2] = qa[q + 2]; Q[q + 3] = qa[q + 3]; }
        continue;
      }
      P[o] = ax + dx * t; P[o + 1] = ay + dy * t; P[o + 2] = az + dz * t;
      if (!qa) continue;
      var x0 = qa[q], y0 = qa[q + 1], z0 = qa[q + 2], w0 = qa[q + 3];
      if (!qb || !isFinite(qb[q])) { Q[q] = x0; Q[q + 1] = y0; Q[q + 2] = z0; Q[q + 3] = w0; continue; }
      // normalised lerp, the short way round
      var sgn = x0 * qb[q] + y0 * qb[q + 1] + z0 * qb[q + 2] + w0 * qb[q + 3] < 0 ? -1 : 1;
      Q[q] = x0 + (sgn * qb[q] - x0) * t; Q[q + 1] = y0 + (sgn * qb[q + 1] - y0) * t;
      Q[q + 2] = z0 + (sgn * qb[q + 2] - z0) * t; Q[q + 3] = w0 + (sgn * qb[q + 3] - w0) * t;
    }
    return I;
  }

  // Body axes of agent k into B (forward, up, right; 9 values): from its attitude, else from its
  // velocity (or heading) with the wings level.
  var B = new Float64Array(9);
  function bodyAxes(k, s, f) {
    var q = 4 * k;
    if (s.hasAtt) {
      var x = s.att[q], y = s.att[q + 1], z = s.att[q + 2], w = s.att[q + 3], m = Math.hypot(x, y, z, w);
      if (m > 1e-6 && isFinite(m)) {
        x /= m; y /= m; z /= m; w /= m;
        B[0] = 1 - 2 * (y * y + z * z); B[1] = 2 * (x * y + w * z); B[2] = 2 * (x * z - w * y);
        B[3] = 2 * (x * y - w * z); B[4] = 1 - 2 * (x * x + z * z); B[5] = 2 * (y * z + w * x);
        B[6] = 2 * (x * z + w * y); B[7] = 2 * (y * z - w * x); B[8] = 1 - 2 * (x * x + y * y);
        return;
      }
    }
    var vx = f.vel3[3 * k], vy = f.vel3[3 * k + 1], vz = f.vel3[3 * k + 2], v = Math.hypot(vx, vy, vz);
    if (!(v > 1e-3)) { var h = f.ori[k]; vx = Math.cos(h); vy = 0; vz = -Math.sin(h); v = 1; }
    var fx = vx / v, fy = vy / v, fz = vz / v;
    // right = forward × up(+y)
    var rx = -fz, rz = fx, rl = Math.hypot(rx, rz);
    if (rl < 1e-6) { rx = 0; rz = 1; rl = 1; }
    rx /= rl; rz /= rl;
    B[0] = fx; B[1] = fy; B[2] = fz;
    B[3] = -rz * fy; B[4] = rz * fx - rx * fz; B[5] = rx * fy;   // up = right × forward
    B[6] = rx; B[7] = 0; B[8] = rz;
  }

  // 0..1: how brightly a face with normal (nx, ny, nz) at p is lit, turned to the camera.
  function lit(nx, ny, nz, px, py, pz) {
    var v = view3;
    if ((v.ex - px) * nx + (v.ey - py) * ny + (v.ez - pz) * nz < 0) { nx = -nx; ny = -ny; nz = -nz; }
    return Math.max(0, nx * LIGHT[0] + ny * LIGHT[1] + nz * LIGHT[2]);
  }
  function fogLevel(z) {
    var v = view3, t = (z - (v.dist - v.radius)) / (2 * v.radius);
    return Math.max(0, Math.min(FOGS - 1, Math.round(t * (FOGS - 1))));
  }

  function drawGround3() {
    var v = view3, g = v.ground, y = v.floor, c = v.clip;
    c[0] = g.x0; c[1] = y; c[2] = g.z0; c[3] = g.x1; c[4] = y; c[5] = g.z0;
    c[6] = g.x1; c[7] = y; c[8] = g.z1; c[9] = g.x0; c[10] = y; c[11] = g.z1;
    ctx.beginPath();
    poly3(4);
    ctx.fillStyle = COLORS.world;
    ctx.fill();
    var step = v.grid, major = step * 5;
    ctx.lineWidth = 1;
    [[step, COLORS.grid], [major, COLORS.gridMajor]].forEach(function (gl) {
      ctx.strokeStyle = gl[1];
      ctx.beginPath();
      for (var x = Math.ceil(g.x0 / gl[0]) * gl[0]; x <= g.x1 + 1e-9; x += gl[0]) seg3(x, y, g.z0, x, y, g.z1);
      for (var z = Math.ceil(g.z0 / gl[0]) * gl[0]; z <= g.z1 + 1e-9; z += gl[0]) seg3(g.x0, y, z, g.x1, y, z);
      ctx.stroke();
    });
    ctx.strokeStyle = COLORS.bounds;
    ctx.lineWidth = 1.5;
    ctx.setLineDash(world.wrap ? [6, 4] : []);
    ctx.beginPath();
    c[0] = g.x0; c[1] = y; c[2] = g.z0; c[3] = g.x1; c[4] = y; c[5] = g.z0;
    c[6] = g.x1; c[7] = y; c[8] = g.z1; c[9] = g.x0; c[10] = y; c[11] = g.z1;
    poly3(4);
    ctx.stroke();
    ctx.setLineDash([]);
    // the world's ground-plane shapes, on the floor
    ctx.fillStyle = COLORS.obstacleFill;
    ctx.strokeStyle = COLORS.obstacleStroke;
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    (world.circles || []).forEach(function (o) { ring3(o.center[0], y, -o.center[1], o.radius, true); });
    (world.boxes || []).forEach(function (b) {
      c[0] = b.min[0]; c[1] = y; c[2] = -b.min[1]; c[3] = b.max[0]; c[4] = y; c[5] = -b.min[1];
      c[6] = b.max[0]; c[7] = y; c[8] = -b.max[1]; c[9] = b.min[0]; c[10] = y; c[11] = -b.max[1];
      poly3(4);
    });
    (world.polygons || []).forEach(function (p) {
      if (p.points.length > 30) return;
      p.points.forEach(function (q, i) { c[3 * i] = q[0]; c[3 * i + 1] = y; c[3 * i + 2] = -q[1]; });
      poly3(p.points.length);
    });
    ctx.fill();
    ctx.stroke();
    if (world.walls && world.walls.length) {
      ctx.strokeStyle = COLORS.wall;
      ctx.lineWidth = 3;
      ctx.lineCap = "round";
      ctx.beginPath();
      world.walls.forEach(function (w) { seg3(w.a[0], y, -w.a[1], w.b[0], y, -w.b[1]); });
      ctx.stroke();
      ctx.lineCap = "butt";
    }
    // shadows of the spheres and the paths, straight down
    ctx.fillStyle = "rgba(40,52,75,0.10)";
    ctx.beginPath();
    spheres.forEach(function (o) { ring3(o.center[0], y, o.center[2], o.radius, true); });
    ctx.fill();
    if (state.layers.paths && v.segs.length) {
      ctx.strokeStyle = "rgba(20,160,152,0.22)";
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      for (var i = 0; i < v.segs.length; i += 6) seg3(v.segs[i], y, v.segs[i + 2], v.segs[i + 3], y, v.segs[i + 5]);
      ctx.stroke();
    }
  }

  function drawVolume3() {
    if (!volume) return;
    var a = volume.min, b = volume.max;
    ctx.strokeStyle = COLORS.bounds;
    ctx.lineWidth = 1.25;
    ctx.beginPath();
    for (var i = 0; i < 4; i++) {
      var x = i & 1 ? b[0] : a[0], z = i & 2 ? b[2] : a[2];
      seg3(x, a[1], z, x, b[1], z);                         // uprights
    }
    for (var j = 0; j < 2; j++) {
      var y = j ? b[1] : a[1];
      seg3(a[0], y, a[2], b[0], y, a[2]); seg3(b[0], y, a[2], b[0], y, b[2]);
      seg3(b[0], y, b[2], a[0], y, b[2]); seg3(a[0], y, b[2], a[0], y, a[2]);
    }
    ctx.stroke();
  }

  // Shadows of the agents on the ground, and (few agents) a line down to each.
  function drawShadows3(s, visible) {
    var v = view3, P = s.pos, y = v.floor, k, x, z;
    ctx.fillStyle = "rgba(30,40,60,0.16)";
    ctx.beginPath();
    for (k = 0; k < n; k++) {
      if (!inView[k]) continue;
      x = P[3 * k]; z = P[3 * k + 2];
      if (!proj(x, y, z)) continue;
      var r = Math.max(1.5, v.ar[k] * 0.9);
      var dx = x - v.ex, dy = y - v.ey, dz = z - v.ez;
      var squash = Math.max(0.15, Math.abs(dy) / (Math.hypot(dx, dy, dz) || 1));
      ctx.moveTo(PX + r, PY);
      ctx.ellipse(PX, PY, r, r * squash, 0, 0, 2 * Math.PI);
    }
    ctx.fill();
    if (visible > OVERLAY_AGENT_LIMIT && state.selected < 0) return;
    ctx.strokeStyle = "rgba(30,40,60,0.16)";
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (k = 0; k < n; k++) {
      if (!inView[k] || (visible > OVERLAY_AGENT_LIMIT && k !== state.selected)) continue;
      seg3(P[3 * k], P[3 * k + 1], P[3 * k + 2], P[3 * k], y, P[3 * k + 2]);
    }
    ctx.stroke();
  }

  function traceTrail3(k, from, to, stride) {
    var pen = false, px = 0, pz = 0;
    for (var f = from; f <= to; f = f === to ? f + 1 : Math.min(f + stride, to)) {
      var P = frames[f].pos3, x = P[3 * k], y = P[3 * k + 1], z = P[3 * k + 2];
      if (!isFinite(x) || !isFinite(y) || !isFinite(z) || !proj(x, y, z)) { pen = false; continue; }
      if (pen && wrapJump && (Math.abs(x - px) > wrapJump.x || Math.abs(z - pz) > wrapJump.y)) pen = false;
      if (pen) ctx.lineTo(PX, PY); else ctx.moveTo(PX, PY);
      pen = true; px = x; pz = z;
    }
  }
  function drawTrails3(visible) {
    bandedTrails(inView, visible, traceTrail3, [1, "bevel", 0.14, 0.18]);
  }
  function drawSelectedTrail3() {
    var k = state.selected;
    if (k < 0) return;
    ctx.strokeStyle = groupStroke[agentGroup[k]] || COLORS.select;
    ctx.globalAlpha = 0.55;
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    traceTrail3(k, 0, state.frame, 1);
    ctx.stroke();
    ctx.globalAlpha = 1;
  }

