// Opens a steerkit replay.html in headless Chromium, plays it and checks that it works.
//
//   node tests/browser/replay.mjs [REPLAY_HTML] [SCREENSHOT_PNG]
//
// REPLAY_HTML defaults to $REPLAY_HTML or out/browser/replay.html (written by
// `cargo test -p steerkit-cli --test replay`); any replay of a scenario run works too
// (`steerkit run crossing --out out/browser/crossing` writes out/browser/crossing/replay.html).
// The screenshot defaults to $REPLAY_SCREENSHOT or replay.png beside the HTML file. Chromium is $CHROMIUM or /usr/bin/chromium.
// A 3D recording (out/browser/replay3d.html) opens in the 3D view: it is also orbited, zoomed,
// panned, reset and switched to the top view and back, and a second screenshot is saved after the
// orbit (SCREENSHOT_PNG with "-orbit" before ".png"); a 3D crowd written beside
// (crowd3d-replay.html) is timed.
// Every replay must start playing by itself; opening it with `#t=…&paused` and `#f=…` must show
// that moment, and scrubbing must write the moment into the address. On a 2D recording, the
// drawn diameter of an isolated agent is measured in canvas pixels and compared with its
// group's radius at the current zoom (on out/browser/bodies/replay.html, written by the replay
// test, also a touching pair and a pair 0.3 m apart); a 2000-agent crowd written beside
// (crowd-replay.html) is timed.
// Exits non-zero with a message on the first failed check.

import { chromium } from "playwright-core";
import { mkdtempSync, rmSync, existsSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const htmlPath = resolve(process.argv[2] || process.env.REPLAY_HTML || join(root, "out/browser/replay.html"));
const shotPath = resolve(process.argv[3] || process.env.REPLAY_SCREENSHOT || join(dirname(htmlPath), "replay.png"));
const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";

function check(condition, message) {
  if (!condition) throw new Error("check failed: " + message);
  console.log("  ok  " + message);
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

if (!existsSync(htmlPath)) {
  console.error(`no replay at ${htmlPath}: run \`cargo test -p steerkit-cli --test replay\` first`);
  process.exit(2);
}

const userDataDir = mkdtempSync(join(tmpdir(), "steerkit-chromium-"));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath,
  headless: true,
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
  viewport: { width: 1440, height: 900 },
  deviceScaleFactor: 1,
});

