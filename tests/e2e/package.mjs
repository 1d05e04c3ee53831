// The installed app as an analyst meets it: the folio-desktop of the Debian package (unpacked by
// scripts/test-package.sh into a scratch root), started with a scratch home and no FOLIO_*
// variables, driven through tauri-driver (WebKitWebDriver).
//
// 1. First run: the empty library greets with the welcome and its drop zone (screenshot
//    first-run.png, the one the README shows).
// 2. Adds a PDF, searches it, opens the first hit in the reader, and shows About with the
//    licences of the models and PDFium.
// 3. "Open with": a second start with a file argument adds that file and shows it in the reader;
//    then `folio-desktop FILE` run while the window is open hands the file to that window (the
//    second process exits at once) and the window shows it.
//
//   node tests/e2e/package.mjs   (scripts/test-package.sh sets up the display, the driver and the data)
//
// Environment: FOLIO_E2E_DRIVER (default http://127.0.0.1:4444), FOLIO_E2E_APP (the installed
// folio-desktop), FOLIO_E2E_PDF, FOLIO_E2E_OPEN (two more files for "Open with", ':'-separated),
// FOLIO_E2E_QUERY (a query the PDF answers), FOLIO_E2E_ARTIFACTS.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Session, sleep } from './webdriver.mjs';

const driver = process.env.FOLIO_E2E_DRIVER || 'http://127.0.0.1:4444';
const app = process.env.FOLIO_E2E_APP;
const pdf = process.env.FOLIO_E2E_PDF;
const opened = (process.env.FOLIO_E2E_OPEN || '').split(':').filter(Boolean);
const query = process.env.FOLIO_E2E_QUERY || 'requirements';
const artifacts = process.env.FOLIO_E2E_ARTIFACTS || 'tests/artifacts/package';
mkdirSync(artifacts, { recursive: true });

function check(name, ok, detail = '') {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? ` — ${detail}` : ''}`);
  if (!ok) throw new Error(`${name}: ${detail}`);
}

async function shot(s, name) {
  writeFileSync(join(artifacts, `${name}.png`), Buffer.from(await s.screenshot(), 'base64'));
}

async function withApp(args, failureShot, body) {
  const s = await Session.start(driver, { 'tauri:options': { application: app, args } });
  try {
    await s.waitFor('[data-testid="nav-library"]', { timeoutMs: 30000, what: 'the window' });
    await body(s);
  } catch (e) {
    await shot(s, failureShot).catch(() => {});
    throw e;
  } finally {
    await s.end().catch(() => {});
  }
}

/** Waits until the reader shows the document whose file name is `file`; returns its label. */
async function readerShows(s, file, timeoutMs) {
  const docs = await s.until(
    async () => {
      const shown = await s.findAll('[data-testid="reader-doc-label"]');
      if (shown.length === 0) return null;
      const id = await shown[0].attr('data-doc-id');
      const title = await shown[0].attr('title');
      return { id, title, label: (await shown[0].text()).trim() };
    },
    { timeoutMs, what: `the reader showing ${basename(file)}` },
  );
  return docs;
}

async function main() {
  if (!app || !pdf || opened.length < 2) throw new Error('FOLIO_E2E_APP, FOLIO_E2E_PDF and two FOLIO_E2E_OPEN files are required');

  await withApp([], 'failure-first-run', async (s) => {
    const welcome = await s.waitFor('[data-testid="welcome"]', { timeoutMs: 20000, what: 'the welcome' });
    const text = await welcome[0].text();
    check('first run greets with the welcome', text.includes('Welcome to Folio') && text.includes('Drop files or folders here'));
    const current = await s.find('[data-testid="nav-library"]');
    check('first run opens on the Library', (await current.attr('aria-current')) === 'page');
    await sleep(500); // the next frame painted: WebKit's snapshot lags the DOM
    await shot(s, 'first-run');

    // Add the PDF the way a user types a path into "Add from a path".
    const input = await s.find('[data-testid="add-path-input"]');
    await input.type(pdf);
    await (await s.find('[data-testid="add-path-button"]')).click();
    const t0 = Date.now();
    await s.waitFor('[data-testid="doc-row"]', { timeoutMs: 300000, what: 'the PDF indexed' });
    check('a PDF is added', true, `${basename(pdf)} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    await shot(s, 'library');

    await (await s.find('[data-testid="nav-search"]')).click();
    await (await s.find('[data-testid="search-input"]')).type(query);
    const hits = await s.waitFor('[data-testid="hit"]', { what: 'search results' });
    check('search finds it', hits.length > 0, `${hits.length} hits for “${query}”`);
    const section = await hits[0].attr('data-section-id');
    await shot(s, 'search');
    await (await s.find('[data-testid="hit"] [data-testid="hit-title"]')).click();
    const heading = await s.waitFor('[data-testid="reader-heading"]', { what: 'the reader' });
    const shownSection = await heading[0].attr('data-section-id');
    check('the hit opens in the reader', shownSection === section, `${section} → ${shownSection}: ${(await heading[0].text()).trim()}`);
    await shot(s, 'reader');

    await (await s.find('[data-testid="nav-settings"]')).click();
    await s.waitFor('[data-testid="about"]', { what: 'About' });
    const version = (await (await s.find('[data-testid="about-version"]')).text()).trim();
    const parts = [];
    for (const c of await s.findAll('[data-testid="about-component"]')) {
      const texts = await s.exec('return arguments[0].querySelector("[data-testid=licence-text]")?.textContent || ""', [c.ref]);
      parts.push({ name: await c.attr('data-name'), licence: texts.length });
    }
    const missing = parts.filter((p) => p.licence === 0).map((p) => p.name);
    check(
      'About shows the version and every licence',
      /^Folio \d+\.\d+\.\d+/.test(version) && parts.length >= 2 && missing.length === 0,
      `${version}; ${parts.map((p) => `${p.name} (${p.licence} chars)`).join(', ')}${missing.length ? `; without text: ${missing.join(', ')}` : ''}`,
    );
    await s.exec('document.querySelector("[data-testid=about]").scrollIntoView()');
    await shot(s, 'about');
  });

  // "Open with": the file manager starts folio-desktop with the file.
  await withApp([opened[0]], 'failure-open-with', async (s) => {
    const shown = await readerShows(s, opened[0], 300000);
    check('a file opened with Folio is added and shown', shown.title.length > 0, `${basename(opened[0])} → reader on ${shown.label}`);

    // Opened again while the window is open: the new process hands it over and exits.
    const t = Date.now();
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('FOLIO_')));
    const r = spawnSync(app, [opened[1]], { env, timeout: 30000 });
    check(
      'a second folio-desktop hands its file to the open window',
      r.status === 0 && Date.now() - t < 15000,
      `exit ${r.status} after ${Date.now() - t} ms${r.stderr?.length ? `: ${r.stderr}` : ''}`,
    );
    const next = await s.until(
      async () => {
        const d = await readerShows(s, opened[1], 1000).catch(() => null);
        return d && d.id !== shown.id ? d : null;
      },
      { timeoutMs: 300000, what: `the reader showing ${basename(opened[1])}` },
    );
    check('the open window shows the handed-over file', true, `${basename(opened[1])} → reader on ${next.label}`);
    await shot(s, 'open-with');
  });
}

main().then(
  () => console.log('package app check passed'),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
