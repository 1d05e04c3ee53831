// End to end: the real folio-desktop binary under Xvfb, driven through tauri-driver (WebKitWebDriver).
// Ingests two real rulebooks from ../shared/data, searches, opens a hit and checks its breadcrumb
// against the outline, follows a cross-reference and comes back, opens a definition, filters by
// chunk type, shows the glossary, and then searches while a 772-page PDF ingests (each answer
// within 200 ms). What the analyst reads must be right: no internal section id in the hit list or
// the Reader's heading line, five files added while an ingest runs are all listed at once, Open
// original marks every line of a passage on the PDF page, the expert settings are folded under
// Advanced, and what the library cites but lacks sits folded below the documents. Saves a
// screenshot of each view under tests/artifacts/e2e/.
//
//   node tests/e2e/app.mjs   (scripts/e2e.sh sets up the display, the driver and the data)
//
// Environment: FOLIO_E2E_DRIVER (default http://127.0.0.1:4444), FOLIO_E2E_APP (the binary),
// FOLIO_E2E_DOCS (two documents or more, ':'-separated; GEN and AML for the cross-document check), FOLIO_E2E_BIG_PDF,
// FOLIO_E2E_TABLE_PDF (a filing: a table hit's highlight, row by row), FOLIO_E2E_CLOSE_PDF (added
// last; the window closes while it ingests), FOLIO_E2E_ARTIFACTS,
// FOLIO_E2E_WATCH_DIR (an empty folder: watched, then files are added, renamed and deleted in it),
// FOLIO_E2E_LIBRARY (the library folder: after the first session its catalog is damaged, and a
// second start of the app must offer the repair, run it and show the library again),
// FOLIO_E2E_LOG_DIR (the app's log folder: the damaged library's error must be in it, and no
// document text, query or key), FOLIO_E2E_TEAM (a new, empty PostgreSQL database for a team
// library, as JSON settings: host, port, database, user, tls) and FOLIO_E2E_SECOND_APP (the app
// with a data folder and settings of its own, set to that team library): Settings switch the
// first app to the team library, a PDF is added, and the second app finds it.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { assistantEntry } from './assistant.mjs';
import { Keys, Session, sleep } from './webdriver.mjs';

const driver = process.env.FOLIO_E2E_DRIVER || 'http://127.0.0.1:4444';
const app = process.env.FOLIO_E2E_APP;
const docs = (process.env.FOLIO_E2E_DOCS || '').split(':').filter(Boolean);
const bigPdf = process.env.FOLIO_E2E_BIG_PDF;
/** A company filing in PDF whose table's highlight is checked row by row. */
const tablePdf = process.env.FOLIO_E2E_TABLE_PDF;
/** A PDF added last, so that the window closes during its ingest. */
const closePdf = process.env.FOLIO_E2E_CLOSE_PDF;
const artifacts = process.env.FOLIO_E2E_ARTIFACTS || 'tests/artifacts/e2e';
const watchDir = process.env.FOLIO_E2E_WATCH_DIR;
const logDir = process.env.FOLIO_E2E_LOG_DIR;
/** A query and a key the app is given; neither may reach its log. */
const LOGGED_QUERY = 'Authorised Person must notify the Regulator';
const LOGGED_KEY = 'sk-ant-e2e-never-logged-5f3a9c';
mkdirSync(artifacts, { recursive: true });