const problems = [];
const foreign = [];
let exitCode = 0;
try {
  const page = context.pages()[0] || (await context.newPage());
  page.on("console", (m) => { if (m.type() === "error") problems.push("console error: " + m.text()); });
  page.on("pageerror", (e) => problems.push("page error: " + e.message));
  page.on("request", (r) => { if (!r.url().startsWith("file:") && !r.url().startsWith("data:")) foreign.push(r.url()); });

  console.log(`replay: ${htmlPath} (${(statSync(htmlPath).size / 1e6).toFixed(2)} MB)`);
  await page.goto(pathToFileURL(htmlPath).href, { waitUntil: "load" });
  await page.waitForFunction(() => window.steerkitReplay !== undefined, null, { timeout: 10000 });
  const info = await page.evaluate(() => ({ frames: steerkitReplay.frameCount, agents: steerkitReplay.agentCount, dims: steerkitReplay.dims, view: steerkitReplay.view }));
  check(info.frames > 10 && info.agents > 0, `recording loaded: ${info.agents} agents, ${info.frames} frames, ${info.dims}D`);
  if (info.dims === 3) check(info.view === "3d", "a 3D recording opens in the 3D view");
  const title = (await page.textContent("#description")) || "";
  check(title.length > 20, `the scenario's description is shown ("${title.slice(0, 40)}...")`);

  // A digest of the canvas: how many pixels are strongly coloured (agents, overlays) and a hash.
  const canvasState = () => page.evaluate(() => {
    const c = document.getElementById("view");
    const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let coloured = 0, hash = 2166136261;
    for (let i = 0; i < d.length; i += 4) {
      const r = d[i], g = d[i + 1], b = d[i + 2];
      if (Math.max(r, g, b) - Math.min(r, g, b) > 60) coloured++;
      hash = Math.imul(hash ^ (r | (g << 8) | (b << 16)), 16777619) >>> 0;
    }
    return { coloured, hash, width: c.width, height: c.height };
  });
  const state = () => page.evaluate(() => ({
    frame: steerkitReplay.frame, playing: steerkitReplay.playing, scale: steerkitReplay.scale,
    selected: steerkitReplay.selected, layers: steerkitReplay.layers(), view: steerkitReplay.view,
  }));

  // The recording itself, as embedded in the page (for the truth the player is checked against).
  const recording = () => page.evaluate(() => {
    const r = JSON.parse(document.getElementById("recording").textContent);
    return { dt: r.meta.dt, scenario: r.meta.scenario, steps: r.frames.map((f) => f.step), groups: r.groups, agentGroups: r.agent_groups, world: r.world || {} };
  });
  const frameOf = (k) => page.evaluate((k) => {
    const f = JSON.parse(document.getElementById("recording").textContent).frames[k];
    return { position: f.position, orientation: f.orientation };
  }, k);
  const open = async (fragment) => {
    await page.goto("about:blank");
    await page.goto(pathToFileURL(htmlPath).href + fragment, { waitUntil: "load" });
    await page.waitForFunction(() => window.steerkitReplay !== undefined, null, { timeout: 10000 });
  };
  const scrubTo = (v) => page.evaluate((v) => {
    const s = document.getElementById("scrub");
    s.value = String(v);
    s.dispatchEvent(new Event("input", { bubbles: true }));
  }, v);

  // Links to a moment: #t=…&paused, #f=…, invalid fragments, and the address written by a scrub.
  async function checkMoments() {
    const rec = await recording(), N = rec.steps.length, dt = rec.dt;
    const mid = Math.floor(N / 2), midTime = rec.steps[mid] * dt;
    // a time a little after the middle frame: the nearest recorded frame is the middle one
    const asked = (midTime + 0.3 * (rec.steps[mid + 1] - rec.steps[mid]) * dt).toFixed(4);
    await open(`#t=${asked}&paused`);
    await sleep(400);
    const m = await page.evaluate(() => ({ frame: steerkitReplay.frame, playing: steerkitReplay.playing, time: steerkitReplay.time }));
    const label = await page.textContent("#readout");
    check(!m.playing && m.frame === mid && Math.abs(m.time - midTime) < 1e-6,
      `#t=${asked}&paused opens paused on the nearest frame (${m.frame + 1}, t = ${m.time.toFixed(3)} s)`);
    check(label.startsWith(`frame ${mid + 1} / ${N}`) && label.includes(`t = ${midTime.toFixed(2)} s`), `the frame label says "${label}"`);
    check(await page.evaluate(() => location.hash) === `#t=${asked}&paused`, "opening leaves the address as it was");

    // scrubbing writes the moment into the address, without adding history entries
    const historyBefore = await page.evaluate(() => history.length);
    const q = Math.floor(N * 0.7);
    for (const v of [q - 9, q - 5, q - 2, q]) await scrubTo(v);
    await sleep(500);
    const hash = await page.evaluate(() => location.hash);
    const written = /^#t=([0-9.]+)&paused$/.exec(hash);
    check(written && Math.abs(+written[1] - rec.steps[q] * dt) < dt / 2, `a scrub to frame ${q + 1} writes "${hash}" into the address`);
    check(await page.evaluate(() => history.length) === historyBefore, "the address is replaced, not added to the history");
    await page.keyboard.press("ArrowLeft");
    await sleep(500);
    const stepped = /^#t=([0-9.]+)&paused$/.exec(await page.evaluate(() => location.hash));
    check(stepped && Math.abs(+stepped[1] - rec.steps[q - 1] * dt) < dt / 2, "stepping a frame back updates it");
    await page.keyboard.press("Space");
    await sleep(500);
    check(await page.evaluate(() => location.hash) === "", "playing clears it");
    await page.keyboard.press("Space");
    await sleep(500);
    const pausedAt = await page.evaluate(() => ({ frame: steerkitReplay.frame, hash: location.hash }));
    const again = /^#t=([0-9.]+)&paused$/.exec(pausedAt.hash);
    check(again && Math.abs(+again[1] - rec.steps[pausedAt.frame] * dt) < dt / 2, `pausing writes the frame it stops on ("${pausedAt.hash}")`);
    // the written address opens that moment
    await open(pausedAt.hash);
    check(await page.evaluate(() => steerkitReplay.frame) === pausedAt.frame && !(await page.evaluate(() => steerkitReplay.playing)),
      `the written address opens frame ${pausedAt.frame + 1}, paused`);

    // #f counts frames as the label does, and plays
    const f = Math.max(2, Math.floor(N / 3));
    await open(`#f=${f}`);
    const fr = await page.evaluate(() => ({ frame: steerkitReplay.frame, playing: steerkitReplay.playing }));
    check(fr.playing && fr.frame >= f - 1 && fr.frame < f - 1 + 0.25 * N, `#f=${f} opens at frame ${f} and plays (frame ${fr.frame + 1} at once)`);

    // unreadable fragments are ignored: the start, playing, no errors
    for (const bad of ["#t=abc", "#f=0&t=-3", "#t=1e999&f=12x&%E0%A4%A&paused=no", "#t=&f=", "#"]) {
      const before = problems.length;
      await open(bad);
      const s0 = await page.evaluate(() => ({ frame: steerkitReplay.frame, playing: steerkitReplay.playing, time: steerkitReplay.time }));
      check(s0.playing && s0.time < 1.5 && problems.length === before, `"${bad}" is ignored: the replay opens at the start and plays (t = ${s0.time.toFixed(2)} s)`);
    }
    // a fragment typed into the address bar of an open replay is followed
    await page.evaluate(() => { location.hash = "#f=5&paused"; });
    await sleep(200);
    const typed = await page.evaluate(() => ({ frame: steerkitReplay.frame, playing: steerkitReplay.playing }));
    check(typed.frame === 4 && !typed.playing, "a fragment typed into the address moves the open replay there");
    // a viewer who asked for reduced motion gets a still replay
    await page.emulateMedia({ reducedMotion: "reduce" });
    await open("");
    check(!(await page.evaluate(() => steerkitReplay.playing)), "with prefers-reduced-motion the replay opens paused");
    await page.emulateMedia({ reducedMotion: null });
    // left paused in the middle for what follows
    await open(`#t=${midTime}&paused`);
  }

  // Pixels of the canvas round (X, Y) along a direction, counted from the centre while they are at
  // least half the body's colour over the world's white: how far the body reaches (px).
  const reach = (X, Y, dirs, colour) => page.evaluate(([X, Y, dirs, colour]) => {
    const c = document.getElementById("view"), g = c.getContext("2d");
    const hex = parseInt(colour.slice(1), 16), body = [(hex >> 16) & 255, (hex >> 8) & 255, hex & 255];
    const far = Math.hypot(255 - body[0], 255 - body[1], 255 - body[2]);
    const covered = (x, y) => {
      const d = g.getImageData(x, y, 1, 1).data;
      return Math.min(Math.hypot(255 - d[0], 255 - d[1], 255 - d[2]) / far, 1) >= 0.5;
    };
    return dirs.map(([ux, uy]) => {
      let n = 0;
      while (n < 2000 && covered(Math.floor(X + (n + 0.5) * ux), Math.floor(Y + (n + 0.5) * uy))) n++;
      return n;
    });
  }, [X, Y, dirs, colour]);
  // The drawn width and height of agent k's body (px), and the centre of that box.
  async function bodyBox(k, colour) {
    const p = await page.evaluate((k) => steerkitReplay.screenPosition(k), k);
    const [right, left, down, up] = await reach(p.x, p.y, [[1, 0], [-1, 0], [0, 1], [0, -1]], colour);
    return { p, width: right + left, height: down + up, cx: p.x + (right - left) / 2, cy: p.y + (down - up) / 2, right, left };
  }
  // Background pixels on the line from agent a's centre to agent b's (px).
  const gapBetween = (pa, pb, colour) => page.evaluate(([pa, pb, colour]) => {
    const c = document.getElementById("view"), g = c.getContext("2d");
    const hex = parseInt(colour.slice(1), 16), body = [(hex >> 16) & 255, (hex >> 8) & 255, hex & 255];
    const far = Math.hypot(255 - body[0], 255 - body[1], 255 - body[2]);
    const len = Math.hypot(pb.x - pa.x, pb.y - pa.y);
    let empty = 0;
    for (let n = 0; n < len; n++) {
      const x = Math.floor(pa.x + (pb.x - pa.x) * (n + 0.5) / len), y = Math.floor(pa.y + (pb.y - pa.y) * (n + 0.5) / len);
      const d = g.getImageData(x, y, 1, 1).data;
      if (Math.hypot(255 - d[0], 255 - d[1], 255 - d[2]) / far < 0.5) empty++;
    }
    return empty;
  }, [pa, pb, colour]);

  // Bodies are drawn at their radius: an isolated agent's drawn diameter against
  // 2 · radius · pixels per metre, paused, every layer off, nothing selected.
  async function checkBodyScale(box) {
    const rec = await recording(), frame = await page.evaluate(() => steerkitReplay.frame);
    const at = await frameOf(frame);
    await page.keyboard.press("Escape");
    for (const id of await page.evaluate(() => Object.entries(steerkitReplay.layers()).filter(([, on]) => on).map(([id]) => id))) {
      await page.click(`#layer-${id}`);
    }
    check(Object.values(await page.evaluate(() => steerkitReplay.layers())).every((on) => !on), "every layer is off, bodies as discs");
    const radius = (k) => rec.groups[rec.agentGroups[k]].radius, colour = (k) => rec.groups[rec.agentGroups[k]].colour;
    const pos = (k) => [at.position[2 * k], at.position[2 * k + 1]];
    await sleep(100);

    if (rec.scenario === "bodies") {
      // the recording of known bodies: 0 (0.5 m) and 1 (1 m) alone, 8 m apart on a line; 2 and 3
      // touching; 4 and 5 with a 0.3 m gap. Drawn at the fitted zoom.
      const scale = await page.evaluate(() => steerkitReplay.scale);
      const b0 = await bodyBox(0, colour(0)), b1 = await bodyBox(1, colour(1));
      const ppm = (b1.cx - b0.cx) / (pos(1)[0] - pos(0)[0]);
      check(Math.abs(ppm - scale) < 0.01 * scale, `${ppm.toFixed(2)} px/m between the two drawn centres, the player's scale ${scale.toFixed(2)} px/m`);
      for (const [k, b] of [[0, b0], [1, b1]]) {
        const want = 2 * radius(k) * ppm;
        check(Math.abs(b.width - want) <= 2 && Math.abs(b.height - want) <= 2,
          `agent ${k} (radius ${radius(k)} m) is drawn ${b.width} x ${b.height} px, 2·r·px/m = ${want.toFixed(1)} px`);
      }
      const p = await page.evaluate(() => [2, 3, 4, 5].map((k) => steerkitReplay.screenPosition(k)));
      const touching = await gapBetween(p[0], p[1], colour(2)), apart = await gapBetween(p[2], p[3], colour(4));
      const gap = (pos(5)[0] - pos(4)[0] - radius(4) - radius(5)) * ppm;
      check(touching === 0, "no background shows between two touching bodies");
      check(Math.abs(apart - gap) <= 2, `${apart} px of background between two bodies ${(gap / ppm).toFixed(2)} m apart (${gap.toFixed(1)} px)`);
    }

    // the most isolated agent: room to spare from every other body and the world's shapes
    const w = rec.world, n = rec.agentGroups.length;
    const segDist = (p, a, b) => {
      const dx = b[0] - a[0], dy = b[1] - a[1], l2 = dx * dx + dy * dy;
      const t = l2 > 0 ? Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / l2)) : 0;
      return Math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy);
    };
    const edges = [];
    for (const wall of w.walls || []) edges.push([wall.a, wall.b]);
    for (const poly of w.polygons || []) poly.points.forEach((q, i) => edges.push([q, poly.points[(i + 1) % poly.points.length]]));
    for (const r of [w.bounds, ...(w.boxes || [])].filter(Boolean)) {
      const c = [[r.min[0], r.min[1]], [r.max[0], r.min[1]], [r.max[0], r.max[1]], [r.min[0], r.max[1]]];
      c.forEach((q, i) => edges.push([q, c[(i + 1) % 4]]));
    }
    let best = -1, room = 0;
    for (let k = 0; k < n; k++) {
      const p = pos(k);
      if (!Number.isFinite(p[0]) || !Number.isFinite(p[1])) continue;
      // a vehicle is drawn as its body (a car's rectangle), not a disc of its radius
      if (rec.groups[rec.agentGroups[k]].vehicle) continue;
      let clear = Infinity;
      for (let j = 0; j < n; j++) if (j !== k && Number.isFinite(pos(j)[0])) clear = Math.min(clear, Math.hypot(p[0] - pos(j)[0], p[1] - pos(j)[1]) - radius(j));
      for (const c of w.circles || []) clear = Math.min(clear, Math.hypot(p[0] - c.center[0], p[1] - c.center[1]) - c.radius);
      for (const [a, b] of edges) clear = Math.min(clear, segDist(p, a, b));
      if (clear / radius(k) > room) { room = clear / radius(k); best = k; }
    }
    if (best < 0 || room < 2) { console.log(`  --  no agent is isolated at frame ${frame + 1}: the diameter is not measured`); return; }
    // bring it to the middle (a drag) and zoom so that it is about 40 px across (the wheel)
    const p0 = await page.evaluate((k) => steerkitReplay.screenPosition(k), best);
    const centre = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    await page.mouse.move(box.x + p0.x, box.y + p0.y);
    await page.mouse.down();
    await page.mouse.move(centre.x, centre.y, { steps: 8 });
    await page.mouse.up();
    check((await state()).selected === -1, "a drag selects nothing");
    const s0 = await page.evaluate(() => steerkitReplay.scale);
    const factor = 40 / (2 * radius(best) * s0);
    await page.mouse.move(centre.x, centre.y);
    if (Math.abs(Math.log(factor)) > 0.05) await page.mouse.wheel(0, -Math.log(factor) / 0.0015);
    await sleep(200);
    const scale = await page.evaluate(() => steerkitReplay.scale);
    const b = await bodyBox(best, colour(best)), want = 2 * radius(best) * scale;
    check(Math.abs(b.width - want) <= 2 && Math.abs(b.height - want) <= 2,
      `agent ${best} (radius ${radius(best)} m, ${room.toFixed(1)} radii from anything) is drawn ${b.width} x ${b.height} px at ${scale.toFixed(1)} px/m: 2·r·px/m = ${want.toFixed(1)} px`);
    check(Math.hypot(b.cx - b.p.x, b.cy - b.p.y) <= 1.5, "the body is centred on the agent's position");
    // as a dart, the nose reaches about 1.5 radii ahead
    await page.click("#layer-darts");
    await sleep(100);
    const h = at.orientation[best];
    const [ahead] = await reach(b.p.x, b.p.y, [[Math.cos(h), -Math.sin(h)]], colour(best));
    const r = radius(best) * scale;
    check(ahead > 1.3 * r && ahead <= 1.5 * r + 2, `"Bodies as darts" draws a dart whose nose is ${(ahead / r).toFixed(2)} radii ahead`);
    await page.click("#layer-darts");
  }

  // The 3D view: orbit, zoom, pan, reset, the top view and back, picking, screenshots, a crowd.
  async function check3d(box) {
    const camera = () => page.evaluate(() => steerkitReplay.camera());
    const center = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    const cam0 = await camera();

    // orbit: a left drag turns the camera round its target
    const beforeOrbit = await canvasState();
    await page.mouse.move(center.x, center.y);
    await page.mouse.down();
    await page.mouse.move(center.x + 120, center.y + 40, { steps: 6 });
    await page.mouse.move(center.x + 240, center.y + 70, { steps: 6 });
    await page.mouse.up();
    await sleep(150);
    const cam1 = await camera();
    check(Math.abs(cam1.yaw - cam0.yaw) > 0.5 && cam1.pitch > cam0.pitch, `a drag orbits the camera (yaw ${cam0.yaw.toFixed(2)} -> ${cam1.yaw.toFixed(2)}, pitch ${cam0.pitch.toFixed(2)} -> ${cam1.pitch.toFixed(2)})`);
    check((await state()).selected === -1, "a drag selects nothing");
    const orbited = await canvasState();
    check(orbited.hash !== beforeOrbit.hash, "orbiting redraws the canvas");
    check(orbited.coloured > 300, `the orbited view is drawn (${orbited.coloured} coloured pixels)`);
    const orbitShot = shotPath.replace(/(\.png)?$/, "-orbit.png");
    await page.screenshot({ path: orbitShot });
    check(statSync(orbitShot).size > 10000, `screenshot saved to ${orbitShot}`);

    // zoom: the wheel brings the camera nearer
    await page.mouse.move(center.x, center.y);
    await page.mouse.wheel(0, -600);
    await sleep(200);
    const cam2 = await camera(), zoomed = await canvasState();
    check(cam2.distance < cam1.distance * 0.6, `the wheel zooms in (${cam1.distance.toFixed(1)} -> ${cam2.distance.toFixed(1)} m from the target)`);
    check(zoomed.hash !== orbited.hash, "zooming redraws the canvas");

    // pan: a right drag moves the target
    await page.mouse.move(center.x, center.y);
    await page.mouse.down({ button: "right" });
    await page.mouse.move(center.x - 150, center.y + 50, { steps: 8 });
    await page.mouse.up({ button: "right" });
    await sleep(150);
    const cam3 = await camera(), panned = await canvasState();
    const moved = Math.hypot(...cam3.target.map((t, i) => t - cam2.target[i]));
    check(moved > 0.5 && Math.abs(cam3.yaw - cam2.yaw) < 1e-9, `a right drag pans (the target moves ${moved.toFixed(2)} m)`);
    check(panned.hash !== zoomed.hash, "panning redraws the canvas");
    // shift + left drag pans too
    await page.keyboard.down("Shift");
    await page.mouse.move(center.x, center.y);
    await page.mouse.down();
    await page.mouse.move(center.x + 80, center.y, { steps: 5 });
    await page.mouse.up();
    await page.keyboard.up("Shift");
    const cam4 = await camera();
    check(Math.abs(cam4.yaw - cam3.yaw) < 1e-9 && Math.hypot(...cam4.target.map((t, i) => t - cam3.target[i])) > 0.2, "Shift and a drag pan");

    // reset view
    await page.click("#reset3d");
    await sleep(100);
    const cam5 = await camera();
    check(Math.abs(cam5.yaw - cam0.yaw) < 1e-9 && Math.abs(cam5.distance - cam0.distance) < 1e-6, "Reset view puts the camera back");
    const reset = await canvasState();

    // the top view and back
    await page.click("#view3d");
    await sleep(150);
    check((await state()).view === "top", "the view button switches to the top view");
    const top = await canvasState();
    check(top.hash !== reset.hash && top.coloured > 300, `the top view is drawn (${top.coloured} coloured pixels)`);
    const s0 = (await state()).scale;
    await page.mouse.move(center.x, center.y);
    await page.mouse.wheel(0, -600);
    await sleep(150);
    check((await state()).scale > s0 * 1.5, "the wheel zooms the top view");
    await page.keyboard.press("f");
    await page.keyboard.press("v");
    await sleep(150);
    check((await state()).view === "3d", "V switches back to the 3D view");
    check((await canvasState()).hash === reset.hash, "the 3D view is drawn as before the switch");

    // select an agent by clicking it in 3D
    await page.keyboard.press("End");
    await sleep(100);
    const target = await page.evaluate(() => {
      for (let k = 0; k < steerkitReplay.agentCount; k++) {
        const p = steerkitReplay.screenPosition(k);
        if (p && p.x > 60 && p.y > 60 && p.x < document.getElementById("view").clientWidth - 60) return { k, p };
      }
      return null;
    });
    check(target !== null, "an agent is drawn in the 3D view");
    await page.mouse.click(box.x + target.p.x, box.y + target.p.y);
    await sleep(100);
    const picked = (await state()).selected;
    const near = await page.evaluate(([k, x, y]) => { const p = steerkitReplay.screenPosition(k); return Math.hypot(p.x - x, p.y - y); }, [picked, target.p.x, target.p.y]);
    check(picked >= 0 && near <= 12, `clicking an agent in 3D selects it (agent ${picked}, ${near.toFixed(1)} px from the click)`);
    const details = await page.textContent("#selected");
    check(details.includes(`Agent ${picked}`) && details.includes("climb") && details.includes("bank"), "the selected agent's 3D details are shown (climb, bank)");

    // the screenshot: a moment in the middle of the run, an agent selected, panels from the top,
    // the camera reset (F) and a step nearer than the whole world
    const shotFrame = Math.floor(info.frames * 0.45);
    await page.evaluate((v) => {
      const s = document.getElementById("scrub");
      s.value = String(v);
      s.dispatchEvent(new Event("input", { bubbles: true }));
    }, shotFrame);
    await page.keyboard.press("f");
    await page.mouse.move(center.x, center.y);
    await page.mouse.wheel(0, -300);
    await page.evaluate(() => { document.querySelector("aside").scrollTop = 0; });
    await sleep(200);
    await page.screenshot({ path: shotPath });
    check(statSync(shotPath).size > 10000, `screenshot saved to ${shotPath}`);

    // a big 3D crowd, if the Rust test wrote one beside: it loads, plays and keeps drawing
    const crowdPath = join(dirname(htmlPath), "crowd3d-replay.html");
    if (existsSync(crowdPath)) {
      const t0 = Date.now();
      await page.goto(pathToFileURL(crowdPath).href, { waitUntil: "load" });
      await page.waitForFunction(() => window.steerkitReplay !== undefined, null, { timeout: 20000 });
      const loadMs = Date.now() - t0;
      const big = await page.evaluate(() => steerkitReplay.agentCount);
      check(await page.evaluate(() => steerkitReplay.playing), "the crowd plays when it opens");
      await page.keyboard.press("Home");
      await page.keyboard.press("Space");
      const run = await page.evaluate(() => new Promise((done) => {
        let draws = 0;
        const t = performance.now(), f0 = steerkitReplay.frame;
        const tick = () => {
          draws++;
          if (performance.now() - t < 2000) requestAnimationFrame(tick);
          else done({ fps: draws / ((performance.now() - t) / 1000), frames: steerkitReplay.frame - f0, hidden: steerkitReplay.overlaysHidden });
        };
        requestAnimationFrame(tick);
      }));
      check(run.frames > 20, `a 3D crowd of ${big} agents loads in ${loadMs} ms and plays (${run.frames} frames in 2 s)`);
      check(run.fps >= 8, `the 3D crowd draws at ${run.fps.toFixed(0)} frames per second`);
      check(run.hidden, "per-agent overlays are held back while the whole 3D crowd is in view");
      const crowdCanvas = await canvasState();
      check(crowdCanvas.coloured > 2000, `the 3D crowd is drawn (${crowdCanvas.coloured} coloured pixels)`);
    }
  }

  const first = await canvasState();
  check(first.width > 0 && first.height > 0, `canvas is ${first.width}x${first.height}`);
  check(first.coloured > 300, `first frame is drawn (${first.coloured} coloured pixels)`);

  // it plays by itself for about 3 s
  check((await state()).playing, "the replay is playing when it opens");
  // the frame and its label, read together
  const labelled = () => page.evaluate(() => [steerkitReplay.frame, document.getElementById("readout").textContent]);
  const [f0, labelA] = await labelled();
  await sleep(1500);
  const a = await canvasState(), fa = (await state()).frame;
  await sleep(1500);
  const b = await canvasState();
  const [fb, labelB] = await labelled();
  check(fa > f0 && fb > fa, `frames advance without a click (${f0} -> ${fa} -> ${fb})`);
  check(labelA.startsWith(`frame ${f0 + 1} / `) && labelB.startsWith(`frame ${fb + 1} / `), `the frame label advances with them ("${labelA.split("  ")[0]}" -> "${labelB.split("  ")[0]}")`);
  check(a.hash !== b.hash, "the canvas changes between two moments of playback");
  check(b.coloured > 300, `playback frames are drawn (${b.coloured} coloured pixels)`);

  // pause
  await page.click("#play");
  const paused = await state();
  check(!paused.playing, "the play button pauses");
  await sleep(300);
  const still = await state();
  check(still.frame === paused.frame, `paused playback stays on frame ${still.frame}`);
  await page.keyboard.press("Space");
  check((await state()).playing, "Space plays again");
  await page.keyboard.press("Space");
  check(!(await state()).playing, "Space pauses");

  // scrub
  const target = Math.floor(info.frames / 2);
  await page.evaluate((v) => {
    const s = document.getElementById("scrub");
    s.value = String(v);
    s.dispatchEvent(new Event("input", { bubbles: true }));
  }, target);
  check((await state()).frame === target, `the slider seeks to frame ${target}`);
  await page.keyboard.press("ArrowRight");
  check((await state()).frame === target + 1, "the right arrow steps one frame");
  const readout = await page.textContent("#readout");
  check(readout.includes(`frame ${target + 2} / ${info.frames}`), `the readout says "${readout}"`);

  // speed
  await page.selectOption("#speed", "4");
  await page.keyboard.press("]");
  check(Math.abs((await page.evaluate(() => steerkitReplay.speed)) - 8) < 1e-9, "the speed list and ] set 4x then 8x");
  await page.selectOption("#speed", "1");

  // a layer toggle
  await sleep(100);
  const before = await canvasState();
  await page.click("#layer-velocity");
  await sleep(100);
  const after = await canvasState();
  check((await state()).layers.velocity === false, "the velocity layer switches off");
  check(before.hash !== after.hash, "switching a layer off redraws the canvas");
  await page.click("#layer-velocity");

  // a navigation replay: the routes layer is offered and drawn (switching it off changes the
  // canvas at the current frame, which has routes)
  const routed = await page.evaluate(() => {
    const r = JSON.parse(document.getElementById("recording").textContent);
    return r.frames[steerkitReplay.frame].overlays?.routes?.agent?.length || 0;
  });
  if (routed > 0) {
    check((await state()).layers.routes === true, `the routes layer is on (${routed} routes in this frame)`);
    const on = await canvasState();
    await page.click("#layer-routes");
    await sleep(100);
    check(on.hash !== (await canvasState()).hash, "switching the routes off redraws the canvas");
    await page.click("#layer-routes");
  }

  await checkMoments();

  const box = await page.locator("#view").boundingBox();
  if (info.dims === 3) {
    await check3d(box);
  } else {
    // zoom with the wheel, then fit
    const s0 = (await state()).scale;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, -600);
    await sleep(200);
    const s1 = (await state()).scale;
    check(s1 > s0 * 1.5, `the wheel zooms in (${s0.toFixed(1)} -> ${s1.toFixed(1)} px/m)`);
    await page.keyboard.press("f");
    await sleep(100);
    check(Math.abs((await state()).scale - s0) < 1e-6, "F fits the world again");

    // select an agent by clicking it
    await page.keyboard.press("End");
    await sleep(100);
    const p = await page.evaluate(() => steerkitReplay.screenPosition(0));
    await page.mouse.click(box.x + p.x, box.y + p.y);
    await sleep(100);
    check((await state()).selected === 0, "clicking an agent selects it");
    const details = await page.textContent("#selected");
    check(details.includes("Agent 0") && details.includes("speed"), "the selected agent's details are shown");

    // the screenshot: a moment in the middle of the run, an agent selected, panels from the top
    const shotFrame = Math.floor(info.frames * 0.45);
    await page.evaluate((v) => {
      const s = document.getElementById("scrub");
      s.value = String(v);
      s.dispatchEvent(new Event("input", { bubbles: true }));
    }, shotFrame);
    await page.evaluate(() => { document.querySelector("aside").scrollTop = 0; });
    await sleep(200);
    await page.screenshot({ path: shotPath });
    check(statSync(shotPath).size > 10000, `screenshot saved to ${shotPath}`);

    await checkBodyScale(box);

    // a big crowd, if the Rust test wrote one beside: it loads, plays and keeps drawing
    const crowdPath = join(dirname(htmlPath), "crowd-replay.html");
    if (existsSync(crowdPath)) {
      const t0 = Date.now();
      await page.goto(pathToFileURL(crowdPath).href, { waitUntil: "load" });
      await page.waitForFunction(() => window.steerkitReplay !== undefined, null, { timeout: 20000 });
      const loadMs = Date.now() - t0;
      const big = await page.evaluate(() => steerkitReplay.agentCount);
      check(await page.evaluate(() => steerkitReplay.playing), "the crowd plays when it opens");
      await page.keyboard.press("Home");
      await page.keyboard.press("Space");
      const run = await page.evaluate(() => new Promise((done) => {
        let draws = 0;
        const t = performance.now(), f0 = steerkitReplay.frame;
        const tick = () => {
          draws++;
          if (performance.now() - t < 2000) requestAnimationFrame(tick);
          else done({ fps: draws / ((performance.now() - t) / 1000), frames: steerkitReplay.frame - f0, hidden: steerkitReplay.overlaysHidden });
        };
        requestAnimationFrame(tick);
      }));
      check(run.frames > 30, `a crowd of ${big} agents loads in ${loadMs} ms and plays (${run.frames} frames in 2 s)`);
      check(run.fps >= 8, `the crowd draws at ${run.fps.toFixed(0)} frames per second`);
      check(run.hidden, "per-agent overlays are held back while the whole crowd is in view");
      const crowdCanvas = await canvasState();
      check(crowdCanvas.coloured > 2000, `the crowd is drawn (${crowdCanvas.coloured} coloured pixels)`);
    }
  }

  // edge cases written beside (3D, wrap-around, a lost agent; the same without attitudes; an empty
  // recording): no errors
  for (const name of ["edge-3d-replay.html", "edge-3d-old-replay.html", "edge-empty-replay.html"]) {
    const path = join(dirname(htmlPath), name);
    if (!existsSync(path)) continue;
    await page.goto(pathToFileURL(path).href, { waitUntil: "load" });
    await page.waitForFunction(() => window.steerkitReplay !== undefined, null, { timeout: 10000 });
    const opened = await page.evaluate(() => ({ playing: steerkitReplay.playing, frames: steerkitReplay.frameCount }));
    check(opened.playing === opened.frames > 1, `${name} ${opened.frames > 1 ? "plays" : "stays still"} when it opens`);
    await sleep(600);
    await page.keyboard.press("End");
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await sleep(100);
    check(problems.length === 0, `${name} plays without errors`);
  }

  check(foreign.length === 0, "nothing was requested from the network" + (foreign.length ? ": " + foreign.join(", ") : ""));
  check(problems.length === 0, "no console or page errors" + (problems.length ? ":\n    " + problems.join("\n    ") : ""));
  console.log("browser test passed");
} catch (e) {
  console.error(e.message || e);
  for (const p of problems) console.error("  " + p);
  exitCode = 1;
} finally {
  await context.close();
  rmSync(userDataDir, { recursive: true, force: true });
}
process.exit(exitCode);
