#!/usr/bin/env node
// CI step (`.ci/run`): the packed package, installed from its tarball next to the lowest and the latest zod 4
// the peer range allows (both from the npm registry), type-checks a consumer that uses `tool()` with
// `skipLibCheck: false` and `lib: ["ES2022"]`, shares the consumer's single zod copy, and runs a tool end to
// end against the simulator. A last case nests a second zod copy (the latest) inside the package while the
// consumer uses the lowest: `tool()` and `responseSchema` must still type-check (the structural constraints),
// where zod's own `ZodObject` constraint failed with TS2589. Needs `npm run build` first and the registry.
//
// Usage: node test/package/zod-matrix.mjs [version …]   (default: lowest and latest of the peer range)
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const require = createRequire(join(root, 'package.json'));
const semver = require('semver');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const range = pkg.peerDependencies.zod;
const typesNode = pkg.devDependencies['@types/node'];
const tsc = join(root, 'node_modules/typescript/bin/tsc');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(cmd, args, cwd) {
  const out = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_fund: 'false' },
  });
  if (out.status !== 0) {
    throw new Error(
      `${cmd} ${args.join(' ')} failed (${out.status}) in ${cwd}:\n${out.stdout}\n${out.stderr}`,
    );
  }
  return out.stdout;
}

function versions() {
  if (process.argv.length > 2) return process.argv.slice(2);
  const all = JSON.parse(run(npm, ['view', 'zod', 'versions', '--json'], root));
  const lowest = semver.minSatisfying(all, range);
  const latest = semver.maxSatisfying(all, range);
  if (!lowest || !latest) throw new Error(`no zod version satisfies ${range}`);
  return [...new Set([lowest, latest])];
}

const CONSUMER = `import { Agent, type ChatResponse, hooks, policy, tool, type TurnResult } from 'agy-sdk';
import { type Scenario, simulatorPath } from 'agy-sdk/testing';
import { z } from 'zod/v4';

const scenario: Scenario = { turns: [{ actions: [{ text: 'hi' }] }] };
const Order = z.object({ id: z.string(), qty: z.number().int().default(1) });
const lookup = tool(
  { name: 'lookup_order', description: 'Find an order', input: Order, output: z.object({ status: z.string() }) },
  async ({ id, qty }) => ({ status: \`\${id}:\${qty.toFixed(0)}\` }),
);
const plain = tool({ name: 'echo', description: 'echo', input: z.object({ a: z.string() }) }, ({ a }) => a.toUpperCase());
const agent = new Agent({
  agyPath: simulatorPath(),
  tools: [lookup, plain],
  responseSchema: z.object({ summary: z.string() }),
  policies: [policy.allowAll()],
  hooks: [hooks.postTurn(() => {})],
});
const served: string = agent.servedName(lookup);
const response: ChatResponse = await agent.chat('hi');
const result: TurnResult = await response.result();
export { result, scenario, served };
`;

// Plain JS, so it runs on Node 20 without a TypeScript loader: a tool called by a scripted scenario.
const RUNTIME = `import { Agent, policy, tool } from 'agy-sdk';
import { simulatorPath, writeScenario } from 'agy-sdk/testing';
import { z } from 'zod/v4';
const seen = [];
const echo = tool({ name: 'echo', description: 'echo', input: z.object({ text: z.string() }) }, ({ text }) => {
  seen.push(text);
  return text.toUpperCase();
});
const probe = new Agent({ tools: [echo], agyPath: simulatorPath() });
// Into the consumer's own directory (removed with it), not a temp directory of its own left behind.
const scenario = await writeScenario({
  turns: [{ actions: [{ mcpTool: { server: probe.toolServerName, tool: probe.servedName(echo), arguments: { text: 'hi' } } }, { text: 'done' }] }],
}, process.cwd());
await probe.close();
// Its conversation state too (the simulator's default is a per-user directory that would outlive the run).
const agent = new Agent({ tools: [echo], policies: [policy.allowAll()], agyPath: simulatorPath(), env: { AGY_SIM_SCENARIO: scenario, AGY_SIM_STATE_DIR: process.cwd() + '/sim-state' } });
try {
  const result = await (await agent.chat('go')).result();
  console.log(JSON.stringify({ status: result.status, seen }));
} finally {
  await agent.close();
}
`;