const results = [];
function check(name, ok, detail = '') {
  results.push({ name, ok, detail });
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? ` — ${detail}` : ''}`);
  if (!ok) throw new Error(`${name}: ${detail}`);
}

async function shot(s, name) {
  writeFileSync(join(artifacts, `${name}.png`), Buffer.from(await s.screenshot(), 'base64'));
}

/** Empties the search box the way a user's select-all and delete would (React sees the input event). */
async function clearSearch(s) {
  await s.exec(
    `const el = document.querySelector('[data-testid="search-input"]');
     Object.getOwnPropertyDescriptor(Object.getPrototypeOf(el), 'value').set.call(el, '');
     el.dispatchEvent(new Event('input', { bubbles: true }));`,
  );
}

async function nav(s, view) {
  await (await s.find(`[data-testid="nav-${view}"]`)).click();
}

async function addPath(s, path) {
  const input = await s.find('[data-testid="add-path-input"]');
  await input.clear();
  await input.type(path);
  await (await s.find('[data-testid="add-path-button"]')).click();
}

/** Internal section ids as the engine makes them (`sec_12_1_3_guidance_1`, `s_11_14_1`): never on screen. */
const INTERNAL_ID = /\b(?:sec|s|part|item)_[0-9a-z_]+\b/;

/** An ingest row's stages that are over. */
const FINAL_STAGES = ['indexed', 'unchanged', 'failed', 'cancelled'];
const RUNNING_STAGES = ['converting', 'contextualizing', 'embedding', 'indexing'];

/**
 * The text shown in the elements matching `css`, without the parts matching `skip` (a hit's
 * snippet is the document's own words, where an underscored name may stand).
 */
async function shownText(s, css, skip = null) {
  return s.exec(
    `return Array.from(document.querySelectorAll(arguments[0])).map((el) => {
       const copy = el.cloneNode(true);
       if (arguments[1]) copy.querySelectorAll(arguments[1]).forEach((x) => x.remove());
       return copy.textContent;
     }).join('\\n');`,
    [css, skip],
  );
}

/** Checks that `text` (what `where` shows) holds no internal section id. */
function checkNoId(where, text) {
  const found = text.match(INTERNAL_ID);
  check(`no internal id in ${where}`, !found && text.trim().length > 0, found ? `shows "${found[0]}"` : `${text.trim().length} characters checked`);
}

/** The ingest panel's rows as [file, stage]. */
async function ingestRows(s) {
  return s.exec(`return Array.from(document.querySelectorAll('[data-testid="ingest-row"]')).map((r) => [r.getAttribute('data-file'), r.getAttribute('data-stage')]);`);
}

/**
 * Five small text files, a.txt … e.txt, in a new temporary folder (removed when the test ends):
 * copies of the rulebooks beside the e2e documents that the library does not hold, the smallest
 * first; where there are fewer, the e2e documents with a line of their own on top (new content).
 */
function fiveTextFiles() {
  const dir = mkdtempSync(join(tmpdir(), 'folio-e2e-queue-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const folder = dirname(docs[0]);
  const others = readdirSync(folder)
    .filter((f) => f.endsWith('.txt') && !docs.some((d) => basename(d) === f))
    .map((f) => join(folder, f))
    .sort((a, b) => statSync(a).size - statSync(b).size);
  return ['a', 'b', 'c', 'd', 'e'].map((name, i) => {
    const file = join(dir, `${name}.txt`);
    if (others[i]) copyFileSync(others[i], file);
    else writeFileSync(file, `Queue check ${name}\n\n${readFileSync(docs[i % docs.length], 'utf8')}`);
    return file;
  });
}

/** Times one search through the app's IPC, as the UI makes it. */
async function timedSearch(s, query) {
  return s.execAsync(
    `const done = arguments[arguments.length - 1];
     const t = performance.now();
     window.__TAURI_INTERNALS__.invoke('search', { request: { query: arguments[0], limit: 10, documents: [], chunk_types: [], section: null } })
       .then((hits) => done({ ms: performance.now() - t, n: hits.length }), (e) => done({ error: String(e && e.message || e) }));`,
    [query],
  );
}

/**
 * Starts the app (or `application`), waits for its window and runs `body` with the session; on a failure saves the
 * screenshot `failureShot`. The results so far are written out and the app closed either way.
 */
async function withApp(failureShot, body, application = app) {
  const s = await Session.start(driver, { 'tauri:options': { application } });
  try {
    await s.waitFor('[data-testid="nav-library"]', { timeoutMs: 30000, what: 'the window' });
    await body(s);
  } catch (e) {
    await shot(s, failureShot).catch(() => {});
    throw e;
  } finally {
    writeFileSync(join(artifacts, 'results.json'), JSON.stringify(results, null, 2));
    await s.end().catch(() => {});
  }
}

async function main() {
  if (!app || docs.length < 2) throw new Error('FOLIO_E2E_APP and two FOLIO_E2E_DOCS are required');
  await withApp('failure', async (s) => {
    check('window opens', true);

    // Library: two real documents.
    await nav(s, 'library');
    for (const d of docs) await addPath(s, d);
    await s.until(
      async () => {
        const rows = await s.findAll('[data-testid="doc-row"]');
        return rows.length >= docs.length;
      },
      { timeoutMs: 240000, what: `${docs.length} documents indexed` },
    );
    const labels = await Promise.all((await s.findAll('[data-testid="doc-row"]')).map((r) => r.attr('data-label')));
    check('documents ingested', labels.length >= 2, labels.join(', '));
    await shot(s, 'library');

    // What the library cites but lacks: below the documents, one line until shown.
    await s.waitFor('[data-testid="missing-documents"]', { timeoutMs: 15000, what: '"Cited but not in your library"' });
    const placed = await s.exec(
      `const table = document.querySelector('.doc-table');
       const panel = document.querySelector('[data-testid="missing-documents"]');
       return { below: !!(table.compareDocumentPosition(panel) & Node.DOCUMENT_POSITION_FOLLOWING), listed: document.querySelectorAll('[data-testid="missing-document"]').length };`,
    );
    const summary = (await (await s.find('[data-testid="missing-summary"]')).text()).trim();
    await (await s.find('[data-testid="missing-toggle"]')).click();
    const cited = await s.waitFor('[data-testid="missing-document"]', { what: 'the instruments cited but missing' });
    await s.exec(`document.querySelector('[data-testid="missing-documents"]').scrollIntoView({ block: 'end' });`);
    await shot(s, 'missing-documents');
    check(
      'cited but missing: below the documents, folded to one line',
      placed.below && placed.listed === 0 && /^Cited but not in your library: \d+ instruments? — show$/.test(summary) && cited.length > 0,
      `"${summary}"; ${cited.length} listed when shown; below the table: ${placed.below}`,
    );
    await (await s.find('[data-testid="missing-toggle"]')).click();

    // Search: results as you type, with breadcrumbs.
    await nav(s, 'search');
    const box = await s.find('[data-testid="search-input"]');
    await box.type(LOGGED_QUERY);
    const hits = await s.waitFor('[data-testid="hit"]', { what: 'search results' });
    check('search shows hits', hits.length > 0, `${hits.length} hits`);
    const crumbs = await s.findAll('[data-testid="hit"] [data-testid="hit-crumb"]');
    check('hits carry breadcrumbs', crumbs.length > 0);
    await shot(s, 'search');

    // Move to a hit with the keyboard and open it; its breadcrumb matches the outline.
    await box.type(Keys.ArrowDown);
    const selected = await s.until(async () => (await s.findAll('[data-testid="hit"][aria-selected="true"]'))[0], { what: 'a selected hit' });
    const hitSection = await selected.attr('data-section-id');
    const hitCrumbs = [];
    for (const c of await s.findAll('[data-testid="hit"][aria-selected="true"] [data-testid="hit-crumb"]')) hitCrumbs.push((await c.text()).trim());
    await box.type(Keys.Enter);
    await s.waitFor('[data-testid="reader-heading"]', { what: 'the reader' });
    const current = await s.until(async () => {
      const cur = await s.findAll('[data-testid="outline-item"][aria-current="true"]');
      return cur.length ? cur[0] : null;
    }, { what: 'the current outline item' });
    const currentId = await current.attr('data-section-id');
    check('reader opens the selected hit', currentId === hitSection, `${hitSection} → ${currentId}`);
    const readerCrumbs = [];
    for (const c of await s.findAll('[data-testid="reader-crumb"]')) readerCrumbs.push((await c.text()).trim());
    const outlineTexts = await s.exec(
      `return Array.from(document.querySelectorAll('[data-testid="outline-item"]')).map(e => e.textContent.trim());`,
    );
    const inOutline = hitCrumbs.every((c) => outlineTexts.some((t) => t.startsWith(c)));
    check(
      'breadcrumb matches the outline',
      JSON.stringify(readerCrumbs.slice(-hitCrumbs.length)) === JSON.stringify(hitCrumbs) && inOutline,
      `hit [${hitCrumbs.join(' › ')}], reader [${readerCrumbs.join(' › ')}], each crumb in the outline: ${inOutline}`,
    );
    await shot(s, 'reader');

    // Follow a cross-reference and come back.
    await nav(s, 'search');
    const box2 = await s.find('[data-testid="search-input"]');
    await clearSearch(s);
    await box2.type('twelve Principles for Authorised Persons set out in Rule 2.2');
    await s.waitFor('[data-testid="hit"]');
    const firstHit = await s.find('[data-testid="hit"]');
    const wanted = await firstHit.attr('data-section-id');
    await (await s.find('[data-testid="hit"] [data-testid="hit-title"]')).click();
    await s.until(async () => {
      const cur = await s.findAll('[data-testid="outline-item"][aria-current="true"]');
      return cur.length && (await cur[0].attr('data-section-id')) === wanted;
    }, { what: `the reader at ${wanted}` });
    const xrefs = await s.until(async () => {
      const x = await s.findAll('[data-testid="xref"][data-target-section]');
      return x.length ? x : null;
    }, { what: 'a resolved cross-reference in the section', timeoutMs: 15000 });
    const before = (await (await s.find('[data-testid="reader-heading"]')).text()).trim();
    const target = await xrefs[0].attr('data-target-section');
    await xrefs[0].click();
    await s.until(async () => (await (await s.find('[data-testid="reader-heading"]')).text()).trim() !== before, { what: 'the target section' });
    const after = (await (await s.find('[data-testid="reader-heading"]')).text()).trim();
    await shot(s, 'reader-xref');
    await (await s.find('[data-testid="back"]')).click();
    await s.until(async () => (await (await s.find('[data-testid="reader-heading"]')).text()).trim() === before, { what: 'back' });
    check('cross-reference followed and back', true, `${before} → ${target} (${after}) → back`);

    // Across documents: AML's "GEN Rule 5.5.1" leads to GEN 5.5.1, and GEN 5.5.1's "Referenced by"
    // panel leads back to AML.
    await nav(s, 'search');
    const box4 = await s.find('[data-testid="search-input"]');
    await clearSearch(s);
    await box4.type('Authorised Persons are reminded that under GEN Rule 5.5.1 the MLRO function is a mandatory appointment');
    const amlHit = await s.until(async () => {
      for (const h of await s.findAll('[data-testid="hit"]')) {
        if ((await h.attr('data-section-id'))?.startsWith('sec_12_1_3')) return h;
      }
      return null;
    }, { what: "AML's guidance 12.1.3 among the hits", timeoutMs: 20000 });
    const amlSection = await amlHit.attr('data-section-id');
    // The hits name sections by their printed numbers and headings, not by ids like the one above.
    checkNoId('the hit list', await shownText(s, '[data-testid="hit"]', '[data-testid="snippet"]'));
    await shot(s, 'search-numbers');
    await (await s.find(`[data-testid="hit"][data-section-id="${amlSection}"] [data-testid="hit-title"]`)).click();
    const toGen = await s.until(async () => {
      for (const x of await s.findAll('[data-testid="xref"][data-target-section="sec_5_5_1"]')) return x;
      return null;
    }, { what: 'the link "GEN Rule 5.5.1" in AML', timeoutMs: 15000 });
    const amlHeading = (await (await s.find('[data-testid="reader-heading"]')).text()).trim();
    checkNoId("the Reader's heading line", await shownText(s, '[data-testid="reader-heading"], [data-testid="reader-meta"], .reader-crumbs'));
    await shot(s, 'reader-heading');
    const genDoc = await toGen.attr('data-target-doc');
    await toGen.click();
    await s.until(async () => {
      const cur = await s.findAll('[data-testid="outline-item"][aria-current="true"]');
      return cur.length && (await cur[0].attr('data-section-id')) === 'sec_5_5_1';
    }, { what: 'GEN 5.5.1 in the reader' });
    const back = await s.until(async () => {
      for (const b of await s.findAll('[data-testid="backlink"]')) {
        if ((await b.attr('data-section-id')) === amlSection) return b;
      }
      return null;
    }, { what: `a backlink from AML ${amlSection} under "Referenced by"`, timeoutMs: 15000 });
    await shot(s, 'reader-backlinks');
    await back.click();
    await s.until(async () => (await (await s.find('[data-testid="reader-heading"]')).text()).trim() === amlHeading, {
      what: 'back in AML by the backlink',
    });
    check('cross-document reference and its backlink', true, `AML ${amlSection} → document ${genDoc} sec_5_5_1 → back to AML`);

    // A definition popover on a marked term (it opens on hover or focus; a click focuses the term).
    // Found and clicked again while it has not opened. (Its failures had an app cause, now fixed: a
    // term that had to be scrolled into view closed its popover at once, as any scroll did.)
    const pop = await s.until(async () => {
      const terms = await s.findAll('[data-testid="term"]');
      if (!terms.length) return null;
      await terms[0].click();
      const shown = await s.findAll('[data-testid="definition-popover"]');
      return shown.length ? shown : null;
    }, { what: 'the definition popover of a defined term in the text' });
    const popText = (await pop[0].text()).trim();
    check('definition popover', popText.length > 10, popText.slice(0, 80));
    await shot(s, 'definition');

    // Filter by chunk type.
    await nav(s, 'search');
    const box3 = await s.find('[data-testid="search-input"]');
    await clearSearch(s);
    await box3.type('means');
    await s.waitFor('[data-testid="hit"]');
    const opt = await s.find('[data-testid="filter-chunk-type"] [data-value="definition"]');
    await opt.click();
    await s.until(async () => {
      const badges = await s.findAll('[data-testid="hit"] [data-testid="chunk-type-badge"]');
      if (!badges.length) return false;
      const texts = await Promise.all(badges.map((b) => b.text()));
      return texts.every((t) => t.trim().toLowerCase() === 'definition');
    }, { what: 'only definition hits' });
    check('chunk-type filter', true);
    await shot(s, 'search-filtered');
    // The filter off again, as a user would leave it before the searches below.
    await opt.click();
    await s.until(async () => !(await s.exec(`return document.querySelector('[data-testid="filter-chunk-type"] [data-value="definition"]').checked`)), {
      what: 'the type filter off',
    });

    // The glossary.
    await nav(s, 'definitions');
    const items = await s.waitFor('[data-testid="glossary-item"]', { what: 'glossary items' });
    check('glossary lists definitions', items.length > 5, `${items.length} shown`);
    await shot(s, 'definitions');
    await nav(s, 'settings');
    await sleep(500);
    await shot(s, 'settings');
    // The ranking's settings are folded under Advanced; with the offline context writer no key is asked for.
    const folded = await s.exec(`return !document.querySelector('[data-testid="settings-advanced"]').open;`);
    await (await s.find('[data-testid="settings-advanced-toggle"]')).click();
    await s.until(async () => s.exec(`return document.querySelector('[data-testid="settings-advanced"]').open && document.querySelector('[data-testid="setting-fusion"]').offsetParent !== null;`), {
      what: 'the Advanced settings unfolded',
    });
    const provider = await s.exec(`return document.querySelector('[data-testid="setting-context-provider"]').value;`);
    const keyFields = (await s.findAll('[data-testid^="key-input-"]')).length;
    await s.exec(`document.querySelector('[data-testid="settings-advanced"]').scrollIntoView({ block: 'center' });`);
    await shot(s, 'settings-advanced');
    check(
      'settings: expert ones under Advanced, no key field for an offline context writer',
      folded && (provider === 'structural' || provider === 'none' ? keyFields === 0 : keyFields === 1),
      `Advanced folded at first: ${folded}; context writer ${provider}, ${keyFields} key fields`,
    );
    await assistantEntry(s, { check, shot, binary: process.env.FOLIO_E2E_APP_BINARY || app });
    // A key handed to the app (stored in the keychain, or refused where there is none): it must
    // never reach the log (checked once the app has logged an error, below).
    await s.execAsync(
      `const done = arguments[arguments.length - 1];
       window.__TAURI_INTERNALS__.invoke('set_key', { provider: 'anthropic', key: arguments[0] }).then(() => done(true), () => done(false));`,
      [LOGGED_KEY],
    );
    await s.execAsync(
      `const done = arguments[arguments.length - 1];
       window.__TAURI_INTERNALS__.invoke('remove_key', { provider: 'anthropic' }).then(() => done(true), () => done(false));`,
    );

    // A watched folder: the library view follows files added, renamed and deleted in it, with no
    // action in the window. (The folder is chosen through the app's IPC: WebDriver cannot drive the
    // native folder dialog.)
    if (watchDir) {
      await nav(s, 'library');
      const rowCount = async () => (await s.findAll('[data-testid="doc-row"]')).length;
      const before = await rowCount();
      await s.execAsync(
        `const done = arguments[arguments.length - 1];
         window.__TAURI_INTERNALS__.invoke('watch_folder', { path: arguments[0] }).then(done, (e) => done(String(e)));`,
        [watchDir],
      );
      const rule = (w) => `# 1 Watched Rules\n\n1.1 An Authorised Person must keep ${w} records.\n\n# 2 Reports\n\n2.1 Reports are due monthly.\n`;
      let t = Date.now();
      writeFileSync(join(watchDir, 'watched-rules.md'), rule('complete'));
      await s.until(async () => (await rowCount()) === before + 1, { timeoutMs: 20000, what: 'the added file in the library' });
      const added = Date.now() - t;
      await s.waitFor('[data-testid="watched-folder"]', { what: 'the watched folder listed' });
      await shot(s, 'library-watched');
      t = Date.now();
      renameSync(join(watchDir, 'watched-rules.md'), join(watchDir, 'renamed-rules.md'));
      await s.until(
        async () => {
          const paths = await s.exec(`return Array.from(document.querySelectorAll('[data-testid="doc-row"] .doc-title')).map(r => r.title)`);
          return paths.length === before + 1 && paths.some((p) => p.includes('renamed-rules.md'));
        },
        { timeoutMs: 20000, what: 'the renamed file in the library' },
      );
      const renamed = Date.now() - t;
      t = Date.now();
      rmSync(join(watchDir, 'renamed-rules.md'));
      await s.until(async () => (await rowCount()) === before, { timeoutMs: 20000, what: 'the deleted file gone' });
      const deleted = Date.now() - t;
      check('watched folder: add, rename, delete followed', true, `added ${added} ms, renamed ${renamed} ms, deleted ${deleted} ms`);
    }

    // Without the big PDF, the five files go in as one folder: the engine lists them at once.
    if (!bigPdf) {
      await nav(s, 'library');
      const five = fiveTextFiles();
      await addPath(s, dirname(five[0]));
      // Weaker than the check behind the big PDF: the rows stay once done, so this shows that the
      // folder is listed by its five files, not that they were listed before any finished.
      const t = Date.now();
      const rows = await s.until(async () => {
        const all = await ingestRows(s);
        return five.every((f) => all.some(([file]) => file === f)) && all;
      }, { timeoutMs: 20000, what: 'the five files of the folder in the ingest panel' });
      await shot(s, 'ingest-queue');
      const waiting = rows.filter(([file, stage]) => five.includes(file) && !FINAL_STAGES.includes(stage)).length;
      check('five files added together are all listed', true, `within ${Date.now() - t} ms, ${waiting} of them not done yet (no big PDF to add them behind)`);
    }

    // Responsiveness: searches while a big PDF ingests.
    if (bigPdf) {
      await nav(s, 'library');
      await addPath(s, bigPdf);
      await s.until(async () => {
        const rows = await s.findAll('[data-testid="ingest-row"]');
        for (const r of rows) {
          const st = await r.attr('data-stage');
          if (RUNNING_STAGES.includes(st)) return true;
        }
        return false;
      }, { what: 'the big PDF ingesting', timeoutMs: 30000 });
      await shot(s, 'library-ingesting');

      // Five files typed in while the PDF ingests: all listed at once, queued, and counted.
      const five = fiveTextFiles();
      for (const f of five) await addPath(s, f);
      const listed = await s
        .until(
          async () => {
            const rows = await ingestRows(s);
            return five.every((f) => rows.some(([file]) => file === f)) && rows;
          },
          { timeoutMs: 10000, what: 'the five files in the ingest panel' },
        )
        .catch(async (e) => {
          // What the panel listed instead, and what the path field still holds: a path the
          // field lost and a slow panel read differently.
          const rows = await ingestRows(s).catch(() => []);
          const field = await s.exec(`return document.querySelector('[data-testid="add-path-input"]')?.value ?? null`);
          throw new Error(`${e.message}; listed ${JSON.stringify(rows)}; path field ${JSON.stringify(field)}`);
        });
      const heading = (await (await s.find('[data-testid="ingest-panel"] h2')).text()).trim();
      await shot(s, 'ingest-queue');
      const pdfStage = listed.find(([file]) => file === bigPdf)?.[1];
      const waiting = listed.filter(([file, stage]) => five.includes(file) && stage === 'queued').length;
      const all = Number(heading.match(/^Adding documents \(\d+\/(\d+)\)$/)?.[1] ?? 0);
      check(
        'five files added while an ingest runs are all listed at once',
        waiting === 5 && pdfStage !== undefined && !FINAL_STAGES.includes(pdfStage) && all >= 6,
        `${waiting} of 5 listed queued while the PDF is ${pdfStage}; "${heading}"`,
      );
      const busy = async () =>
        (await s.exec(`return Array.from(document.querySelectorAll('[data-testid="ingest-row"]')).map(r => r.getAttribute('data-stage'))`)).some(
          (st) => ['queued', 'converting', 'contextualizing', 'embedding', 'indexing'].includes(st),
        );
      const times = [];
      const queries = ['client money', 'Rule 2.1.1', 'notify the Regulator', 'package maintainer', 'Authorised Person'];
      for (let i = 0; i < 200 && (await busy()); i++) {
        const r = await timedSearch(s, queries[i % queries.length]);
        if (r.error) throw new Error(r.error);
        if (await busy()) times.push(r.ms);
        // A short pause: the PDF's ingest lasts a few seconds on a fast machine, and fewer than
        // five searches fell in it at one search per 200 ms (a CI run measured four).
        await sleep(50);
      }
      times.sort((a, b) => a - b);
      const max = times.length ? times[times.length - 1] : NaN;
      check(
        'searches answer within 200 ms during the ingest',
        times.length >= 5 && max < 200,
        `${times.length} searches during the ingest: median ${times[times.length >> 1]?.toFixed(1)} ms, max ${max.toFixed(1)} ms`,
      );
      writeFileSync(join(artifacts, 'search-during-ingest.json'), JSON.stringify(times));

      // Open original on a passage of several lines of the PDF: each line marked on the page.
      await s.until(async () => (await ingestRows(s)).every(([, stage]) => FINAL_STAGES.includes(stage)), {
        timeoutMs: 900000,
        what: 'the ingests to end',
      });
      const pdfRow = (await ingestRows(s)).find(([file]) => file === bigPdf);
      check('the big PDF is indexed', pdfRow?.[1] === 'indexed', `${pdfRow?.[1]}`);
      await checkOriginal(s, 'maintainer scripts');
      // A table of a company filing: every row marked on its page.
      if (tablePdf) {
        await nav(s, 'library');
        await addPath(s, tablePdf);
        await s.until(async () => (await ingestRows(s)).some(([file, stage]) => file === tablePdf && FINAL_STAGES.includes(stage)), {
          timeoutMs: 120000,
          what: 'the filing indexed',
        });
        await checkOriginal(s, 'Sales by Company-operated restaurants revenues from franchised restaurants', { table: true });
      }

      // One more PDF, left ingesting: the session ends (the window closes) while it runs, which
      // closedPhase checks the app survives by exiting promptly.
      if (closePdf) {
        await nav(s, 'library');
        await addPath(s, closePdf);
        await s.until(async () => (await ingestRows(s)).some(([file, stage]) => file === closePdf && RUNNING_STAGES.includes(stage)), {
          timeoutMs: 30000,
          what: 'the last PDF ingesting',
        });
        check('a document is still ingesting as the window closes', true, basename(closePdf));
      }
    }
  });
}

