// Opens a steerkit replay.html in headless Chromium, plays it and checks that it works.
//
//   node tests/browser/replay.mjs [REPLAY_HTML] [SCREENSHOT_PNG]
//
// REPLAY_HTML defaults to $REPLAY_HTML or out/browser/replay.html (written by
// `cargo test -p steerkit-cli --test replay`); any replay of a scenario run works too
// (`steerkit run crossing --out out/browser/crossing` writes out/browser/crossing/replay.html).
// The screenshot defaults to $REPLAY_SCREENSHOT or replay.png beside the HTML file. Chromium is $CHROMIUM or /usr/bin/chromium.
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
  const info = await page.evaluate(() => ({ frames: steerkitReplay.frameCount, agents: steerkitReplay.agentCount }));
  check(info.frames > 10 && info.agents > 0, `recording loaded: ${info.agents} agents, ${info.frames} frames`);
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
    selected: steerkitReplay.selected, layers: steerkitReplay.layers(),
  }));

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

  // zoom with the wheel, then fit
  const box = await page.locator("#view").boundingBox();
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

  // edge cases written beside (3D, wrap-around, a lost agent; an empty recording): no errors
  for (const name of ["edge-3d-replay.html", "edge-empty-replay.html"]) {
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
