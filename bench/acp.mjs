// ACP transport cost: the same prompt through the real Gemini CLI 0.61 (devDependency) over ACP (`--acp`, one
// process, already initialised) and through its own headless mode (`-p … --output-format stream-json`, one
// process per prompt), against the same scripted Gemini endpoint in the same run, rounds alternated so both
// share the machine's noise. The endpoint stamps when the CLI's model request arrives and answers at once; the
// client stamps the first text delta (ACP `agent_message_chunk`, stream-json `message` delta). Reported:
//   transport = model request received → first text delta (what each output path costs), ratio ACP/headless;
//   prompt → first delta: ACP `session/prompt` sent on the warm process vs headless spawn (start-up included);
//   start-up apart: ACP spawn → `initialize` answered → `session/new` answered; headless spawn → model request.
// Medians with min–max. BENCH_ACP_ROUNDS (default 7) rounds of each. Facts: docs/reference/acp.md.
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { fmt } from './stats.mjs';

const ENTRY = fileURLToPath(new URL('../node_modules/@google/gemini-cli/bundle/gemini.js', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ACP_ROUNDS ?? 7);
const KEY = 'bench-acp-key';
// A concrete model: no routing-classifier call in either mode, so both make exactly one model request.
const MODEL = 'gemini-2.5-flash';
const SETTINGS = {
  security: { auth: { selectedType: 'gemini-api-key' } },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
};

/** The scripted endpoint: every streamed request gets "Hello" at once, then two more chunks. */
async function startEndpoint() {
  const arrivals = [];
  const server = http.createServer((req, res) => {
    const arrived = performance.now();
    req.resume();
    req.on('end', () => {
      if (req.headers['x-goog-api-key'] !== KEY) {
        res.writeHead(400).end();
        return;
      }
      if (!req.url.includes(':streamGenerateContent')) {
        // Any unary utility call: a schema-less JSON answer (not expected with a concrete model).
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            candidates: [{ content: { role: 'model', parts: [{ text: '{}' }] }, finishReason: 'STOP' }],
          }),
        );
        return;
      }
      arrivals.push(arrived);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.socket.setNoDelay(true);
      const frame = (parts, last) =>
        `data: ${JSON.stringify({
          candidates: [
            { content: { role: 'model', parts }, index: 0, ...(last && { finishReason: 'STOP' }) },
          ],
          ...(last && {
            usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 3, totalTokenCount: 13 },
          }),
        })}\r\n\r\n`;
      res.write(frame([{ text: 'Hello' }], false));
      res.write(frame([{ text: ', bench' }], false));
      res.end(frame([{ text: '.' }], true));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${server.address().port}`, arrivals };
}

function privateHome() {
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'bench-acp-home-')));
  mkdirSync(join(home, '.gemini'), { mode: 0o700 });
  writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify(SETTINGS), { mode: 0o600 });
  return home;
}

function cliEnv(home, url) {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    TMPDIR: tmpdir(),
    GEMINI_API_KEY: KEY,
    GOOGLE_GEMINI_BASE_URL: url,
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    GEMINI_TELEMETRY_ENABLED: 'false',
    NO_COLOR: '1',
    TERM: 'dumb',
  };
}

const killGroup = (pid) => {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Gone.
  }
};

/** Calls `onLine` for every complete stdout line of `child`. */
function lines(child, onLine) {
  let pending = '';
  child.stdout.setEncoding('utf8').on('data', (d) => {
    pending += d;
    let i = pending.indexOf('\n');
    while (i !== -1) {
      const line = pending.slice(0, i);
      pending = pending.slice(i + 1);
      if (line.trim().startsWith('{')) onLine(line, performance.now());
      i = pending.indexOf('\n');
    }
  });
}

/** One warm `gemini --acp` speaking raw JSON-RPC lines. */
async function startAcp(url, cwd) {
  const home = privateHome();
  const t0 = performance.now();
  const child = spawn(process.execPath, [ENTRY, '--acp', '-m', MODEL], {
    cwd,
    env: cliEnv(home, url),
    detached: true,
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  let nextId = 1;
  const pending = new Map();
  let onChunk;
  lines(child, (line, at) => {
    const msg = JSON.parse(line);
    if (msg.id !== undefined && pending.has(msg.id)) {
      pending.get(msg.id)({ msg, at });
      pending.delete(msg.id);
    } else if (
      msg.method === 'session/update' &&
      msg.params?.update?.sessionUpdate === 'agent_message_chunk'
    ) {
      onChunk?.(at);
      onChunk = undefined;
    }
  });
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, ({ msg, at }) =>
        msg.error ? reject(new Error(JSON.stringify(msg.error))) : resolve({ result: msg.result, at }),
      );
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  const init = await request('initialize', {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
  });
  const session = await request('session/new', { cwd, mcpServers: [] });
  return {
    initMs: init.at - t0,
    sessionMs: session.at - init.at,
    /** One prompt: sent time, first-delta time, the prompt's answer. */
    async prompt(text) {
      const firstDelta = new Promise((r) => {
        onChunk = r;
      });
      const sent = performance.now();
      const done = request('session/prompt', {
        sessionId: session.result.sessionId,
        prompt: [{ type: 'text', text }],
      });
      const [first] = await Promise.all([firstDelta, done]);
      return { sent, first };
    },
    async close() {
      child.stdin.end();
      await Promise.race([
        new Promise((r) => child.once('close', r)),
        new Promise((r) => setTimeout(r, 5_000)),
      ]);
      killGroup(child.pid);
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** One headless run: spawn, first text delta, exit. */
async function headless(url, cwd, text) {
  const home = privateHome();
  const spawned = performance.now();
  const child = spawn(process.execPath, [ENTRY, '-p', text, '--output-format', 'stream-json', '-m', MODEL], {
    cwd,
    env: cliEnv(home, url),
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let first;
  lines(child, (line, at) => {
    const event = JSON.parse(line);
    if (first === undefined && event.type === 'message' && event.role === 'assistant') first = at;
  });
  await new Promise((r) => child.once('close', r));
  killGroup(child.pid);
  rmSync(home, { recursive: true, force: true });
  return { spawned, first, exited: performance.now() };
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor((s.length - 1) / 2)], min: s[0], max: s.at(-1), n: s.length };
};
const show = (st) => `${fmt(st.median, 1)} ms (${fmt(st.min, 1)}–${fmt(st.max, 1)}, n=${st.n})`;

export async function run() {
  if (!existsSync(ENTRY)) return { skipped: `${ENTRY} missing` };
  const endpoint = await startEndpoint();
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'bench-acp-work-')));
  readFileSync(ENTRY); // warm the page cache for both modes alike
  const acp = await startAcp(endpoint.url, cwd);
  const acpTransport = [];
  const acpPrompt = [];
  const hlTransport = [];
  const hlPrompt = [];
  const hlStart = [];
  try {
    // One untimed prompt each: first-use costs (lazy modules, the chat's first request) stay out of the figures.
    await acp.prompt('warm up');
    await headless(endpoint.url, cwd, 'warm up');
    for (let i = 0; i < ROUNDS; i++) {
      let before = endpoint.arrivals.length;
      const h = await headless(endpoint.url, cwd, `round ${i}`);
      const hArrived = endpoint.arrivals[before];
      if (h.first !== undefined && hArrived !== undefined) {
        hlTransport.push(h.first - hArrived);
        hlPrompt.push(h.first - h.spawned);
        hlStart.push(hArrived - h.spawned);
      }
      before = endpoint.arrivals.length;
      const a = await acp.prompt(`round ${i}`);
      const aArrived = endpoint.arrivals[before];
      acpTransport.push(a.first - aArrived);
      acpPrompt.push(a.first - a.sent);
    }
  } finally {
    await acp.close();
    endpoint.server.closeAllConnections();
    endpoint.server.close();
    rmSync(cwd, { recursive: true, force: true });
  }
  const at = stats(acpTransport);
  const ht = stats(hlTransport);
  const ap = stats(acpPrompt);
  const hp = stats(hlPrompt);
  return {
    rounds: ROUNDS,
    acpInitializeMs: fmt(acp.initMs, 0),
    acpSessionNewMs: fmt(acp.sessionMs, 0),
    headlessSpawnToModelRequest: show(stats(hlStart)),
    acpTransport: show(at),
    headlessTransport: show(ht),
    acpPromptToFirstDelta: show(ap),
    headlessSpawnToFirstDelta: show(hp),
    ratioTransportAcpVsHeadless: fmt(at.median / ht.median, 2),
    ratioPromptToFirstDeltaAcpVsHeadless: fmt(ap.median / hp.median, 3),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(JSON.stringify(await run(), null, 1));