// Strict, Node-only (no DOM lib), and checking every declaration file it reaches.
function writeConsumer(dir) {
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        target: 'ES2022',
        lib: ['ES2022'],
        types: ['node'],
        noEmit: true,
        skipLibCheck: false,
      },
      include: ['main.ts'],
    }),
  );
  writeFileSync(join(dir, 'main.ts'), CONSUMER);
}

function check(version, tarball, nested) {
  const dir = mkdtempSync(join(tmpdir(), `agy-sdk-zod-${version}-`));
  try {
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    run(
      npm,
      ['install', '--no-audit', '--no-fund', tarball, `zod@${version}`, `@types/node@${typesNode}`],
      dir,
    );
    if (nested) return checkNested(dir, version, nested);
    // One zod: the package's peer resolves to the consumer's copy, never a nested second one.
    const tree = JSON.parse(run(npm, ['ls', 'zod', '--all', '--json'], dir));
    const copies = new Set();
    const walk = (deps) => {
      for (const [name, dep] of Object.entries(deps ?? {})) {
        if (name === 'zod' && dep.version) copies.add(dep.version);
        walk(dep.dependencies);
      }
    };
    walk(tree.dependencies);
    if (copies.size !== 1 || !copies.has(version))
      throw new Error(`expected one zod ${version}, got ${[...copies].join(', ')}`);
    writeConsumer(dir);
    writeFileSync(join(dir, 'run.mjs'), RUNTIME);
    const started = performance.now();
    const typecheck = spawnSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8' });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (typecheck.status !== 0 || typecheck.stdout.trim() !== '') {
      throw new Error(
        `zod ${version}: consumer does not type-check:\n${typecheck.stdout}${typecheck.stderr}`,
      );
    }
    const out = run(process.execPath, ['run.mjs'], dir).trim().split('\n').at(-1);
    const ran = JSON.parse(out);
    if (ran.status !== 'success' || ran.seen.join() !== 'hi')
      throw new Error(`zod ${version}: tool run ended ${out}`);
    console.log(`zod ${version}: one copy, consumer type-checks in ${seconds} s, tool call ${ran.status}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// What an exact pin (or a hoisting accident) produces: the package resolves its own zod, the consumer another.
function checkNested(dir, version, nested) {
  const target = join(dir, 'node_modules/agy-sdk/node_modules/zod');
  mkdirSync(target, { recursive: true });
  const packed = JSON.parse(run(npm, ['pack', '--json', `zod@${nested}`, '--pack-destination', dir], dir));
  run('tar', ['-xzf', join(dir, packed[0].filename), '-C', target, '--strip-components=1'], dir);
  writeConsumer(dir);
  const started = performance.now();
  const typecheck = spawnSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8' });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (typecheck.status !== 0 || typecheck.stdout.trim() !== '') {
    throw new Error(`zod ${version} + nested ${nested}: consumer does not type-check:\n${typecheck.stdout}`);
  }
  console.log(
    `zod ${version} with a nested zod ${nested} in the package: consumer type-checks in ${seconds} s`,
  );
}

const packDir = mkdtempSync(join(tmpdir(), 'agy-sdk-pack-'));
try {
  const packed = JSON.parse(
    execFileSync(npm, ['pack', '--json', '--pack-destination', packDir], { cwd: root, encoding: 'utf8' }),
  );
  const tarball = join(packDir, packed[0].filename);
  const list = versions();
  for (const version of list) check(version, tarball);
  if (list.length > 1) check(list[0], tarball, list.at(-1));
} finally {
  rmSync(packDir, { recursive: true, force: true });
}
