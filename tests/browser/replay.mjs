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

  // play for about 3 s
  await page.keyboard.press("Space");
  check((await state()).playing, "Space starts playback");
  await sleep(1500);
  const a = await canvasState(), fa = (await state()).frame;
  await sleep(1500);
  const b = await canvasState(), fb = (await state()).frame;
  check(fa > 0 && fb > fa, `frames advance while playing (${fa} -> ${fb})`);
  check(a.hash !== b.hash, "the canvas changes between two moments of playback");
  check(b.coloured > 300, `playback frames are drawn (${b.coloured} coloured pixels)`);

  // pause
  await page.click("#play");
  const paused = await state();
  check(!paused.playing, "the play button pauses");
  await sleep(300);
  const still = await state();
  check(still.frame === paused.frame, `paused playback stays on frame ${still.frame}`);

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

    // a big crowd, if the Rust test wrote one beside: it loads, plays and keeps drawing
    const crowdPath = join(dirname(htmlPath), "crowd-replay.html");
    if (existsSync(crowdPath)) {
      const t0 = Date.now();
      await page.goto(pathToFileURL(crowdPath).href, { waitUntil: "load" });
      await page.waitForFunction(() => window.steerkitReplay !== undefined, null, { timeout: 20000 });
      const loadMs = Date.now() - t0;
      const big = await page.evaluate(() => steerkitReplay.agentCount);
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
    await page.keyboard.press("Space");
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
