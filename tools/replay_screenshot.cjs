// A screenshot of a replay page (`contactlab view`) at a simulated time, in headless chromium.
// Usage: NODE_PATH=core/app/replay/node_modules node tools/replay_screenshot.cjs \
//          RUN_DIR/replay.html OUT.png [--time T] [--size WIDTHxHEIGHT]
// (tools/setup.sh test installs puppeteer-core there and Debian's chromium; CONTACTLAB_CHROMIUM
// names another browser.) The README's picture is made with it.
'use strict';
const path = require('path');
const puppeteer = require('puppeteer-core');

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const value = args[i + 1];
  args.splice(i, 2);
  return value;
};
const time = Number(option('--time', 'NaN'));
const [width, height] = option('--size', '1200x700').split('x').map(Number);
const [pageFile, out] = args;
if (!pageFile || !out || !(width > 0) || !(height > 0)) {
  console.error('usage: node replay_screenshot.cjs PAGE.html OUT.png [--time T] [--size WxH]');
  process.exit(2);
}

(async () => {
  const browser = await puppeteer.launch({
    executablePath: process.env.CONTACTLAB_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
           '--ignore-gpu-blocklist'],
  });
  try {
    const page = await browser.newPage();
    await page.setViewport({width, height});
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto('file://' + path.resolve(pageFile), {waitUntil: 'load'});
    await page.waitForFunction('window.contactlabReplay && window.contactlabReplay.ready',
                               {timeout: 30000});
    const shown = await page.evaluate((t) => {
      const replay = window.contactlabReplay;
      let frame = replay.frameCount - 1;
      if (Number.isFinite(t)) {
        frame = replay.times_s.findIndex((s) => s >= t - 1e-12);
        if (frame < 0) frame = replay.frameCount - 1;
      }
      replay.showFrame(frame);
      return replay.times_s[frame];
    }, time);
    await page.screenshot({path: out, type: 'png'});
    if (errors.length) throw new Error('the page reported errors: ' + errors.join(' | '));
    console.log(`${out}: t = ${shown} s`);
  } finally {
    await browser.close();
  }
})().catch((e) => {
  console.error(String(e));
  process.exit(1);
});
