// `npm run bench`: every benchmark reports a ratio against a baseline measured in the same run, because these
// machines are noisy. Usage: node bench/run.mjs [name-filter]
import * as acp from './acp.mjs';
import * as gateway from './gateway.mjs';
import * as hook from './hook-roundtrip.mjs';
import * as latency from './latency.mjs';
import * as parse from './parse-throughput.mjs';
import * as tool from './tool-roundtrip.mjs';

// The MCP SDK's client transport adds an abort listener per fetch to one long-lived signal (undici frees them
// on GC); 2,000 back-to-back calls trip Node's leak heuristic in the benchmark's *client*. Not our code.
process.removeAllListeners('warning');
process.on('warning', (w) => {
  if (w.name !== 'MaxListenersExceededWarning') console.warn(w);
});

const benches = { parse, latency, tool, hook, gateway, acp };
const filter = process.argv[2];
const results = [];
for (const [name, bench] of Object.entries(benches)) {
  if (filter && !name.includes(filter)) continue;
  const result = await bench.run();
  results.push({ bench: name, ...result });
  console.log(JSON.stringify({ bench: name, ...result }));
}
console.log('\nSummary (ratio = ours / baseline; lower is better for times):');
for (const r of results) {
  const ratios = Object.entries(r).filter(([k]) => k.startsWith('ratio'));
  console.log(`  ${r.bench.padEnd(10)} ${ratios.map(([k, v]) => `${k}=${v}`).join('  ')}`);
}
