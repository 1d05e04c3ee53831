// The desktop app's AI-assistant entry, end to end: read from Settings, started as an assistant
// would start it, refused until the switch allows it, then answering as an MCP server. Used by
// app.mjs in its Settings phase.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { basename } from 'node:path';

/**
 * Starts an MCP server as an assistant would, from Settings' entry, and talks to it as a client
 * (JSON-RPC lines on its stdin and stdout): initialize, list the tools, search. Resolves with what
 * it answered, or with how it ended when it refused (exit status and stderr).
 */
function askAssistantServer(entry, query) {
  return new Promise((resolve) => {
    const child = spawn(entry.command, entry.args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const waiting = new Map();
    const result = { tools: [], hits: 0, status: null, stderr: '' };
    const timer = setTimeout(() => child.kill('SIGKILL'), 60000);
    child.stderr.on('data', (d) => (err += d));
    child.stdout.on('data', (d) => {
      out += d;
      let nl;
      while ((nl = out.indexOf('\n')) >= 0) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        try {
          const msg = JSON.parse(line);
          waiting.get(msg.id)?.(msg);
        } catch {
          /* not a JSON-RPC line */
        }
      }
    });
    const send = (msg) => child.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...msg }) + '\n');
    const call = (id, method, params) =>
      new Promise((answered) => {
        waiting.set(id, answered);
        send({ id, method, params });
      });
    child.on('exit', (status) => {
      clearTimeout(timer);
      result.status = status;
      result.stderr = err.trim();
      resolve(result);
    });
    child.stdin.on('error', () => {
      /* the server went away (refused); its exit says why */
    });
    (async () => {
      await call(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } });
      send({ method: 'notifications/initialized' });
      const tools = await call(2, 'tools/list', {});
      result.tools = (tools.result?.tools ?? []).map((t) => t.name);
      const found = await call(3, 'tools/call', { name: 'search', arguments: { query, limit: 5 } });
      result.hits = found.result?.structuredContent?.hits?.length ?? 0;
      child.stdin.end();
    })();
  });
}

/**
 * Settings show the entry an assistant's MCP configuration takes; an assistant started with it is
 * refused until the switch allows it, then lists the tools and searches the library.
 */
export async function assistantEntry(s, { check, shot, binary }) {
  const text = await s.exec(`return document.querySelector('[data-testid="assistant-snippet"]')?.textContent ?? '';`);
  let entry = null;
  try {
    entry = JSON.parse(text).mcpServers.folio;
  } catch {
    entry = null;
  }
  check(
    'settings show the MCP entry to paste into an assistant',
    !!entry && entry.args.join(' ') === 'mcp' && existsSync(entry.command) && basename(entry.command) === basename(binary),
    text.replace(/\s+/g, ' ').slice(0, 160),
  );
  if (!entry) return;
  const refused = await askAssistantServer(entry, 'mooring');
  await s.exec(`document.querySelector('[data-testid="settings-assistants"]').scrollIntoView({ block: 'center' });`);
  await (await s.find('[data-testid="setting-assistants"]')).click();
  await (await s.find('[data-testid="save-settings"]')).click();
  await s.until(async () => s.exec(`return !document.querySelector('[data-testid="assistant-snippet-off"]') && !!document.querySelector('[role="status"]');`), {
    what: 'the assistants switch saved',
  });
  await shot(s, 'settings-assistants');
  const served = await askAssistantServer(entry, 'definitions of Authorised Person');
  check(
    'an assistant started with it is refused until allowed, then searches the library',
    refused.status !== 0 && /Settings/.test(refused.stderr) && served.tools.includes('search') && served.tools.includes('read_section') && served.hits > 0,
    `before: exit ${refused.status} (${refused.stderr.slice(0, 90)}); after: ${served.tools.length} tools, ${served.hits} hits`,
  );
}

