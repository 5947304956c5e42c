// The Agent's module loads only what construction needs: the session `start()` builds (the conversation, its
// stages, the backends' factories, media materializing) is an `import()` in `start()`, read here by a `resolve`
// hook in a fresh Node process on the built package.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const dist = join(resolve(import.meta.dirname, '../..'), 'dist');
const built = existsSync(join(dist, 'agent', 'agent.js'));
// Made in beforeAll, not while vitest collects (a collection runs no afterAll: the dir would be left behind).
let base = '';
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'agy-sdk-session-loading-'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** The modules of dist/ a fresh process resolves while it runs `code` (an ES module body). */
function loaded(code: string): string[] {
  const hooks = join(base, 'hooks.mjs');
  const log = join(base, `log-${Math.random().toString(36).slice(2)}`);
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';\nlet log;\nexport function initialize(d) { log = d; }\nexport async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(log, r.url + '\\n'); return r; }\n`,
  );
  writeFileSync(log, '');
  const register = `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(hooks).href)}, { data: ${JSON.stringify(log)} });`;
  const out = spawnSync(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(register)}`, '--input-type=module', '-e', code],
    { encoding: 'utf8', timeout: 60_000 },
  );
  expect(out.stderr).toBe('');
  expect(out.status).toBe(0);
  const prefix = pathToFileURL(dist).href;
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((u) => u.startsWith(prefix))
    .map((u) => u.slice(prefix.length + 1));
}

const SESSION_ONLY = [
  'agent/session.js',
  'agent/turn-stages.js',
  'conversation/conversation.js',
  'conversation/chat-response.js',
  'content/materialize.js',
  'connection/agy/factory.js',
  'connection/acp/factory.js',
];

describe.skipIf(!built)('what the Agent loads', () => {
  it('constructing an Agent loads none of what start() builds; starting one loads it', () => {
    const agent = pathToFileURL(join(dist, 'agent', 'agent.js')).href;
    const testing = pathToFileURL(join(dist, 'testing', 'index.js')).href;
    const constructed = loaded(`const { Agent } = await import(${JSON.stringify(agent)});\nnew Agent({});`);
    expect(SESSION_ONLY.filter((m) => constructed.includes(m))).toEqual([]);
    const started = loaded(
      `const { Agent } = await import(${JSON.stringify(agent)});\nconst { InMemoryConnection } = await import(${JSON.stringify(testing)});\nconst conn = new InMemoryConnection();\nconst agent = new Agent({ connection: conn.connect });\nawait agent.start();\nawait agent.close();`,
    );
    expect(started).toContain('agent/session.js');
    expect(started).toContain('conversation/conversation.js');
  });
});
