// The packed tarball, unpacked into a fresh project as npm would install it (its runtime dependencies linked
// from this checkout, no registry): every entry loads with `require()` (Node >= 20.19 requires ES modules
// through the `default` condition) and with `import`; `agy-sdk/fleet` without its optional peers, and the ACP
// backend without the ACP SDK, reject with a typed error naming the install command; the README's links resolve inside the installed package; and a
// project on zod 3.25 (the `zod-3` devDependency, zod 4 as `zod/v4`) type-checks and runs a tool end to end.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRICT_CONSUMER_TSCONFIG } from './strict-tsconfig.js';

const root = resolve(import.meta.dirname, '../..');
const built = existsSync(join(root, 'dist/index.js'));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  exports: Record<string, unknown>;
};
const ENTRIES = Object.keys(pkg.exports)
  .filter((k) => k !== './package.json')
  .map((k) => (k === '.' ? 'agy-sdk' : `agy-sdk/${k.slice(2)}`));
// npm pack and the unpack take seconds on a loaded 2-core machine.
const SETUP_TIMEOUT_MS = 180_000;

// Type-checking every declaration file (ours, zod's, @types/node) takes 10–90 s on a loaded 2-core machine.
const TSC_TIMEOUT_MS = 300_000;

let base: string;
let tarball: string;
let dir: string;
let installed: string;

function node(file: string, cwd = dir): { status: number | null; stdout: string; stderr: string } {
  const out = spawnSync(process.execPath, [file], { cwd, encoding: 'utf8', timeout: 120_000 });
  return { status: out.status, stdout: out.stdout, stderr: out.stderr };
}

/** A fresh project with the tarball unpacked as `agy-sdk`, its dependencies linked, and `zodDir` as `zod`. */
function project(name: string, zodDir: string, type?: 'module'): string {
  const at = join(base, name);
  const into = join(at, 'node_modules/agy-sdk');
  mkdirSync(into, { recursive: true });
  execFileSync('tar', ['xzf', tarball, '-C', into, '--strip-components=1']);
  // The runtime dependencies and the zod peer, as npm would hoist them; not the optional peers (bullmq, ioredis,
  // the ACP SDK).
  const links: [string, string][] = [
    ...Object.keys(pkg.dependencies).map((d): [string, string] => [d, join(root, 'node_modules', d)]),
    ['zod', zodDir],
    ['@types/node', join(root, 'node_modules/@types/node')],
  ];
  for (const [dep, from] of links) {
    const target = join(at, 'node_modules', dep);
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(from, target);
  }
  writeFileSync(join(at, 'package.json'), JSON.stringify({ name, private: true, ...(type && { type }) }));
  return at;
}

beforeAll(() => {
  if (!built) return;
  base = mkdtempSync(join(tmpdir(), 'agy-sdk-packed-'));
  const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', base], {
    cwd: root,
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .pop()!;
  tarball = join(base, name);
  dir = project('consumer', join(root, 'node_modules/zod'));
  installed = join(dir, 'node_modules/agy-sdk');
}, SETUP_TIMEOUT_MS);
afterAll(() => {
  if (base) rmSync(base, { recursive: true, force: true });
});

