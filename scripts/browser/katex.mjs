// KaTeX in headless Chromium for corpus's olmOCR-bench math tests (corpus::external::chromium): renders
// formulas the way olmOCR-bench's runner does (olmocr/bench/katex/render.py, `_do_render`) and
// returns, per formula, what that code extracts: the `outerHTML` of `.katex-mathml math`, and
// every inner-most <span> (no child element) whose text has a non-whitespace character, with
// its trimmed text and `getBoundingClientRect()` box.
//
// Protocol (JSON lines). First line written: {"ready": true, "katex": V, "browser": V}, or
// {"fatal": why} before exiting 1. Then per stdin line {"batch": ["tex", ...]} one stdout line
// {"renders": [{"mathml": M, "spans": [{"text", "x", "y", "width", "height"}], "error": E}]},
// in request order; a KaTeX error gives {"error": message, "mathml": message, "spans": []}, as
// render.py does. One browser for the whole run; stdin closed -> the browser closes.
//
// The page is render.py's: an 800x400 viewport, its HTML (flex-centred container, 24px font),
// katex.min.css and katex.min.js injected by addStyleTag/addScriptTag from their paths (so, as
// there, KaTeX's relative font URLs resolve against about:blank). One page is set up once and
// each formula is rendered into its container with katex.render(tex, el, {displayMode: true,
// throwOnError: true}); docs/olmocr-bench.md §3 says why that lays out as a fresh page does.
//
// The browser is $CORPUS_CHROMIUM or /usr/bin/chromium; KaTeX is $CORPUS_KATEX_DIST or
// ../katex/node_modules/katex/dist (the pinned version, `npm ci --prefix scripts/katex`).
import { createInterface } from 'node:readline';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const send = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');
const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(process.env.CORPUS_KATEX_DIST || join(here, '..', 'katex', 'node_modules', 'katex', 'dist'));
const css = join(dist, 'katex.min.css');
const js = join(dist, 'katex.min.js');
const executablePath = process.env.CORPUS_CHROMIUM || '/usr/bin/chromium';

// render.py's page, byte for byte (bg_color white, text_color black, font_size 24).
const PAGE = `
    <!DOCTYPE html>
    <html>
    <head>
        <style>
            body {
                display: flex;
                justify-content: center;
                align-items: center;
                height: 100vh;
                margin: 0;
                background-color: white;
                color: black;
            }
            #equation-container {
                padding: 0;
                font-size: 24px;
            }
        </style>
    </head>
    <body>
        <div id="equation-container"></div>
    </body>
    </html>
    `;

let chromium;
try {
  ({ chromium } = await import('playwright-core'));
} catch (e) {
  send({ fatal: `cannot load playwright-core (npm ci --prefix scripts/browser): ${e.message}` });
  process.exit(1);
}
for (const f of [css, js]) {
  if (!existsSync(f)) {
    send({ fatal: `${f} not found (npm ci --prefix scripts/katex)` });
    process.exit(1);
  }
}
if (!existsSync(executablePath)) {
  send({ fatal: `${executablePath} not found (Debian's chromium package, or set CORPUS_CHROMIUM)` });
  process.exit(1);
}

let browser, page, version;
try {
  browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
  const ctx = await browser.newContext({ viewport: { width: 800, height: 400 } });
  page = await ctx.newPage();
  await page.setContent(PAGE);
  await page.addStyleTag({ path: css });
  await page.addScriptTag({ path: js });
  await page.waitForLoadState('networkidle', { timeout: 0 });
  version = await page.evaluate(() => (typeof katex !== 'undefined' ? katex.version : null));
  if (!version) throw new Error('KaTeX did not load in the page');
} catch (e) {
  send({ fatal: `cannot start ${executablePath}: ${e.message.split('\n')[0]}` });
  if (browser) await browser.close().catch(() => {});
  process.exit(1);
}
send({ ready: true, katex: version, browser: browser.version() });

// Runs in the page: render.py's three evaluate() calls, per formula.
function renderAll(texs) {
  const el = document.getElementById('equation-container');
  return texs.map((tex) => {
    try {
      katex.render(tex, el, { displayMode: true, throwOnError: true });
    } catch (error) {
      return { error: error.message, mathml: error.message, spans: [] };
    }
    const spans = [];
    for (const span of document.querySelectorAll('span')) {
      if (span.children.length === 0 && /\S/.test(span.textContent)) {
        const r = span.getBoundingClientRect();
        spans.push({ text: span.textContent.trim(), x: r.x, y: r.y, width: r.width, height: r.height });
      }
    }
    const math = document.querySelector('.katex-mathml math');
    return { error: null, mathml: math ? math.outerHTML : '', spans };
  });
}

// One batch at a time, in order.
let queue = Promise.resolve();
const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', (line) => {
  queue = queue.then(async () => {
    let batch;
    try {
      batch = JSON.parse(line).batch;
      if (!Array.isArray(batch) || !batch.every((t) => typeof t === 'string')) throw new Error('no string array "batch"');
    } catch (e) {
      send({ fatal: `bad request: ${e.message}` });
      return;
    }
    try {
      send({ renders: await page.evaluate(renderAll, batch) });
    } catch (e) {
      send({ fatal: `the browser failed: ${e.message.split('\n')[0]}` });
    }
  });
});
rl.on('close', () => {
  queue.then(() => browser.close()).finally(() => process.exit(0));
});
