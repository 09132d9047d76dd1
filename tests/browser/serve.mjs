// The live playground in headless Chromium: starts `steerkit serve --port 0 seek`, opens the page,
// drags the seeker's goal and checks the agent turns toward it, moves the max-speed slider and
// checks the measured speed follows, uploads a bad scenario file and checks the error is shown,
// saves the state and runs the saved file with `steerkit run`, opens the obstacle avoidance demo
// from the list, drags an obstacle and adds an agent, selects an agent, takes a screenshot, stops
// the server. Then opens flock3d: the page is in the 3D view, the picture changes as the birds
// fly, a sphere dragged in perspective moves on its horizontal plane (x, z; its height kept),
// a second screenshot is saved next to the first as serve3d.png, and the saved 3D state plays
// with `steerkit run`. Then the side view `platforms` runs. Then the navigation demo: every
// walker's route is in the frame, a box picks the west room's walkers, a click sends them to
// their own spots round it (their routes end there), a crate dragged into a door makes every
// route go through the other door. Last, turret_lead: its turrets are
// handles, the leading gun's shells hit (counted in the side panel as `steerkit run` counts them),
// a shell in the air is drawn where the frame puts it, and serve-turrets.png is saved.
//
//   node tests/browser/serve.mjs [SCREENSHOT_PNG]
//
// The binary is $STEERKIT_BIN, $CARGO_TARGET_DIR/release/steerkit or target/release/steerkit (`cargo build --release -p steerkit-cli`);
// the screenshot defaults to out/browser/serve.png; Chromium is $CHROMIUM or /usr/bin/chromium.
// Exits non-zero with a message on the first failed check.

import { chromium } from "playwright-core";
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
// $STEERKIT_BIN, else the release binary of $CARGO_TARGET_DIR (when set), else target/release
const bin = resolve(process.env.STEERKIT_BIN
  || join(process.env.CARGO_TARGET_DIR ? resolve(root, process.env.CARGO_TARGET_DIR) : join(root, "target"), "release/steerkit"));
const shotPath = resolve(process.argv[2] || join(root, "out/browser/serve.png"));
const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";

function check(condition, message) {
  if (!condition) throw new Error("check failed: " + message);
  console.log("  ok  " + message);
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const deg = (r) => (r * 180) / Math.PI;
function angleBetween(a, b) {
  let d = a - b;
  while (d > Math.PI) d -= 2 * Math.PI;
  while (d < -Math.PI) d += 2 * Math.PI;
  return Math.abs(d);
}

if (!existsSync(bin)) {
  console.error(`no steerkit binary at ${bin}: run \`cargo build --release -p steerkit-cli\` first`);
  process.exit(2);
}
mkdirSync(dirname(shotPath), { recursive: true });

// the server, on a free port; its first line names the URL
const server = spawn(bin, ["serve", "--port", "0", "seek"], { stdio: ["ignore", "pipe", "inherit"] });
const url = await new Promise((ok, fail) => {
  let text = "";
  const timer = setTimeout(() => fail(new Error("the server printed no URL within 10 s")), 10000);
  server.stdout.on("data", (d) => {
    text += d;
    const m = text.match(/http:\/\/127\.0\.0\.1:\d+\//);
    if (m) { clearTimeout(timer); ok(m[0]); }
  });
  server.on("exit", (code) => fail(new Error("the server exited with " + code)));
});
console.log("server: " + url);

const userDataDir = mkdtempSync(join(tmpdir(), "steerkit-chromium-"));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath,
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync"],
  viewport: { width: 1440, height: 900 },
  deviceScaleFactor: 1,
  acceptDownloads: true,
});

