// Loads pages of a site written by `corpus report --format html` in Debian's headless
// chromium (through playwright-core; no browser is downloaded) and prints what it saw as
// JSON, for tests/it/html.rs to check; or writes screenshots.
//
//   node site.mjs check SITE_DIR                 -> JSON on stdout
//   node site.mjs shots SITE_DIR OUT_DIR [DOC]   -> OUT_DIR/index.png, OUT_DIR/document.png
//
// The browser is $CORPUS_CHROMIUM or /usr/bin/chromium. Every request is recorded; the
// checker reports those that are not file:// URLs inside SITE_DIR.
import { chromium } from 'playwright-core';
import { existsSync, readdirSync } from 'node:fs';
import { resolve, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [mode, siteArg, outArg, docArg] = process.argv.slice(2);
const site = resolve(siteArg);
const siteUrl = pathToFileURL(site).href + '/';
const browser = await chromium.launch({
  executablePath: process.env.CORPUS_CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--allow-file-access-from-files'],
});

async function visit(ctx, url) {
  const page = await ctx.newPage();
  const seen = { url, console_errors: [], page_errors: [], requests: [], dialogs: [] };
  page.on('console', (m) => { if (m.type() === 'error') seen.console_errors.push(m.text()); });
  page.on('pageerror', (e) => seen.page_errors.push(String(e)));
  page.on('request', (r) => seen.requests.push(r.url()));
  page.on('dialog', async (d) => { seen.dialogs.push(d.message()); await d.dismiss(); });
  await page.goto(url, { waitUntil: 'load' });
  // Lazy images: scroll through so that every one is requested.
  await page.evaluate(async () => {
    for (let y = 0; y < document.body.scrollHeight; y += 600) { window.scrollTo(0, y); await new Promise((r) => setTimeout(r, 10)); }
  });
  await page.waitForLoadState('networkidle');
  // Then every image to its end, loaded or failed (a loaded machine may still be decoding
  // when the scroll has passed; 20 s at most): what is checked is whether it loads.
  await page.evaluate(async () => {
    const settled = (i) => (i.complete ? Promise.resolve() : new Promise((r) => {
      i.addEventListener('load', r, { once: true });
      i.addEventListener('error', r, { once: true });
    }));
    for (const i of document.images) i.loading = 'eager';
    await Promise.race([
      Promise.all([...document.images].map(settled)),
      new Promise((r) => setTimeout(r, 20000)),
    ]);
  });
  return { page, seen };
}

if (mode === 'check') {
  const ctx = await browser.newContext();
  const out = { index: null, documents: [] };
  {
    const { page, seen } = await visit(ctx, siteUrl + 'index.html');
    seen.leaderboard = await page.$$eval('table.leaderboard td[data-value]', (tds) => tds.map((td) => ({
      provider: td.closest('tr').dataset.provider, model: td.closest('tr').dataset.model,
      metric: td.dataset.metric, value: td.dataset.value === 'null' ? null : Number(td.dataset.value), text: td.textContent,
    })));
    seen.doc_links = await page.$$eval('a[href^="doc/"]', (as) => [...new Set(as.map((a) => a.getAttribute('href')))]);
    seen.charts = await page.$$eval('svg.chart', (s) => s.length);
    seen.scripts = await page.$$eval('script', (s) => s.length);
    seen.pwned = await page.evaluate(() => window.__pwned ?? null);
    out.index = seen;
    await page.close();
  }
  const docDir = join(site, 'doc');
  for (const f of (existsSync(docDir) ? readdirSync(docDir) : []).filter((f) => f.endsWith('.html')).sort()) {
    const { page, seen } = await visit(ctx, siteUrl + 'doc/' + f);
    seen.file = f;
    seen.title = await page.$eval('h1', (h) => h.textContent);
    seen.figures = await page.$$eval('figure.page', (fs) => fs.map((fig) => ({
      provider: fig.dataset.provider, page: Number(fig.dataset.page),
      boxes: fig.querySelectorAll('svg.overlay rect.blk').length,
      image: fig.querySelector('img') ? { src: fig.querySelector('img').getAttribute('src'), loaded: fig.querySelector('img').complete && fig.querySelector('img').naturalWidth > 0 } : null,
    })));
    seen.imgs = await page.$$eval('img', (is) => is.map((i) => i.getAttribute('src')));
    seen.scripts = await page.$$eval('script', (s) => s.length);
    seen.pwned = await page.evaluate(() => window.__pwned ?? null);
    seen.body_text = await page.evaluate(() => document.body.innerText);
    seen.traces = await page.$$eval('details', (d) => d.length);
    out.documents.push(seen);
    await page.close();
  }
  // The agreement pages (agree.html, or the index itself on a site without scores, and agree/).
  out.agree = null;
  out.agree_documents = [];
  const agreeFile = existsSync(join(site, 'agree.html')) ? 'agree.html' : 'index.html';
  {
    const { page, seen } = await visit(ctx, siteUrl + agreeFile);
    seen.file = agreeFile;
    seen.heat = await page.$$eval('table.heatmap td.heat', (tds) => tds.map((td) => ({
      measure: td.closest('table').dataset.measure, a: Number(td.dataset.a), b: Number(td.dataset.b),
      value: td.dataset.value === 'null' ? null : Number(td.dataset.value),
      coloured: getComputedStyle(td).backgroundColor !== 'rgba(0, 0, 0, 0)' && getComputedStyle(td).backgroundColor !== 'rgb(255, 255, 255)',
    })));
    seen.ranking = await page.$$eval('table.ranking tbody tr', (trs) => trs.map((tr) => ({
      spread: Number(tr.dataset.spread), href: tr.querySelector('a').getAttribute('href'),
    })));
    seen.scripts = await page.$$eval('script', (s) => s.length);
    seen.pwned = await page.evaluate(() => window.__pwned ?? null);
    out.agree = seen;
    await page.close();
  }
  const agreeDir = join(site, 'agree');
  for (const f of (existsSync(agreeDir) ? readdirSync(agreeDir) : []).filter((f) => f.endsWith('.html')).sort()) {
    const { page, seen } = await visit(ctx, siteUrl + 'agree/' + f);
    seen.file = f;
    seen.sections = await page.$$eval('section.agree-page', (ss) => ss.map((sec) => ({
      id: sec.id, figures: sec.querySelectorAll('figure.page').length, unplaced: sec.querySelectorAll('div.unplaced').length,
      boxes: sec.querySelectorAll('svg.overlay rect.blk').length, pairs: sec.querySelectorAll('table.pairs tbody tr').length,
      images: [...sec.querySelectorAll('figure.page img')].map((i) => i.complete && i.naturalWidth > 0),
    })));
    seen.scripts = await page.$$eval('script', (s) => s.length);
    seen.pwned = await page.evaluate(() => window.__pwned ?? null);
    out.agree_documents.push(seen);
    await page.close();
  }
  for (const p of [out.index, ...out.documents, out.agree, ...out.agree_documents]) {
    p.foreign_requests = p.requests.filter((u) => !u.startsWith(siteUrl));
  }
  process.stdout.write(JSON.stringify(out));
} else if (mode === 'shots') {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const { page } = await visit(ctx, siteUrl + 'index.html');
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(outArg, 'index.png'), fullPage: true });
  const docs = readdirSync(join(site, 'doc')).filter((f) => f.endsWith('.html')).sort();
  const doc = docArg || docs[0];
  const { page: dp } = await visit(ctx, siteUrl + 'doc/' + doc);
  await dp.evaluate(() => window.scrollTo(0, 0));
  await dp.screenshot({ path: join(outArg, 'document.png'), fullPage: false });
  await dp.screenshot({ path: join(outArg, 'document-full.png'), fullPage: true });
  console.log(join(outArg, 'index.png'));
  console.log(join(outArg, 'document.png'));
} else {
  console.error('usage: node site.mjs check SITE | shots SITE OUT [DOC]');
  process.exit(2);
}
await browser.close();