/**
 * Opens the original of a hit in a PDF whose passage runs over several lines (its text is 300
 * characters or more; with `table`, a table hit), and checks that the page marks it line by line:
 * marks on two lines or more reaching over more than one line's height, and for a table, a mark on
 * as many lines of the page as the table has rows or more.
 */
async function checkOriginal(s, query, { table = false } = {}) {
  await nav(s, 'search');
  await clearSearch(s);
  await (await s.find('[data-testid="search-input"]')).type(query);
  await s.waitFor('[data-testid="hit"]', { what: `hits for "${query}"` });
  // The passages, from the same search through the app's IPC (the list shows snippets).
  const passages = await s.execAsync(
    `const done = arguments[arguments.length - 1];
     window.__TAURI_INTERNALS__.invoke('search', { request: { query: arguments[0], limit: 30, documents: [], chunk_types: [], section: null } })
       .then((hits) => done(Object.fromEntries(hits.filter((h) => h.path.endsWith('.pdf')).map((h) => [h.chunk_id, { length: h.content.length, type: h.chunk_type, rows: h.content.split('\\n').filter((r) => r.trim()).length }]))), () => done({}));`,
    [query],
  );
  const wanted = Object.fromEntries(Object.entries(passages).filter(([, p]) => p.length >= 300 && (!table || p.type === 'table')));
  const chunk = await s.until(
    async () =>
      s.exec(
        `for (const h of document.querySelectorAll('[data-testid="hit"]')) if (arguments[0][h.dataset.chunkId]) return h.dataset.chunkId;
         return null;`,
        [wanted],
      ),
    { what: `a ${table ? 'table ' : ''}hit of several lines in a PDF for "${query}"` },
  );
  const hit = `[data-testid="hit"][data-chunk-id="${chunk}"]`;
  const section = await (await s.find(hit)).attr('data-section-id');
  await (await s.find(`${hit} [data-testid="hit-title"]`)).click();
  await s.until(async () => (await (await s.find('[data-testid="reader-heading"]')).attr('data-section-id')) === section, { what: 'the hit in the reader' });
  await (await s.find('[data-testid="open-original"]')).click();
  await s.waitFor('[data-testid="page-frame"][data-resolution="full"]', { timeoutMs: 30000, what: 'the full page image' });
  const marks = await s.exec(
    `return Array.from(document.querySelectorAll('[data-testid="page-highlight"]')).map((e) => {
       const r = e.getBoundingClientRect();
       return { top: r.top, bottom: r.bottom, height: r.height };
     });`,
  );
  const page = (await (await s.find('[data-testid="page-number"]')).text()).trim();
  await shot(s, table ? 'original-highlight-table' : 'original-highlight');
  const heights = marks.map((m) => m.height).sort((a, b) => a - b);
  const line = heights[heights.length >> 1] ?? 0;
  const reach = marks.length ? Math.max(...marks.map((m) => m.bottom)) - Math.min(...marks.map((m) => m.top)) : 0;
  // Lines of the page with a mark: marks whose middles lie within half a line of each other are on one.
  const middles = marks.map((m) => (m.top + m.bottom) / 2).sort((a, b) => a - b);
  const lines = middles.filter((y, i) => i === 0 || y - middles[i - 1] > line / 2).length;
  const rows = wanted[chunk].rows;
  check(
    table ? 'Open original marks every row of a table hit' : 'Open original marks every line of the passage',
    marks.length >= 2 && reach > 1.5 * line && (!table || lines >= rows),
    `${marks.length} marks on ${lines} lines reaching over ${reach.toFixed(0)} px (a line ${line.toFixed(0)} px), ${page}, chunk ${chunk} of ${wanted[chunk].length} characters${table ? ` and ${rows} rows` : ''}`,
  );
  await (await s.find('[data-testid="original-dialog"] button[aria-label="Close"]')).click();
}

