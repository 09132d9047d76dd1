// steerkit replay player, part 3 of 7: turrets and their shots (3D recordings).
// The parts are one script, joined in order into replay.html (steerkit_scenario::recording::PLAYER).
  // ---------- turrets and their shots (3D recordings) ----------
  var SHOT_LINGER = 1.5;   // s an impact stays drawn
  // A shot's position at (fractional) step t, from its sampled flight.
  function shotAt(sh, t) {
    var p = sh.path, i = 0;
    if (!p.length) return null;
    while (i + 1 < p.length && p[i + 1][0] <= t) i++;
    var a = p[i], b = p[Math.min(i + 1, p.length - 1)];
    var u = b[0] > a[0] ? Math.min(Math.max((t - a[0]) / (b[0] - a[0]), 0), 1) : 0;
    return [a[1] + (b[1] - a[1]) * u, a[2] + (b[2] - a[2]) * u, a[3] + (b[3] - a[3]) * u];
  }
  // Predicted arcs (dashed), flights so far (solid), projectiles, impacts and predicted blasts,
  // in the 3D view (`three`) or seen from above on the ground plane (x, −z).
  function drawShots(three) {
    if (!turrets.length) return;
    var t = state.step, linger = SHOT_LINGER / dt;
    function L(a, b) {
      if (three) seg3(a[0], a[1], a[2], b[0], b[1], b[2]);
      else { ctx.moveTo(sx(a[0]), sy(-a[2])); ctx.lineTo(sx(b[0]), sy(-b[2])); }
    }
    function at(a) {
      if (three) return proj(a[0], a[1], a[2]) ? [PX, PY] : null;
      return [sx(a[0]), sy(-a[2])];
    }
    function ring(c, r, fill) {
      if (three) { ring3(c[0], 0, c[2], r, fill); return; }
      circle(c[0], -c[2], r);
    }
    var lastArc = turrets.map(function () { return null; });
    shots.forEach(function (sh) {
      if (sh.step <= t) lastArc[sh.turret] = sh.arc;
      if (t < sh.step || t > sh.end + linger) return;
      var col = (turrets[sh.turret] || {}).colour || "#333", i, pr = sh.predicted, flying = t <= sh.end;
      ctx.strokeStyle = col;
      if (flying) {
        ctx.globalAlpha = 0.55; ctx.setLineDash([5, 4]); ctx.lineWidth = 1.25;
        ctx.beginPath();
        for (i = 0; i + 1 < pr.length; i++) L(pr[i], pr[i + 1]);
        ctx.stroke();
        ctx.setLineDash([]);
        if (sh.blast_radius && pr.length) {
          // the predicted blast the runner hands to the crowd as a hazard
          ctx.globalAlpha = 0.12; ctx.fillStyle = col; ctx.beginPath(); ring(pr[pr.length - 1], sh.blast_radius, true); ctx.fill();
        }
        ctx.globalAlpha = 1;
      }
      var now = shotAt(sh, Math.min(t, sh.end)), p = sh.path;
      ctx.lineWidth = 2; ctx.beginPath();
      for (i = 0; i + 1 < p.length && p[i + 1][0] <= t; i++) L([p[i][1], p[i][2], p[i][3]], [p[i + 1][1], p[i + 1][2], p[i + 1][3]]);
      if (now && i < p.length) L([p[i][1], p[i][2], p[i][3]], now);
      ctx.stroke();
      var q = now && at(now);
      if (flying && q) { ctx.fillStyle = col; ctx.beginPath(); ctx.arc(q[0], q[1], 3.5, 0, 2 * Math.PI); ctx.fill(); }
      if (!flying) {
        var im = at(sh.impact);
        if (sh.outcome === "blast") {
          ctx.globalAlpha = 0.3; ctx.fillStyle = "#f59e0b"; ctx.beginPath(); ring(sh.impact, sh.blast_radius || 1, true); ctx.fill(); ctx.globalAlpha = 1;
        } else if (im) {
          var hit = sh.outcome === "hit", r = hit ? 7 : 5;
          ctx.strokeStyle = hit ? "#dc2626" : "#6b7280"; ctx.lineWidth = 2; ctx.beginPath();
          ctx.moveTo(im[0] - r, im[1] - r); ctx.lineTo(im[0] + r, im[1] + r); ctx.moveTo(im[0] - r, im[1] + r); ctx.lineTo(im[0] + r, im[1] - r);
          ctx.stroke();
        }
      }
    });
    ctx.globalAlpha = 1;
    turrets.forEach(function (tu, i) {
      var q = at(tu.position);
      if (!q) return;
      ctx.fillStyle = tu.colour; ctx.strokeStyle = "#111"; ctx.lineWidth = 1;
      ctx.beginPath(); ctx.rect(q[0] - 6, q[1] - 6, 12, 12); ctx.fill(); ctx.stroke();
      ctx.fillStyle = "#111"; ctx.font = "12px " + getComputedStyle(document.body).fontFamily;
      ctx.fillText(tu.name + (lastArc[i] ? " · " + lastArc[i] + " arc" : ""), q[0] + 9, q[1] - 8);
    });
  }

  function drawAgents(s, inView, visibleCount) {
    var outline = visibleCount <= OUTLINE_AGENT_LIMIT, darts = state.layers.darts;
    var controls = frames[state.frame] && frames[state.frame].controls;
    ctx.lineJoin = "round";
    for (var gi = 0; gi < groups.length; gi++) {
      if (!groupVisible[gi]) continue;
      var members = groupAgents[gi];
      if (groups[gi].vehicle && !darts) {
        for (var vm = 0; vm < members.length; vm++) if (inView[members[vm]]) drawVehicle(gi, members[vm], s, controls);
        continue;
      }
      var r = Math.max(groups[gi].radius * state.scale, MIN_BODY_PX);
      var rf = outline && !darts ? r - 0.5 : r;   // the fill's radius: the outline's outer edge on the rim
      var mark = !darts && r >= MARK_BODY_PX, markWidth = Math.min(Math.max(r * 0.14, 1), 2.5);
      // marks as thin as the outline go in the bodies' path (a line adds nothing to the fill)
      var together = mark && outline && markWidth === 1;
      var m, k, X, Y, h, c, sn;
      ctx.beginPath();
      for (m = 0; m < members.length; m++) {
        k = members[m];
        if (!inView[k]) continue;
        X = sx(s.pos[2 * k]); Y = sy(s.pos[2 * k + 1]);
        if (!darts) {
          ctx.moveTo(X + rf, Y); ctx.arc(X, Y, rf, 0, 2 * Math.PI);
          if (together) { h = s.ori[k]; ctx.moveTo(X, Y); ctx.lineTo(X + rf * Math.cos(h), Y - rf * Math.sin(h)); }
          continue;
        }
        h = s.ori[k]; c = Math.cos(h); sn = -Math.sin(h); // screen y points down
        // a dart: nose 1.5 r ahead, tail corners and a notch behind
        ctx.moveTo(X + 1.5 * r * c, Y + 1.5 * r * sn);
        ctx.lineTo(X - r * c - 0.9 * r * sn, Y - r * sn + 0.9 * r * c);
        ctx.lineTo(X - 0.55 * r * c, Y - 0.55 * r * sn);
        ctx.lineTo(X - r * c + 0.9 * r * sn, Y - r * sn - 0.9 * r * c);
        ctx.closePath();
      }
      ctx.fillStyle = groupFill[gi];
      ctx.fill();
      if (outline) {
        ctx.strokeStyle = groupStroke[gi];
        ctx.lineWidth = 1;
        ctx.stroke();
      }
      if (!mark || together) continue;
      ctx.beginPath();
      for (m = 0; m < members.length; m++) {
        k = members[m];
        if (!inView[k]) continue;
        X = sx(s.pos[2 * k]); Y = sy(s.pos[2 * k + 1]); h = s.ori[k];
        ctx.moveTo(X, Y);
        ctx.lineTo(X + rf * Math.cos(h), Y - rf * Math.sin(h));
      }
      ctx.strokeStyle = groupStroke[gi];
      ctx.lineWidth = markWidth;
      ctx.stroke();
    }
    var k2 = state.selected;
    if (k2 >= 0 && isFinite(s.pos[2 * k2])) {
      var R = Math.max((groups[agentGroup[k2]] || { radius: 0.5 }).radius * state.scale * 1.9, 10);
      ctx.strokeStyle = COLORS.select;
      ctx.lineWidth = 1.5;
      ctx.setLineDash([4, 3]);
      ctx.beginPath();
      ctx.arc(sx(s.pos[2 * k2]), sy(s.pos[2 * k2 + 1]), R, 0, 2 * Math.PI);
      ctx.stroke();
      ctx.setLineDash([]);
    }
  }

  // The length unit of the recording: metres unless its metadata names another (px for PTSP).
  function unit() { return (meta && meta.unit) || "m"; }

  function drawScaleBar() {
    var m = niceStep(90), w = m * state.scale, x = 14, y = cssH - 16;
    ctx.fillStyle = "rgba(255,255,255,.85)";
    ctx.fillRect(x - 6, y - 18, w + 52, 26);
    ctx.strokeStyle = "#4b5563";
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    ctx.moveTo(x, y - 4); ctx.lineTo(x, y); ctx.lineTo(x + w, y); ctx.lineTo(x + w, y - 4);
    ctx.stroke();
    ctx.fillStyle = "#374151";
    ctx.font = "11px " + getComputedStyle(document.body).getPropertyValue("--font");
    ctx.fillText((m >= 1 ? m.toFixed(0) : m.toPrecision(1)) + " " + unit(), x + w + 6, y);
  }

