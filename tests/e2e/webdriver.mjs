// A small W3C WebDriver client over fetch (Node 20), enough to drive the Folio window through
// tauri-driver: sessions, elements, clicks, keys, scripts and screenshots.
const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';
export const Keys = { ArrowDown: '\uE015', ArrowUp: '\uE013', Enter: '\uE007', Escape: '\uE00C' };

export class Session {
  constructor(base, id) {
    this.base = base;
    this.id = id;
  }

  static async start(base, capabilities, timeoutMs = 60000) {
    const res = await req(base, 'POST', '/session', { capabilities: { alwaysMatch: capabilities } }, timeoutMs);
    return new Session(base, res.sessionId);
  }

  cmd(method, path, body) {
    return req(this.base, method, `/session/${this.id}${path}`, body);
  }

  async find(css) {
    const v = await this.cmd('POST', '/element', { using: 'css selector', value: css });
    return new El(this, v[ELEMENT]);
  }

  async findAll(css) {
    const v = await this.cmd('POST', '/elements', { using: 'css selector', value: css });
    return v.map((e) => new El(this, e[ELEMENT]));
  }

  /** Waits until `css` matches at least `count` elements; returns them. */
  async waitFor(css, { count = 1, timeoutMs = 20000, what = css } = {}) {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const els = await this.findAll(css).catch(() => []);
      if (els.length >= count) return els;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what} (${els.length}/${count})`);
      await sleep(100);
    }
  }

  /** Waits until `fn()` returns a truthy value; returns it. */
  async until(fn, { timeoutMs = 20000, what = 'a condition' } = {}) {
    const end = Date.now() + timeoutMs;
    let last;
    for (;;) {
      try {
        last = await fn();
        if (last) return last;
      } catch (e) {
        last = e;
      }
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${last}`);
      await sleep(150);
    }
  }

  exec(script, args = []) {
    return this.cmd('POST', '/execute/sync', { script, args });
  }

  execAsync(script, args = []) {
    return this.cmd('POST', '/execute/async', { script, args });
  }

  screenshot() {
    return this.cmd('GET', '/screenshot');
  }

  end() {
    return this.cmd('DELETE', '');
  }
}

export class El {
  constructor(session, id) {
    this.s = session;
    this.id = id;
    this.ref = { [ELEMENT]: id };
  }
  click() {
    return this.s.cmd('POST', `/element/${this.id}/click`, {});
  }
  type(text) {
    return this.s.cmd('POST', `/element/${this.id}/value`, { text });
  }
  clear() {
    return this.s.cmd('POST', `/element/${this.id}/clear`, {});
  }
  text() {
    return this.s.cmd('GET', `/element/${this.id}/text`);
  }
  attr(name) {
    return this.s.cmd('GET', `/element/${this.id}/attribute/${name}`);
  }
}

export function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

async function req(base, method, path, body, timeoutMs = 30000) {
  const res = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  }).catch((e) => {
    throw new Error(`${method} ${path}: no answer (${e.message}) within ${timeoutMs} ms`);
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok || (json.value && json.value.error)) {
    const v = json.value || {};
    throw new Error(`${method} ${path}: ${v.error || res.status} ${v.message || ''}`);
  }
  return json.value;
}
