// `npm run bench`: every benchmark reports a ratio against a baseline measured in the same run, because these
// machines are noisy; most figures are medians of rounds with their min–max. Usage: node bench/run.mjs
// [name-filter]. The whole run stays under 10 minutes on 2 cores.
//
// Each benchmark runs in a fresh Node process of its own (`node bench/run.mjs --one <name>`): run one after
// another in one process, a benchmark inherits the heap and the JIT state the ones before it left (the parse
// bench's 100 MB of strings, the pool's sessions), and it was measured differently alone than in the run.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import * as acp from './acp.mjs';
import * as gateway from './gateway.mjs';
import * as gatewayRecorded from './gateway-recorded.mjs';
import * as hook from './hook-roundtrip.mjs';
import * as coldImport from './import.mjs';
import * as latency from './latency.mjs';
import * as memory from './memory.mjs';
import * as parse from './parse-throughput.mjs';
import * as pool from './pool.mjs';
import * as telemetry from './telemetry.mjs';
import * as tool from './tool-roundtrip.mjs';

/**
 * Benches owned elsewhere (start-up, many agents), included when present and exporting `run()`. The source is
 * checked first: a plain script would run on import.
 */
async function optional(file) {
  const url = new URL(file, import.meta.url);
  if (!existsSync(url) || !/export (async )?function run\b/.test(readFileSync(url, 'utf8'))) return undefined;
  const bench = await import(url.href);
  return typeof bench.run === 'function' ? bench : undefined;
}

const benches = {
  parse,
  memory,
  latency,
  tool,
  hook,
  gateway,
  gatewayRecorded,
  telemetry,
  acp,
  pool,
  import: coldImport,
};
const startup = await optional('./startup.mjs');
if (startup) benches.startup = startup;
const manyAgents = await optional('./many-agents.mjs');
if (manyAgents) benches.manyAgents = manyAgents;

if (process.argv[2] === '--one') {
  const bench = benches[process.argv[3]];
  if (!bench) throw new Error(`no bench named ${process.argv[3]}`);
  process.stdout.write(`${JSON.stringify(await bench.run())}\n`);
  process.exit(0);
}

const filter = process.argv[2];
const results = [];
const t0 = performance.now();
for (const name of Object.keys(benches)) {
  if (filter && !name.includes(filter)) continue;
  const started = performance.now();
  // The child's stderr is this run's; its stdout is the result, one JSON line at its end.
  const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--one', name], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const result = JSON.parse(out.trim().split('\n').at(-1));
  const seconds = Number(((performance.now() - started) / 1000).toFixed(1));
  results.push({ bench: name, seconds, ...result });
  console.log(JSON.stringify({ bench: name, seconds, ...result }));
}
const show = (v) =>
  v !== null && typeof v === 'object' && 'median' in v ? `${v.median} [${v.min}–${v.max}]` : String(v);
console.log('\nSummary (ratio = ours / baseline, median of rounds [min–max]; lower is better for times):');
for (const r of results) {
  const ratios = Object.entries(r).filter(([k]) => k.startsWith('ratio'));
  console.log(
    `  ${r.bench.padEnd(10)} (${r.seconds} s) ${ratios.map(([k, v]) => `${k}=${show(v)}`).join('  ')}`,
  );
}
console.log(`\nTotal: ${((performance.now() - t0) / 1000).toFixed(0)} s`);