describe.skipIf(!built)('the packed package in a fresh project', () => {
  it('require() loads every entry (CommonJS consumers, tools that resolve with require)', () => {
    writeFileSync(
      join(dir, 'main.cjs'),
      `const names = ${JSON.stringify(ENTRIES)};
const out = {};
for (const n of names) out[n] = Object.keys(require(n)).length;
out.Agent = typeof require('agy-sdk').Agent;
out.resolved = require.resolve('agy-sdk');
console.log(JSON.stringify(out));
`,
    );
    const run = node(join(dir, 'main.cjs'));
    expect(run.stderr).not.toMatch(/ERR_PACKAGE_PATH_NOT_EXPORTED|ERR_REQUIRE/);
    expect(run.status).toBe(0);
    const out = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(out.Agent).toBe('function');
    expect(out.resolved).toBe(join(installed, 'dist/index.js'));
    for (const n of ENTRIES) expect(out[n], n).toEqual(expect.any(Number));
    expect(out['agy-sdk']).toBeGreaterThan(10);
  });

  it('import() loads every entry', () => {
    writeFileSync(
      join(dir, 'main.mjs'),
      `for (const n of ${JSON.stringify(ENTRIES)}) await import(n);
const { Agent } = await import('agy-sdk');
console.log(typeof Agent);
`,
    );
    const run = node(join(dir, 'main.mjs'));
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('function');
  });

  it('agy-sdk/fleet without bullmq: the import works; creating a queue or a worker rejects with MissingPeerError and the install command', () => {
    writeFileSync(
      join(dir, 'fleet.mjs'),
      `const { createFleetQueue, createFleetWorker } = await import('agy-sdk/fleet');
const root = await import('agy-sdk');
const { MissingPeerError } = root;
const out = [];
for (const create of [createFleetQueue, createFleetWorker]) {
  try {
    await create({ connection: 'redis://127.0.0.1:1' });
    out.push('resolved');
  } catch (e) {
    out.push({ name: e.name, code: e.code, pkg: e.packageName, install: e.install, message: e.message,
      typed: e instanceof MissingPeerError && e instanceof root.AgySdkError });
  }
}
console.log(JSON.stringify(out));
`,
    );
    const run = node(join(dir, 'fleet.mjs'));
    expect(run.stderr).toBe('');
    const out = JSON.parse(run.stdout) as Record<string, unknown>[];
    expect(out).toHaveLength(2);
    for (const e of out) {
      expect(e).toMatchObject({
        name: 'MissingPeerError',
        code: 'peer_missing',
        pkg: 'bullmq',
        install: 'npm install bullmq ioredis',
        typed: true,
      });
      expect(e.message).toContain('npm install bullmq ioredis');
    }
  });

  it('agy-sdk/ag-ui without @ag-ui/*: the import works; createAgUiHandler rejects with MissingPeerError and the install command; agy-sdk/ai-sdk makes a model without the AI SDK installed', () => {
    writeFileSync(
      join(dir, 'ag-ui.mjs'),
      `const { createAgUiHandler } = await import('agy-sdk/ag-ui');
const { MissingPeerError } = await import('agy-sdk');
const { agy } = await import('agy-sdk/ai-sdk');
const out = { model: agy('default').specificationVersion };
try {
  await createAgUiHandler({ agent: {} });
  out.handler = 'resolved';
} catch (e) {
  out.handler = { name: e.name, pkg: e.packageName, install: e.install, typed: e instanceof MissingPeerError };
}
console.log(JSON.stringify(out));
`,
    );
    const run = node(join(dir, 'ag-ui.mjs'));
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({
      model: 'v4',
      handler: {
        name: 'MissingPeerError',
        pkg: '@ag-ui/core',
        install: 'npm install @ag-ui/core @ag-ui/encoder',
        typed: true,
      },
    });
  });

  it('the ACP backend without @agentclientprotocol/sdk (an optional peer): the import works; start() rejects with MissingPeerError and the install command, starting nothing', () => {
    writeFileSync(
      join(dir, 'acp.mjs'),
      `const { Agent, MissingPeerError } = await import('agy-sdk');
const agent = new Agent({ backend: { kind: 'acp', command: process.execPath, args: ['-e', 'process.exit(3)'] } });
try {
  await agent.start();
  console.log(JSON.stringify('resolved'));
} catch (e) {
  console.log(JSON.stringify({ name: e.name, code: e.code, pkg: e.packageName, install: e.install,
    message: e.message, typed: e instanceof MissingPeerError }));
}
`,
    );
    const run = node(join(dir, 'acp.mjs'));
    expect(run.stderr).toBe('');
    const out = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({
      name: 'MissingPeerError',
      code: 'peer_missing',
      pkg: '@agentclientprotocol/sdk',
      install: 'npm install @agentclientprotocol/sdk',
      typed: true,
    });
    expect(out.message).toContain('the ACP backend');
    expect(out.message).toContain('npm install @agentclientprotocol/sdk');
  });

  it("the README's relative links resolve inside the installed package (what the npm page and node_modules show)", () => {
    const readme = readFileSync(join(installed, 'README.md'), 'utf8');
    const links = [...readme.matchAll(/\]\((?!https?:|#|mailto:)([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(0);
    const missing = links.filter((l) => !existsSync(join(installed, decodeURIComponent(l))));
    expect(missing).toEqual([]);
  });

  it(
    'a project on zod 3.25 (zod 4 as `zod/v4`): type-checks (skipLibCheck off) and runs a tool and a schema end to end',
    () => {
      const z3 = project('zod3', join(root, 'node_modules/zod-3'), 'module');
      expect(JSON.parse(readFileSync(join(z3, 'node_modules/zod/package.json'), 'utf8')).version).toMatch(
        /^3\.25\./,
      );
      writeFileSync(join(z3, 'tsconfig.json'), STRICT_CONSUMER_TSCONFIG);
      writeFileSync(
        join(z3, 'main.ts'),
        `import { Agent, tool, type TurnResult } from 'agy-sdk';
import { simulatorPath, writeScenario } from 'agy-sdk/testing';
import { z } from 'zod/v4';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
const lookup = tool(
  { name: 'lookup', description: 'Find an order', input: z.object({ id: z.string(), qty: z.number().default(1) }), output: z.object({ s: z.string() }) },
  async ({ id, qty }) => ({ s: \`got \${id} x\${qty.toFixed(0)}\` }),
);
const scenario = await writeScenario(
  { turns: [{ actions: [{ mcpTool: { server: 'agy-sdk_tools', tool: 'lookup', arguments: { id: '42' } } }, { text: '{"summary":"ok"}' }] }] },
  mkdtempSync(join(process.cwd(), 'sc-')),
);
const agent = new Agent({ agyPath: simulatorPath(), tools: [lookup], env: { AGY_SIM_SCENARIO: scenario } });
try {
  const response = await agent.chat('hi', { responseSchema: z.object({ summary: z.string() }) });
  for await (const call of response.toolResults()) console.log(call.name, call.state, JSON.stringify(call.output));
  const summary: string | undefined = (await response.structuredOutput())?.summary;
  const result: TurnResult = await response.result();
  console.log(result.status, summary);
} finally {
  await agent.close();
}
`,
      );
      const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', z3], {
        encoding: 'utf8',
      });
      expect(tsc.stdout + tsc.stderr).toBe('');
      expect(tsc.status).toBe(0);
      // The same program as JavaScript (types stripped by hand), run on the zod 3.25 project.
      writeFileSync(
        join(z3, 'main.mjs'),
        readFileSync(join(z3, 'main.ts'), 'utf8')
          .replace(', type TurnResult', '')
          .replace(': string | undefined', '')
          .replace(': TurnResult', ''),
      );
      const run = node(join(z3, 'main.mjs'), z3);
      expect(run.stderr).toBe('');
      // agy 1.3.x answers a schema turn through its own `finish` tool (docs/reference/stream-json.md), listed done.
      expect(run.stdout).toBe('lookup DONE "{\\"s\\":\\"got 42 x1\\"}"\nfinish DONE undefined\nsuccess ok\n');
    },
    TSC_TIMEOUT_MS,
  );
});
