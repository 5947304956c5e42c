// The hook round trip as agy performs it: spawn the generated hook command (`hooks/PreToolUse.sh`: the curl
// relay, the bash /dev/tcp relay, or the Node relay) with a PreToolUse JSON on stdin → session listener →
// dispatcher → handler → reply on stdout, until the process has exited. Baseline: `curl -K <config>` with
// the same flag style, spawned directly, posting the same JSON to a bare node:http server that answers
// {"decision":"allow"}. Same run, interleaved one spawn of each kind at a time; per round the p50 of each
// kind, then the median of the rounds' ratios with their min–max.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { findBash, findCurl } from '../dist/connection/agy/session/hook-commands.js';
import { SessionRuntime } from '../dist/connection/agy/session/session-runtime.js';
import { rounds, summarize } from './stats.mjs';

const SPAWNS = Number(process.env.BENCH_HOOK_SPAWNS ?? 40);
const ROUNDS = Number(process.env.BENCH_HOOK_ROUNDS ?? 5);
const WARMUP = 10;
/**
 * The Node relay is spawned on every 4th turn only (10 of 40 per round): each spawn is a Node boot (~10× the
 * others), three quarters of this bench's time, and its ratio barely moves between rounds (9.2–11.0×).
 */
const NODE_EVERY = Number(process.env.BENCH_HOOK_NODE_EVERY ?? 4);
const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const INPUT = JSON.stringify({
  hookEventName: 'PreToolUse',
  conversationId: 'c',
  stepIdx: 3,
  toolCall: { name: 'run_command', args: { CommandLine: 'ls -la' } },
});

function startBaseline() {
  const body = '{"decision":"allow"}';
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Spawns `command args` with the hook input on stdin; resolves with ms until exit; checks the reply. */
function timedSpawn(command, args) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c) => {
      out += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c) => {
      err += c;
    });
    child.once('error', reject);
    child.once('close', (code) => {
      const ms = performance.now() - t0;
      let decision;
      try {
        decision = JSON.parse(out).decision;
      } catch {
        // reported below
      }
      if (code !== 0 || decision !== 'allow')
        reject(new Error(`${command} exited ${code} with ${JSON.stringify(out)} ${err}`));
      else resolve(ms);
    });
    child.stdin.end(INPUT);
  });
}

async function runtimeFor(relay, dataDir) {
  return SessionRuntime.create({
    dataDir,
    env: { PATH: process.env.PATH, HOME: dataDir },
    logger: quiet,
    hookRelay: relay,
    hooks: [{ event: 'PreToolUse', handler: () => ({ decision: 'allow' }) }],
  });
}

export async function run() {
  const dir = await mkdtemp(join(tmpdir(), 'agy-bench-hook-'));
  const curl = findCurl(process.env);
  const baseline = await startBaseline();
  const runtimes = [];
  try {
    const kinds = [];
    if (curl) {
      const conf = join(dir, 'baseline.curl');
      await writeFile(
        conf,
        [
          `url = "http://127.0.0.1:${baseline.address().port}/hook/PreToolUse"`,
          'request = "POST"',
          'header = "content-type: application/json"',
          'data-binary = "@-"',
          'noproxy = "*"',
          'silent',
          'show-error',
          'fail',
          'max-time = 31',
          '',
        ].join('\n'),
        { mode: 0o600 },
      );
      kinds.push({ name: 'baseline', command: curl, args: ['-K', conf], rows: [] });
      const r = await runtimeFor('curl', join(dir, 'curl'));
      runtimes.push(r);
      kinds.push({ name: 'curl', command: join(r.dir.path, 'hooks/PreToolUse.sh'), args: [], rows: [] });
    }
    if (findBash(process.env)) {
      const b = await runtimeFor('bash', join(dir, 'bash'));
      runtimes.push(b);
      kinds.push({ name: 'bash', command: join(b.dir.path, 'hooks/PreToolUse.sh'), args: [], rows: [] });
    }
    const r = await runtimeFor('node', join(dir, 'node'));
    runtimes.push(r);
    kinds.push({
      name: 'node',
      command: join(r.dir.path, 'hooks/PreToolUse.sh'),
      args: [],
      rows: [],
      every: NODE_EVERY,
    });

    for (let i = 0; i < WARMUP; i++)
      for (const k of kinds) if (i % (k.every ?? 1) === 0) await timedSpawn(k.command, k.args);
    for (let round = 0; round < ROUNDS; round++) {
      const samples = new Map(kinds.map((k) => [k.name, []]));
      for (let i = 0; i < SPAWNS; i++) {
        for (const k of kinds)
          if (i % (k.every ?? 1) === 0) samples.get(k.name).push(await timedSpawn(k.command, k.args));
      }
      for (const k of kinds) k.rows.push(summarize(samples.get(k.name)).p50);
    }

    const byName = Object.fromEntries(kinds.map((k) => [k.name, k.rows]));
    const result = {
      name: 'hook round trip: spawn hooks/PreToolUse.sh (curl / bash /dev/tcp / Node relay) → listener → reply vs curl -K → bare node:http',
      spawnsPerRound: SPAWNS,
      nodeRelaySpawnsPerRound: Math.ceil(SPAWNS / NODE_EVERY),
      rounds: ROUNDS,
    };
    for (const k of kinds) result[`${k.name}P50ms`] = rounds(k.rows, 2);
    if (!curl) {
      result.note = 'curl is not installed: no baseline and no curl relay; relay figures are absolute only';
    } else {
      for (const k of kinds) {
        if (k.name === 'baseline') continue;
        const key = `ratio${k.name[0].toUpperCase()}${k.name.slice(1)}P50`;
        result[key] = rounds(
          k.rows.map((v, i) => v / byName.baseline[i]),
          2,
        );
      }
    }
    return result;
  } finally {
    for (const r of runtimes) await r.close();
    baseline.closeAllConnections();
    await new Promise((resolve) => baseline.close(resolve));
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await run(), null, 1));
