// The replay page in a real browser: Debian's chromium, headless, driven by puppeteer-core.
// Usage: node replay_browser_test.cjs CONTACTLAB FIXTURE WORK_DIR
//   (NODE_PATH: core/app/replay/node_modules, where tools/setup.sh installed puppeteer-core, pngjs)
// It runs FIXTURE (every shape type falling onto a floor), writes its page with `contactlab view`,
// opens the page from disk and checks, on the rendered pixels of two screenshots:
//   - the page loads with no console error and no uncaught exception, and fetches nothing;
//   - every body is drawn: in its screen area most pixels differ from the background;
//   - moving the time slider moves the bodies: between the screenshots at the first and the last
//     frame the pixels differ where a body was, and not in a corner far from all of them;
//   - play advances the time.
'use strict';
const {execFileSync} = require('child_process');
const fs = require('fs');
const path = require('path');
const puppeteer = require('puppeteer-core');
const {PNG} = require('pngjs');

const [cli, fixture, work] = process.argv.slice(2);
if (!cli || !fixture || !work) {
  console.error('usage: node replay_browser_test.cjs CONTACTLAB FIXTURE WORK_DIR');
  process.exit(2);
}
const chromium = process.env.CONTACTLAB_CHROMIUM || '/usr/bin/chromium';
const background = [0xf4, 0xf5, 0xf7];  // the page's scene.background
let failures = 0;
function check(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures++;
}

fs.rmSync(work, {recursive: true, force: true});
fs.mkdirSync(work, {recursive: true});
const runDir = path.join(work, 'run');
execFileSync(cli, ['run', fixture, '--out', runDir, '--view'], {stdio: ['ignore', 'inherit', 'pipe']});
const page_file = path.join(runDir, 'replay.html');
check(fs.existsSync(page_file), `run --view wrote ${page_file}`);
const html = fs.readFileSync(page_file, 'utf8');
check(!/<script[^>]+src=|<link[^>]+href=|https?:\/\/(?!www\.w3\.org)/.test(html.replace(/"[^"]*three\.js[^"]*"/g, '')),
      'the page has no external script, stylesheet or URL (self-contained)');

function differs(pixel, reference, tolerance = 12) {
  return Math.abs(pixel[0] - reference[0]) > tolerance ||
      Math.abs(pixel[1] - reference[1]) > tolerance || Math.abs(pixel[2] - reference[2]) > tolerance;
}
function pixelAt(png, x, y) {
  const i = (png.width * Math.round(y) + Math.round(x)) * 4;
  return [png.data[i], png.data[i + 1], png.data[i + 2]];
}
/// Fraction of pixels in the rectangle that differ from `reference` (a colour, or another image).
function differingFraction(png, box, reference) {
  let differing = 0, total = 0;
  const x0 = Math.max(0, Math.floor(box.left)), x1 = Math.min(png.width - 1, Math.ceil(box.right));
  const y0 = Math.max(0, Math.floor(box.top)), y1 = Math.min(png.height - 1, Math.ceil(box.bottom));
  for (let y = y0; y <= y1; ++y)
    for (let x = x0; x <= x1; ++x) {
      const other = Array.isArray(reference) ? reference : pixelAt(reference, x, y);
      differing += differs(pixelAt(png, x, y), other) ? 1 : 0;
      ++total;
    }
  return total ? differing / total : 0;
}
/// The central half of a body's screen box: inside its silhouette for every convex shape.
function core(box) {
  const w = box.right - box.left, h = box.bottom - box.top;
  return {left: box.left + w / 4, right: box.right - w / 4, top: box.top + h / 4,
          bottom: box.bottom - h / 4};
}

