// Cold import and install size, as a user meets them: the packed tarball installed from the npm registry into a
// fresh consumer project (with zod and the two peers' SDKs), then, alternating in one run, fresh processes that
// import nothing (`node -e 0`), `@openai/codex-sdk`, `@anthropic-ai/claude-agent-sdk`, `agy-sdk` and each of its
// subpaths. Each figure is a whole process's wall time (Node's own start included, since Codex's share is only
// tens of ms); the ratios are against Codex's import in the same run. A second consumer with only `agy-sdk` and
// `zod` gives the installed size (bytes of files, as `du --apparent-size` counts) and the package count. A
// third, unmeasured pass per target counts the modules it loads with a `resolve` hook.
//
// Needs the npm registry (the consumer installs are made once per run, in a temp dir removed at the end).
// BENCH_IMPORT_ROUNDS (default 9) sets the rounds.
import { execFileSync, spawnSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { rounds } from './stats.mjs';

const ROUNDS = Number(process.env.BENCH_IMPORT_ROUNDS ?? 9);
const root = resolve(import.meta.dirname, '..');
const PEERS = ['@openai/codex-sdk', '@anthropic-ai/claude-agent-sdk'];

/** What each fresh process imports; `undefined` is the bare `node -e 0`. */
const TARGETS = {
  node: undefined,
  codex: '@openai/codex-sdk',
  claude: '@anthropic-ai/claude-agent-sdk',
  root: 'agy-sdk',
  wire: 'agy-sdk/wire',
  testing: 'agy-sdk/testing',
  gateway: 'agy-sdk/gateway',
  fleet: 'agy-sdk/fleet',
  connection: 'agy-sdk/connection',
  pool: 'agy-sdk/pool',
};

function npm(args, cwd) {
  return execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

/** A consumer project in `dir` with `deps` installed from the registry (and the tarball). */
function consumer(dir, deps) {
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  npm(['install', '--silent', '--no-audit', '--no-fund', '--ignore-scripts', ...deps], dir);
  return dir;
}

/** Bytes of the files under `dir` (symlinks counted as links, as npm writes them for bins). */
function bytes(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += bytes(path);
    else total += lstatSync(path).size;
  }
  return total;
}

/** The packages npm installed (`node_modules/...` entries of the lock). */
function packageCount(dir) {
  const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8'));
  return Object.keys(lock.packages).filter((p) => p.includes('node_modules/')).length;
}

function argv(spec) {
  return spec === undefined
    ? ['-e', '0']
    : ['--input-type=module', '-e', `await import(${JSON.stringify(spec)})`];
}

/** One fresh process's wall time, in ms. */
function time(spec, cwd) {
  const t0 = performance.now();
  const out = spawnSync(process.execPath, argv(spec), { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - t0;
  if (out.status !== 0) throw new Error(`importing ${spec} failed: ${out.stderr}`);
  return ms;
}

/** Modules a fresh process loads for `spec`: all, the package's own, and the packages they come from. */
function modules(spec, cwd, hooks) {
  const log = join(cwd, 'resolved.log');
  writeFileSync(log, '');
  const register = `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(hooks).href)}, { data: ${JSON.stringify(log)} });`;
  const out = spawnSync(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(register)}`, ...argv(spec)],
    { cwd, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  if (out.status !== 0) throw new Error(`probing ${spec} failed: ${out.stderr}`);
  const urls = new Set(
    readFileSync(log, 'utf8')
      .split('\n')
      .filter((u) => u.startsWith('file:')),
  );
  const own = [...urls].filter((u) => u.includes('/node_modules/agy-sdk/')).length;
  const packages = new Set();
  for (const u of urls) {
    const m = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u);
    if (m && m[1] !== 'agy-sdk') packages.add(m[1]);
  }
  return { modules: urls.size, own, packages: [...packages].sort() };
}

const HOOKS = `import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(log, result.url + '\\n');
  return result;
}
`;

export async function run() {
  const base = mkdtempSync(join(tmpdir(), 'agy-sdk-bench-import-'));
  try {
    const tgz = join(
      base,
      npm(['pack', '--silent', '--pack-destination', base], root).trim().split('\n').pop(),
    );
    const sized = consumer(mkdtempSync(join(base, 'size-')), [tgz, 'zod']);
    const install = {
      mib: Number((bytes(join(sized, 'node_modules')) / 2 ** 20).toFixed(1)),
      packages: packageCount(sized),
    };
    const cwd = consumer(mkdtempSync(join(base, 'all-')), [tgz, 'zod', ...PEERS]);
    const hooks = join(base, 'hooks.mjs');
    writeFileSync(hooks, HOOKS);
    const probe = Object.fromEntries(
      Object.entries(TARGETS)
        .filter(([, spec]) => spec !== undefined)
        .map(([name, spec]) => [name, modules(spec, cwd, hooks)]),
    );
    // One warm-up pass puts every file in the page cache, so the rounds compare imports, not disk reads.
    for (const spec of Object.values(TARGETS)) time(spec, cwd);
    const samples = Object.fromEntries(Object.keys(TARGETS).map((k) => [k, []]));
    for (let r = 0; r < ROUNDS; r++) {
      // Alternating, in an order rotated each round, so no target always follows the same one.
      const names = Object.keys(TARGETS);
      for (let i = 0; i < names.length; i++) {
        const name = names[(i + r) % names.length];
        samples[name].push(time(TARGETS[name], cwd));
      }
    }
    const ms = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, rounds(v, 0)]));
    // Per round: each target over Codex in that round, so both share the round's noise.
    const ratio = (name) => rounds(samples[name].map((v, i) => v / samples.codex[i]));
    return {
      ms,
      ratioRootVsCodex: ratio('root'),
      ratioClaudeVsCodex: ratio('claude'),
      ratioGatewayVsCodex: ratio('gateway'),
      ratioTestingVsCodex: ratio('testing'),
      ratioFleetVsCodex: ratio('fleet'),
      ratioWireVsCodex: ratio('wire'),
      ratioConnectionVsCodex: ratio('connection'),
      ratioPoolVsCodex: ratio('pool'),
      modules: probe,
      install: { agySdkPlusZod: install },
    };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await run(), null, 2));
}