/** Process ids of running copies of the app binary. */
function appProcesses() {
  try {
    const binary = process.env.FOLIO_E2E_APP_BINARY || app;
    return execFileSync('pgrep', ['-f', '-x', `${binary}( .*)?`], { encoding: 'utf8' }).split(/\s+/).filter(Boolean);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

/**
 * Closing the window ends the app, also while a document is still being indexed (the ingest is
 * cancelled; a document not yet written is not in the library): the next start must not find the
 * first one still holding the library. Waits for the first app to be gone, and checks it went
 * promptly.
 */
async function closedPhase() {
  const t = Date.now();
  while (appProcesses().length && Date.now() - t < 60000) await sleep(100);
  const left = appProcesses();
  const ms = Date.now() - t;
  check('the app exits when its window closes', left.length === 0 && ms < 10000, left.length ? `still running after ${ms} ms: ${left.join(' ')}` : `gone ${ms} ms after the session ended`);
  writeFileSync(join(artifacts, 'results.json'), JSON.stringify(results, null, 2));
}

/**
 * A damaged catalog (a page overwritten, as a disk fault would): the app opens to an error that
 * offers *Repair library*; the repair rebuilds the catalog from the chunk records and the library
 * is back with every document.
 */
async function repairPhase() {
  const lib = process.env.FOLIO_E2E_LIBRARY;
  if (!lib) return;
  const db = join(lib, 'catalog.sqlite');
  const bytes = readFileSync(db);
  if (bytes.length < 3 * 4096) throw new Error(`the catalog is only ${bytes.length} bytes`);
  bytes.fill(0xa5, 4096 + 100, 2 * 4096);
  writeFileSync(db, bytes);
  rmSync(`${db}-wal`, { force: true });
  rmSync(`${db}-shm`, { force: true });
  await withApp('failure-repair', async (s) => {
    await nav(s, 'library');
    const [note] = await s.waitFor('[data-testid="error"][data-code="damaged"]', { timeoutMs: 30000, what: 'the damaged-library note' });
    check('a damaged catalog is reported in the app', /damaged/.test(await note.text()), (await note.text()).slice(0, 100));
    await shot(s, 'library-damaged');
    await checkLog(s);
    // The Library view again, should the window have been reloaded meanwhile (WebKit reloads a
    // page whose web process it ended, which a machine under heavy load has been seen to do).
    await nav(s, 'library');
    const [repairButton] = await s.waitFor('[data-testid="repair-library"]', { timeoutMs: 30000, what: 'the repair button' });
    const t = Date.now();
    await repairButton.click();
    const [done] = await s.waitFor('[data-testid="repair-done"]', { timeoutMs: 180000, what: 'the repair' });
    const ms = Date.now() - t;
    const said = await done.text();
    await shot(s, 'library-repaired');
    await (await s.find('[data-testid="repair-done"] button')).click();
    await s.waitFor('[data-testid="nav-library"]', { timeoutMs: 30000, what: 'the window after the reload' });
    await nav(s, 'library');
    const rows = await s.waitFor('[data-testid="doc-row"]', { count: docs.length, timeoutMs: 30000, what: 'the documents after the repair' });
    check('the app repairs a damaged catalog', rows.length >= docs.length, `${said.replace(/\s*Open the library$/, '')} (${ms} ms); ${rows.length} documents listed`);
  });
}

/** The text of every log file in the log folder. */
function logText() {
  if (!logDir || !existsSync(logDir)) return '';
  return readdirSync(logDir)
    .filter((f) => f.startsWith('folio.log'))
    .map((f) => readFileSync(join(logDir, f), 'utf8'))
    .join('\n');
}

/**
 * The app opened on a damaged library wrote why to its log file, and the diagnostics report
 * carries it; the log holds no query, key or document text from the sessions before.
 */
async function checkLog(s) {
  if (!logDir) return;
  const log = await s.until(async () => {
    const text = logText();
    return /the library could not be opened: .*damaged/.test(text) && text;
  }, { timeoutMs: 10000, what: 'the error in the log file' });
  const line = log.split('\n').find((l) => /could not be opened/.test(l));
  check('the app logs why the library did not open', true, line.slice(0, 140));
  const diagnostics = await s.execAsync(
    `const done = arguments[arguments.length - 1];
     window.__TAURI_INTERNALS__.invoke('diagnostics').then(done, (e) => done({ error: String(e && e.message || e) }));`,
  );
  check(
    'diagnostics carry the version and the last problem',
    !diagnostics.error && diagnostics.version && diagnostics.recent_errors.some((e) => /could not be opened/.test(e)),
    diagnostics.error || `${diagnostics.version}, ${diagnostics.recent_errors.length} problems, log ${diagnostics.log_dir}`,
  );
  // Sentences of the documents that were indexed: none may be in the log.
  const sentences = docs
    .flatMap((d) => readFileSync(d, 'utf8').split(/(?<=[.;:])\s+/))
    .map((x) => x.trim())
    .filter((x) => x.length >= 40);
  const leaked = sentences.filter((x) => log.includes(x));
  check(
    'the log holds no document text, query or key',
    leaked.length === 0 && !log.includes(LOGGED_QUERY) && !log.includes(LOGGED_KEY) && sentences.length > 100,
    leaked.length ? `leaked: ${leaked[0].slice(0, 80)}` : `${log.length} bytes checked against ${sentences.length} sentences`,
  );
}

/** Sets a controlled input's value the way typing would (React sees the input event). */
async function setField(s, testid, value) {
  await s.exec(
    `const el = document.querySelector(arguments[0]);
     Object.getOwnPropertyDescriptor(Object.getPrototypeOf(el), 'value').set.call(el, arguments[1]);
     el.dispatchEvent(new Event(el.tagName === 'SELECT' ? 'change' : 'input', { bubbles: true }));`,
    [`[data-testid="${testid}"]`, String(value)],
  );
}

/** The labels of the documents the Library view lists. */
async function docLabels(s) {
  return s.exec(`return Array.from(document.querySelectorAll('[data-testid="doc-row"]')).map((r) => r.getAttribute('data-label'));`);
}

/**
 * A team library: the first app is switched to it in Settings (the server's fields typed in as a
 * user would), a PDF is added, and a second app, with its own data folder and settings, finds the
 * document in its list and in a search.
 */
async function teamPhase() {
  const team = process.env.FOLIO_E2E_TEAM && JSON.parse(process.env.FOLIO_E2E_TEAM);
  const second = process.env.FOLIO_E2E_SECOND_APP;
  if (!team || !second || !tablePdf) {
    console.log('SKIP team library: FOLIO_E2E_TEAM, FOLIO_E2E_SECOND_APP or FOLIO_E2E_TABLE_PDF is not set');
    return;
  }
  let label;
  await withApp('failure-team', async (s) => {
    await nav(s, 'settings');
    await (await s.waitFor('[data-testid="setting-library-team"]', { what: 'the library choice' }))[0].click();
    await s.waitFor('[data-testid="team-library"]', { what: 'the team library fields' });
    await setField(s, 'setting-team-host', team.host);
    await setField(s, 'setting-team-port', team.port);
    await setField(s, 'setting-team-database', team.database);
    await setField(s, 'setting-team-user', team.user);
    await setField(s, 'setting-team-tls', team.tls);
    await shot(s, 'settings-team-library');
    await (await s.find('[data-testid="save-settings"]')).click();
    // Saved and opened: the password field appears under the saved address; no error is shown.
    await s.waitFor('[data-testid="key-postgres"]', { timeoutMs: 60000, what: 'the team library saved and opened' });
    const errors = await s.findAll('[data-testid="error"]');
    check('Settings switch to a team library', errors.length === 0, errors.length ? await errors[0].text() : `${team.user}@${team.host}:${team.port}/${team.database}`);
    await nav(s, 'library');
    await s.until(async () => (await docLabels(s)).length === 0, { timeoutMs: 30000, what: 'the empty team library listed' });
    await addPath(s, tablePdf);
    const labels = await s.until(async () => {
      const l = await docLabels(s);
      return l.length === 1 && l;
    }, { timeoutMs: 240000, what: 'the PDF in the team library' });
    label = labels[0];
    await shot(s, 'team-library');
    check('a PDF is added to the team library', true, label);
  });
  await closedPhase();
  // The second app: its own data folder and settings (set to the same team library).
  await withApp('failure-team-second', async (s) => {
    await nav(s, 'library');
    const labels = await s.until(async () => {
      const l = await docLabels(s);
      return l.length > 0 && l;
    }, { timeoutMs: 60000, what: 'the team library in the second app' });
    await nav(s, 'search');
    await (await s.find('[data-testid="search-input"]')).type('comparable sales');
    const hits = await s.waitFor('[data-testid="hit"]', { timeoutMs: 30000, what: 'hits in the second app' });
    const shown = await shownText(s, '[data-testid="hit"]');
    await shot(s, 'team-library-second-app');
    check(
      'a second app with its own data folder finds the PDF in the team library',
      labels.length === 1 && labels[0] === label && hits.length > 0 && shown.includes(label),
      `listed ${labels.join(', ')}; ${hits.length} hits for "comparable sales"`,
    );
  }, second);
}

main()
  .then(closedPhase)
  .then(repairPhase)
  .then(closedPhase)
  .then(teamPhase)
  .then(
    () => console.log(`e2e: ${results.length} checks passed`),
    (e) => {
      console.error(`e2e failed: ${e.message}`);
      process.exit(1);
    },
  );