(async () => {
  const browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    // WebGL without a GPU: SwiftShader, which chromium only enables for WebGL when told to.
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
           '--ignore-gpu-blocklist'],
  });
  try {
    const page = await browser.newPage();
    await page.setViewport({width: 1200, height: 700});
    const errors = [];
    const requests = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('request', (r) => { if (!r.url().startsWith('file://')) requests.push(r.url()); });
    await page.goto('file://' + path.resolve(page_file), {waitUntil: 'load'});
    await page.waitForFunction('window.contactlabReplay && window.contactlabReplay.ready',
                               {timeout: 30000});
    const info = await page.evaluate(() => ({
      frames: window.contactlabReplay.frameCount,
      times: window.contactlabReplay.times_s,
    }));
    check(info.frames > 10, `the page has ${info.frames} frames`);
    const bodies = ['sphere', 'box', 'rounded_box', 'ellipsoid', 'cylinder', 'cone', 'frustum',
                    'capsule', 'beam', 'hull'];
    const boxes = async () => {
      const out = {};
      for (const b of bodies)
        out[b] = await page.evaluate((n) => window.contactlabReplay.screenPosition(n), b);
      return out;
    };
    const shot = async () => PNG.sync.read(await page.screenshot({type: 'png'}));

    const first = await shot();
    const firstBoxes = await boxes();
    for (const b of bodies) {
      const fraction = differingFraction(first, core(firstBoxes[b]), background);
      check(fraction > 0.5, `${b} is drawn at t = 0: ${(100 * fraction).toFixed(0)} % of the ` +
            'pixels in the centre of its screen box differ from the background');
    }
    const floorPixel = pixelAt(first, 600, 690);
    check(differs(floorPixel, background, 4), 'the floor (half-space) is drawn below the bodies');

    // Move the slider as a user does (its value, then the input event a drag fires).
    await page.$eval('#slider', (el, v) => {
      el.value = String(v);
      el.dispatchEvent(new Event('input', {bubbles: true}));
    }, info.frames - 1);
    const shown = await page.evaluate(() => window.contactlabReplay.frame());
    check(shown === info.frames - 1, `the slider moved the page to its last frame (${shown})`);
    const timeText = await page.$eval('#time', (el) => el.textContent);
    check(timeText.includes(info.times[info.frames - 1].toFixed(4)),
          `the page shows the simulated time of the frame: "${timeText}"`);
    const last = await shot();
    const lastBoxes = await boxes();
    const moved = lastBoxes.sphere.top > firstBoxes.sphere.top + 10;  // down on the screen
    const away = {  // where the sphere was at t = 0 and is not at the end
      left: firstBoxes.sphere.left, right: firstBoxes.sphere.right,
      top: firstBoxes.sphere.top, bottom: Math.min(firstBoxes.sphere.bottom,
                                                    lastBoxes.sphere.top - 1),
    };
    check(moved && away.bottom > away.top + 2,
          `the sphere fell on screen: its top went from y = ${firstBoxes.sphere.top.toFixed(0)} ` +
          `to ${lastBoxes.sphere.top.toFixed(0)} px`);
    const changed = differingFraction(last, core(away), first);
    check(changed > 0.5, `where the sphere was, ${(100 * changed).toFixed(0)} % of the pixels ` +
          'changed between the two screenshots');
    const corner = {left: 0, right: 60, top: 0, bottom: 40};
    check(differingFraction(last, corner, first) === 0,
          'a corner far from every body is the same in both screenshots');
    for (const b of bodies) {
      const fraction = differingFraction(last, core(lastBoxes[b]), background);
      check(fraction > 0.5, `${b} is drawn at the end: ${(100 * fraction).toFixed(0)} %`);
    }

    // Play from the start: the frame advances by itself.
    await page.$eval('#slider', (el) => {
      el.value = '0';
      el.dispatchEvent(new Event('input', {bubbles: true}));
    });
    await page.select('#speed', '0.1');
    await page.click('#play');
    await new Promise((r) => setTimeout(r, 1500));
    const playing = await page.evaluate(() => window.contactlabReplay.frame());
    check(playing > 0, `play advanced the replay to frame ${playing}`);

    check(errors.length === 0, `no console error or exception${errors.length ? ': ' + errors.join(' | ') : ''}`);
    check(requests.length === 0, `nothing fetched${requests.length ? ': ' + requests.join(' ') : ''}`);
  } finally {
    await browser.close();
  }
  console.log(failures ? `${failures} checks failed` : 'replay page: all checks passed');
  process.exit(failures ? 1 : 0);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
