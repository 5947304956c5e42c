// The hook round trip as agy performs it: spawn the generated hook command (`hooks/PreToolUse.sh`, exec'ing
// the curl relay or the Node relay) with a PreToolUse JSON on stdin → session listener → dispatcher →
// handler → reply on stdout, until the process has exited. Baseline: `curl -K <config>` with the same flag
// style, spawned directly, posting the same JSON to a bare node:http server that answers
// {"decision":"allow"}. Same run, interleaved one spawn of each kind at a time.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { findCurl } from '../dist/connection/agy/session/hook-commands.js';
import { SessionRuntime } from '../dist/connection/agy/session/session-runtime.js';
import { fmt, summarize } from './stats.mjs';

const SPAWNS = Number(process.env.BENCH_HOOK_SPAWNS ?? 200);
const WARMUP = 10;
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
      kinds.push({ name: 'baseline', command: curl, args: ['-K', conf], samples: [] });
      const r = await runtimeFor('curl', join(dir, 'curl'));
      runtimes.push(r);
      kinds.push({ name: 'curl', command: join(r.dir.path, 'hooks/PreToolUse.sh'), args: [], samples: [] });
    }
    const r = await runtimeFor('node', join(dir, 'node'));
    runtimes.push(r);
    kinds.push({ name: 'node', command: join(r.dir.path, 'hooks/PreToolUse.sh'), args: [], samples: [] });

    for (let i = 0; i < WARMUP; i++) for (const k of kinds) await timedSpawn(k.command, k.args);
    for (let i = 0; i < SPAWNS; i++) {
      for (const k of kinds) k.samples.push(await timedSpawn(k.command, k.args));
    }

    const s = Object.fromEntries(kinds.map((k) => [k.name, summarize(k.samples)]));
    const result = {
      name: 'hook round trip: spawn hooks/PreToolUse.sh (curl / Node relay) → listener → reply vs curl -K → bare node:http',
      spawns: SPAWNS,
    };
    if (!curl) {
      result.note =
        'curl is not installed: no baseline and no curl relay; Node relay figures are absolute only';
    } else {
      Object.assign(result, {
        baselineP50ms: Number(fmt(s.baseline.p50)),
        baselineP99ms: Number(fmt(s.baseline.p99)),
        curlRelayP50ms: Number(fmt(s.curl.p50)),
        curlRelayP99ms: Number(fmt(s.curl.p99)),
      });
    }
    Object.assign(result, {
      nodeRelayP50ms: Number(fmt(s.node.p50)),
      nodeRelayP99ms: Number(fmt(s.node.p99)),
    });
    if (curl) {
      Object.assign(result, {
        ratioCurlP50: Number(fmt(s.curl.p50 / s.baseline.p50, 2)),
        ratioCurlP99: Number(fmt(s.curl.p99 / s.baseline.p99, 2)),
        ratioNodeP50: Number(fmt(s.node.p50 / s.baseline.p50, 2)),
        ratioNodeP99: Number(fmt(s.node.p99 / s.baseline.p99, 2)),
      });
    }
    return result;
  } finally {
    for (const r of runtimes) await r.close();
    baseline.closeAllConnections();
    await new Promise((resolve) => baseline.close(resolve));
    await rm(dir, { recursive: true, force: true });
  }
}