const problems = [];
const foreign = [];
let exitCode = 0;
try {
  const page = context.pages()[0] || (await context.newPage());
  page.on("console", (m) => { if (m.type() === "error") problems.push("console error: " + m.text()); });
  page.on("pageerror", (e) => problems.push("page error: " + e.message));
  page.on("request", (r) => { if (!r.url().startsWith(url.replace(/\/$/, "")) && !r.url().startsWith("blob:") && !r.url().startsWith("data:")) foreign.push(r.url()); });

  await page.goto(url, { waitUntil: "load" });
  await page.waitForFunction(() => window.steerkitLive && steerkitLive.name === "seek" && steerkitLive.frames > 5, null, { timeout: 15000 });
  const listed = await page.evaluate(() => steerkitLive.scenarios.filter((s) => s.kind === "demo").map((s) => s.name));
  check(listed.length === 15 && listed.includes("formation") && listed.includes("navigation"), `the page lists the 15 demos (${listed.join(", ")})`);

  const agent = () => page.evaluate(() => {
    const f = steerkitLive.lastFrame;
    return { x: f.position[0], y: f.position[1], vx: f.velocity[0], vy: f.velocity[1], t: steerkitLive.time };
  });
  // the canvas' page offset, to turn the renderer's canvas coordinates into mouse positions
  const box = await page.locator("#view").boundingBox();
  const toPage = async (x, y) => {
    const s = await page.evaluate(([x, y]) => steerkitReplay.toScreen(x, y), [x, y]);
    return { x: box.x + s.x, y: box.y + s.y };
  };

  // ---- drag the goal ----
  const goal = await page.evaluate(() => steerkitLive.handles.find((h) => h.kind === "goal"));
  check(goal && goal.agent === 0, `the seeker's goal is a handle at (${goal.x}, ${goal.y})`);
  const from = await toPage(goal.x, goal.y);
  const target = { x: 12, y: -8 };
  const to = await toPage(target.x, target.y);
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move((from.x + to.x) / 2, (from.y + to.y) / 2, { steps: 5 });
  await page.mouse.move(to.x, to.y, { steps: 5 });
  await page.mouse.up();
  await page.waitForFunction(([x, y]) => {
    const g = steerkitLive.handles.find((h) => h.kind === "goal");
    return g && Math.hypot(g.x - x, g.y - y) < 0.3;
  }, [target.x, target.y], { timeout: 5000 });
  check(true, "the goal moved where it was dropped (within 0.3 m)");
  await sleep(1500);
  const a = await agent();
  const heading = Math.atan2(a.vy, a.vx), bearing = Math.atan2(target.y - a.y, target.x - a.x);
  const off = deg(angleBetween(heading, bearing));
  check(off < 15, `1.5 s after the drag the agent heads for the new goal: heading ${deg(heading).toFixed(1)}°, bearing ${deg(bearing).toFixed(1)}°, off by ${off.toFixed(1)}° (tolerance 15°)`);

  // ---- the max speed slider ----
  const meanSpeed = async (ms) => {
    const samples = [];
    const end = Date.now() + ms;
    let last = -1;
    while (Date.now() < end) {
      const s = await agent();
      if (s.t !== last) { samples.push(Math.hypot(s.vx, s.vy)); last = s.t; }
      await sleep(40);
    }
    return samples.reduce((p, q) => p + q, 0) / samples.length;
  };
  const before = await meanSpeed(800);
  check(Math.abs(before - 3.0) < 0.15, `measured speed before: ${before.toFixed(3)} m/s (max speed 3.0, tolerance 0.15)`);
  const slider = page.locator('input[data-path="groups[0].limits.max_speed"]');
  check(await slider.count() === 1, "there is a max speed slider for the seeker");
  await slider.evaluate((el) => { el.value = "1.2"; el.dispatchEvent(new Event("input", { bubbles: true })); });
  await page.waitForFunction(() => steerkitLive.params.some((p) => p.path === "groups[0].limits.max_speed" && p.value === 1.2), null, { timeout: 5000 });
  await sleep(1000);
  const after = await meanSpeed(800);
  check(Math.abs(after - 1.2) < 0.06, `measured speed after the slider: ${after.toFixed(3)} m/s (max speed 1.2, tolerance 0.06)`);

  // ---- a bad file ----
  const bad = readFileSync(join(root, "scenarios/demos/seek.toml"), "utf8").replace("max_speed = 3.0", "max_speed = -3.0");
  await page.setInputFiles("#live-upload", { name: "broken.toml", mimeType: "text/plain", buffer: Buffer.from(bad) });
  await page.waitForFunction(() => steerkitLive.lastError !== null, null, { timeout: 5000 });
  const shown = await page.locator("#live-error").innerText();
  check(await page.locator("#live-error").isVisible() && shown.includes("broken.toml") && shown.includes("max_speed"),
    `the upload's error is shown in the page: "${shown.split("\n")[0]}"`);
  check(await page.evaluate(() => steerkitLive.name) === "seek", "the running scenario is kept");

  // ---- save, then run the saved file ----
  const download = page.waitForEvent("download", { timeout: 5000 });
  await page.click("#live-save");
  const dl = await download;
  const savedPath = join(dirname(shotPath), "serve-saved.toml");
  await dl.saveAs(savedPath);
  check(readFileSync(savedPath, "utf8").includes("max_speed = 1.2"), `Save downloaded ${dl.suggestedFilename()} with the changed max speed`);
  const out = execFileSync(bin, ["run", savedPath, "--steps", "100", "--out", join(dirname(shotPath), "serve-saved")], { encoding: "utf8" });
  check(out.includes("replay:"), "steerkit run plays the saved file");

  // ---- another demo from the list: drag an obstacle, add an agent ----
  await page.selectOption("#live-scenario", "obstacle_avoidance");
  await page.waitForFunction(() => steerkitLive.name === "obstacle_avoidance" && steerkitLive.handles.some((h) => h.kind === "obstacle"), null, { timeout: 5000 });
  const ob = await page.evaluate(() => steerkitLive.handles.find((h) => h.kind === "obstacle" && h.id === 0));
  const obFrom = await toPage(ob.x, ob.y), obTo = await toPage(ob.x + 2, ob.y + 3);
  await page.mouse.move(obFrom.x, obFrom.y);
  await page.mouse.down();
  await page.mouse.move(obTo.x, obTo.y, { steps: 8 });
  await page.mouse.up();
  await page.waitForFunction(([x, y]) => {
    const h = steerkitLive.handles.find((h) => h.kind === "obstacle" && h.id === 0);
    return h && Math.hypot(h.x - x, h.y - y) < 0.3;
  }, [ob.x + 2, ob.y + 3], { timeout: 5000 });
  check(true, `obstacle 0 dragged from (${ob.x}, ${ob.y}) to (${ob.x + 2}, ${ob.y + 3}) (within 0.3 m)`);
  const before3 = await page.evaluate(() => steerkitReplay.agentCount);
  await page.click("#tool-add");
  const spot = await toPage(-12, -6);
  await page.mouse.click(spot.x, spot.y);
  await page.waitForFunction((n) => steerkitReplay.agentCount === n + 1, before3, { timeout: 5000 });
  await page.click("#tool-move");
  check(true, `the Add tool added an agent (${before3} → ${before3 + 1})`);
  await page.selectOption("#live-scenario", "seek");
  await page.waitForFunction(() => steerkitLive.name === "seek" && steerkitLive.frames > 0, null, { timeout: 5000 });
  await sleep(500);

  // ---- select an agent, screenshot ----
  const p = await page.evaluate(() => steerkitReplay.screenPosition(0));
  await page.mouse.click(box.x + p.x, box.y + p.y);
  await page.waitForFunction(() => steerkitReplay.selected === 0, null, { timeout: 3000 });
  const sel = await page.locator("#selected").innerText();
  check(sel.includes("speed") && sel.includes("position"), "clicking the agent selects it and shows its numbers");
  await sleep(300);
  await page.screenshot({ path: shotPath });
  check(existsSync(shotPath), "screenshot saved to " + shotPath);

  // ---- a 3D scenario: flock3d in the 3D view ----
  await page.selectOption("#live-scenario", "flock3d");
  await page.waitForFunction(() => steerkitLive.name === "flock3d" && steerkitLive.frames > 0 && steerkitReplay.agentCount === 150, null, { timeout: 10000 });
  await sleep(500);
  const state3 = await page.evaluate(() => ({ dims: steerkitReplay.dims, view: steerkitReplay.view, button: getComputedStyle(document.getElementById("view3d")).display, att: steerkitLive.lastFrame.attitude.length, pos: steerkitLive.lastFrame.position.length }));
  check(state3.dims === 3 && state3.view === "3d" && state3.button !== "none", `flock3d opens in the 3D view (dims ${state3.dims}, view ${state3.view}, the view button shown)`);
  check(state3.pos === 450 && state3.att === 600, `its frames carry 3 coordinates and a quaternion per bird (${state3.pos} and ${state3.att} numbers for 150)`);
  const picture = () => page.evaluate(() => document.getElementById("view").toDataURL("image/png"));
  const pic0 = await picture(), t0 = await page.evaluate(() => steerkitLive.time);
  await sleep(1000);
  const pic1 = await picture(), t1 = await page.evaluate(() => steerkitLive.time);
  check(pic0 !== pic1 && t1 - t0 > 0.5, `the 3D picture changes as the flock flies (t ${t0.toFixed(2)} → ${t1.toFixed(2)} s)`);
  // the live rate of a 150-bird 3D flock: frames received over 3 s, the simulated time they span
  const r0 = await page.evaluate(() => ({ n: steerkitLive.frames, t: steerkitLive.time }));
  await sleep(3000);
  const r1 = await page.evaluate(() => ({ n: steerkitLive.frames, t: steerkitLive.time, bytes: JSON.stringify(steerkitLive.lastFrame).length }));
  const rate = (r1.n - r0.n) / 3, simRate = (r1.t - r0.t) / 3;
  check(rate >= 15 && simRate > 0.8, `flock3d streams ${rate.toFixed(1)} frames/s at ${simRate.toFixed(2)} simulated s per s (at least 15 and 0.8), ${(r1.bytes / 1024).toFixed(1)} KiB a frame`);
  // drag sphere 2 in perspective: it moves on the horizontal plane through its centre
  const sp = await page.evaluate(() => steerkitLive.handles.find((h) => h.kind === "obstacle" && h.id === 2));
  check(sp && sp.z !== undefined, `sphere 2 is a handle at (${sp.x}, ${sp.y}, ${sp.z})`);
  const at3 = async (x, y, z) => {
    const s = await page.evaluate(([x, y, z]) => steerkitReplay.toScreen3(x, y, z), [x, y, z]);
    return { x: box.x + s.x, y: box.y + s.y };
  };
  const goal3 = { x: sp.x + 2, y: sp.y, z: sp.z + 1 };
  const spFrom = await at3(sp.x, sp.y, sp.z), spTo = await at3(goal3.x, goal3.y, goal3.z);
  await page.mouse.move(spFrom.x, spFrom.y);
  await page.mouse.down();
  await page.mouse.move(spTo.x, spTo.y, { steps: 8 });
  await page.mouse.up();
  // the handles shown are the server's again once the drag ends: wait for its frames
  await sleep(800);
  await page.waitForFunction((g) => {
    const h = steerkitLive.handles.find((h) => h.kind === "obstacle" && h.id === 2);
    return h && Math.hypot(h.x - g.x, h.z - g.z) < 0.3 && Math.abs(h.y - g.y) < 1e-6;
  }, goal3, { timeout: 5000 });
  const sphere = await page.evaluate(() => steerkitLive.handles.find((h) => h.kind === "obstacle" && h.id === 2));
  check(true, `sphere 2 dragged in perspective to (${sphere.x.toFixed(2)}, ${sphere.y}, ${sphere.z.toFixed(2)}), aimed at (${goal3.x}, ${goal3.y}, ${goal3.z}) (within 0.3 m, height kept)`);
  check(await page.evaluate(() => steerkitReplay.view) === "3d", "the view stays in 3D after the edit");
  await sleep(500);
  const shot3 = join(dirname(shotPath), "serve3d.png");
  await page.screenshot({ path: shot3 });
  check(existsSync(shot3), "3D screenshot saved to " + shot3);
  // the top view (V): the same sphere dragged back to where it started, x and z under the pointer
  await page.click("#view3d");
  check(await page.evaluate(() => steerkitReplay.view) === "top", "the view button switches to the top view");
  const topFrom = await at3(sphere.x, sphere.y, sphere.z), topTo = await at3(sp.x, sp.y, sp.z);
  await page.mouse.move(topFrom.x, topFrom.y);
  await page.mouse.down();
  await page.mouse.move(topTo.x, topTo.y, { steps: 8 });
  await page.mouse.up();
  await sleep(800);
  await page.waitForFunction((g) => {
    const h = steerkitLive.handles.find((h) => h.kind === "obstacle" && h.id === 2);
    return h && Math.hypot(h.x - g.x, h.z - g.z) < 0.3 && Math.abs(h.y - g.y) < 1e-6;
  }, sp, { timeout: 5000 });
  check(true, `in the top view sphere 2 dragged back to (${sp.x}, ${sp.y}, ${sp.z}) (within 0.3 m, height kept)`);
  // save the 3D state and run it
  const download3 = page.waitForEvent("download", { timeout: 5000 });
  await page.click("#live-save");
  const saved3 = join(dirname(shotPath), "serve3d-saved.toml");
  await (await download3).saveAs(saved3);
  check(readFileSync(saved3, "utf8").includes("dimensions = 3"), "Save downloaded the 3D state (dimensions = 3)");
  const out3 = execFileSync(bin, ["run", saved3, "--steps", "50", "--out", join(dirname(shotPath), "serve3d-saved")], { encoding: "utf8" });
  check(out3.includes("replay:"), "steerkit run plays the saved 3D file");

  // ---- a side view: platforms, its jumpers run and jump (steerkit run's own side-view code) ----
  await page.selectOption("#live-scenario", "platforms");
  // a frame of the new scenario: its clock starts again near 0 (the last 3D frame may still be
  // the one held when the name changes)
  await page.waitForFunction(() => steerkitLive.name === "platforms" && steerkitLive.frames > 0 && steerkitLive.time < 1, null, { timeout: 5000 });
  const s0 = await page.evaluate(() => ({ x: steerkitLive.lastFrame.position[0], t: steerkitLive.time }));
  await sleep(1500);
  const side = await page.evaluate(() => ({ x: steerkitLive.lastFrame.position[0], view: steerkitReplay.view, t: steerkitLive.time }));
  check(side.view === "2d" && side.x > s0.x + 1 && side.t > s0.t + 1, `platforms runs live: the first athlete ran from x = ${s0.x.toFixed(2)} m (t = ${s0.t.toFixed(2)} s) to ${side.x.toFixed(2)} m (t = ${side.t.toFixed(2)} s)`);

  // ---- navigation: walkers picked with a box and sent somewhere, a door blocked ----
  await page.selectOption("#live-scenario", "navigation");
  await page.waitForFunction(() => steerkitLive.name === "navigation" && steerkitLive.sinceLoad > 0, null, { timeout: 5000 });
  await page.waitForFunction(() => ((steerkitLive.lastFrame.overlays || {}).routes || { agent: [] }).agent.length === 32, null, { timeout: 5000 });
  check(true, "every walker's route ahead is in the live frame (32)");
  await page.click("#tool-select");
  const nwA = await toPage(-19.5, 11.5), nwB = await toPage(-0.6, -11.5);
  await page.mouse.move(nwA.x, nwA.y);
  await page.mouse.down();
  await page.mouse.move(nwB.x, nwB.y, { steps: 6 });
  await page.mouse.up();
  const picked = await page.evaluate(() => steerkitLive.picked.slice());
  check(picked.length === 16 && picked.every((k) => k < 16), `a box round the west room picks its 16 walkers (${picked.join(",")})`);
  const dest = await toPage(-10, 8);
  await page.mouse.click(dest.x, dest.y);
  await page.waitForFunction(() => {
    const g = steerkitLive.handles.filter((h) => h.kind === "goal" && h.agent < 16);
    return g.length === 16 && g.every((h) => Math.hypot(h.x + 10, h.y - 8) < 4);
  }, null, { timeout: 5000 });
  const goals = await page.evaluate(() => steerkitLive.handles.filter((h) => h.kind === "goal" && h.agent < 16));
  let closest = Infinity;
  goals.forEach((a, i) => goals.slice(i + 1).forEach((b) => { closest = Math.min(closest, Math.hypot(a.x - b.x, a.y - b.y)); }));
  check(closest >= 1.0, `a click sends them to (-10, 8), each to its own spot (goals within 4 m, at least ${closest.toFixed(2)} m apart)`);
  await page.waitForFunction(() => {
    const r = steerkitLive.lastFrame.overlays.routes, goals = steerkitLive.handles.filter((h) => h.kind === "goal" && h.agent < 16);
    let at = 0, ok = 0;
    for (let i = 0; i < r.agent.length; i++) {
      const g = goals.find((h) => h.agent === r.agent[i]), end = at + r.count[i] - 1;
      if (g && Math.hypot(r.point[2 * end] - g.x, r.point[2 * end + 1] - g.y) < 0.01) ok++;
      at += r.count[i];
    }
    return ok === 16;
  }, null, { timeout: 5000 });
  check(true, "each picked walker's route now ends at its new goal");
  await page.click("#tool-move");
  const crate = await page.evaluate(() => steerkitLive.handles.find((h) => h.kind === "obstacle" && h.id === 3));
  const cFrom = await toPage(crate.x, crate.y), cTo = await toPage(0, -5.75);
  await page.mouse.move(cFrom.x, cFrom.y);
  await page.mouse.down();
  await page.mouse.move(cTo.x, cTo.y, { steps: 8 });
  await page.mouse.up();
  await page.waitForFunction(() => {
    const h = steerkitLive.handles.find((h) => h.kind === "obstacle" && h.id === 3);
    const r = (steerkitLive.lastFrame.overlays || {}).routes;
    if (!h || Math.hypot(h.x, h.y + 5.75) > 0.3 || !r || r.agent.length < 16) return false;
    for (let i = 0; i < r.point.length; i += 2) if (Math.abs(r.point[i]) < 1.5 && r.point[i + 1] < -3) return false;
    return true;
  }, null, { timeout: 8000 });
  check(true, "a crate dragged into the south door: every route re-plans through the north door");

  // ---- turrets: turret_lead fires, its shells fly and hit (steerkit run's own turret code) ----
  await page.selectOption("#live-scenario", "turret_lead");
  // a frame of turret_lead itself (frames since its scenario message)
  await page.waitForFunction(() => steerkitLive.name === "turret_lead" && steerkitLive.sinceLoad > 0, null, { timeout: 5000 });
  const guns = await page.evaluate(() => steerkitLive.handles.filter((h) => h.kind === "turret").length);
  check(guns === 2, `turret_lead's two turrets are handles (${guns})`);
  await page.waitForFunction(() => steerkitLive.turrets && steerkitLive.turrets[1].target_hits >= 1, null, { timeout: 15000 });
  const counts = await page.evaluate(() => ({ t: steerkitLive.time, turrets: steerkitLive.turrets, text: document.getElementById("turret-counts").innerText }));
  const [direct, leading] = counts.turrets;
  check(direct.shots >= 1 && leading.shots >= 1 && counts.text.includes("leading: ") && counts.text.includes("hit"),
    `by t = ${counts.t.toFixed(2)} s the guns fired ${direct.shots} and ${leading.shots} shells, the leading one hit ${leading.target_hits} (side panel: "${counts.text.replace(/\n/g, " | ")}")`);
  // pause with a shell in the air (stepping until one is), then look for it on the canvas
  await page.click("#live-play");
  await sleep(300);
  for (let k = 0; k < 200; k++) {
    const flying = await page.evaluate(() => (steerkitLive.shots || []).some((s) => s.outcome === "flying" && s.path.length > 5));
    if (flying) break;
    await page.click("#live-step");
    await sleep(30);
  }
  await sleep(400);
  const drawn = await page.evaluate(() => {
    const sh = steerkitLive.shots.filter((s) => s.outcome === "flying" && s.path.length > 5)[0];
    if (!sh) return null;
    const at = steerkitReplay.toScreen3(sh.impact[0], sh.impact[1], sh.impact[2]);
    const hex = steerkitLive.turretShapes[sh.turret].colour.replace("#", "");
    const want = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16));
    const c = document.getElementById("view"), g = c.getContext("2d"), k = c.width / c.clientWidth;
    const r = 5, img = g.getImageData(Math.round((at.x - r) * k), Math.round((at.y - r) * k), Math.round(2 * r * k), Math.round(2 * r * k)).data;
    let best = 1e9;
    for (let i = 0; i < img.length; i += 4) best = Math.min(best, Math.abs(img[i] - want[0]) + Math.abs(img[i + 1] - want[1]) + Math.abs(img[i + 2] - want[2]));
    return { turret: sh.turret, fired: sh.step, step: sh.end, at: sh.impact, predicted: sh.predicted.length, best };
  });
  check(drawn && drawn.predicted >= 2 && drawn.best < 40,
    drawn ? `a shell of turret ${drawn.turret} in the air (fired at step ${drawn.fired}, now ${drawn.step}) is drawn in its turret's colour where the frame puts it (${drawn.at.map((v) => v.toFixed(1)).join(", ")}; colour distance ${drawn.best}), with its predicted arc (${drawn.predicted} points)` : "a shell in the air");
  const shotT = join(dirname(shotPath), "serve-turrets.png");
  await page.screenshot({ path: shotT });
  check(existsSync(shotT), "turret screenshot saved to " + shotT);

  check(foreign.length === 0, "no request left the server (" + (foreign[0] || "none") + ")");
  check(problems.length === 0, "no page errors" + (problems.length ? ": " + problems.join("; ") : ""));
} catch (e) {
  console.error(e.message || e);
  exitCode = 1;
} finally {
  await context.close();
  rmSync(userDataDir, { recursive: true, force: true });
  server.kill("SIGTERM");
}
process.exit(exitCode);
