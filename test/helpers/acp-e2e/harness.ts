/**
 * Runs the real Gemini CLI 0.61.0 (devDependency `@google/gemini-cli`) in ACP mode (`gemini --acp`), offline,
 * against the scripted Gemini endpoint of `test/helpers/gateway/fake-gemini.ts`, and drives it with a raw ACP
 * client built on `@agentclientprotocol/sdk`: protocol-level checks of what Gemini CLI does
 * (docs/reference/acp.md), independent of the SDK's own ACP backend.
 *
 * Setup (docs/reference/gemini-clients.md#gemini-cli-headless-setup, docs/reference/acp.md#setup): a private
 * temp HOME whose `~/.gemini/settings.json` selects API-key auth, trusts nothing globally, turns auto-update,
 * telemetry and usage statistics off; `GEMINI_API_KEY`, `GOOGLE_GEMINI_BASE_URL`,
 * `GEMINI_CLI_TRUST_WORKSPACE=true`; an environment built from scratch (no proxy, no real key). The CLI is a
 * launcher that relaunches itself as a child Node process and both ignore SIGTERM
 * (docs/reference/acp.md#process-tree), so it runs in its own process group: `close()` ends stdin (which ends
 * both), then kills the group if anything is left, then removes the temp dirs. Every JSON-RPC line in both
 * directions is kept in `transcript`, verbatim, so tests can assert on the wire and record fixtures.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import {
  type ClientConnection,
  type ClientContext,
  client,
  ndJsonStream,
  RequestError,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from '@agentclientprotocol/sdk';
import { FakeGemini } from '../gateway/fake-gemini.js';
import { GEMINI_CLI_ENTRY, OFFLINE_SETTINGS } from '../gateway/gemini-cli.js';

export { GEMINI_CLI_ENTRY, OFFLINE_SETTINGS };

/** Whether the CLI is installed (tests skip with this reason when it is not). */
export function cliMissingReason(): string | undefined {
  try {
    readFileSync(GEMINI_CLI_ENTRY, { flag: 'r' });
    return undefined;
  } catch {
    return `${GEMINI_CLI_ENTRY} missing`;
  }
}

/** One JSON-RPC line, as it crossed the pipe. */
export interface WireLine {
  /** `out`: client → Gemini CLI (stdin); `in`: Gemini CLI → client (stdout). */
  dir: 'in' | 'out';
  /** Milliseconds since the process was spawned. */
  t: number;
  line: string;
}

/** Answers a `session/request_permission`; the default picks the first `reject_once` option. */
export type PermissionAnswer = (
  req: RequestPermissionRequest,
) => RequestPermissionResponse | Promise<RequestPermissionResponse>;

/** How to start one Gemini CLI in ACP mode. */
export interface AcpGeminiOptions {
  /** The endpoint to point it at; a fresh one (closed by `close()`) when absent. */
  fake?: FakeGemini;
  /** Settings merged over `OFFLINE_SETTINGS` (top-level keys replaced). */
  settings?: Record<string, unknown>;
  /** An existing HOME to reuse (e.g. for `session/load` in a second process); not removed by `close()`. */
  home?: string;
  /** An existing workspace to reuse; not removed by `close()`. */
  cwd?: string;
  /** Extra CLI arguments after `--acp`. */
  args?: string[];
  /** Extra environment variables. */
  env?: Record<string, string>;
  /**
   * The `fs` client capabilities `initialize` advertises. Default: write only; advertising read breaks writes
   * of new files in 0.61 (docs/reference/acp.md#fs-proxy).
   */
  fs?: { readTextFile: boolean; writeTextFile: boolean };
}

/** A running `gemini --acp` with a raw ACP client attached. */
export interface AcpGemini {
  /** The launcher's pid, which is also its process group id. */
  pid: number;
  /** The private HOME. */
  home: string;
  /** The workspace (cwd of the process, `cwd` of sessions). */
  cwd: string;
  fake: FakeGemini;
  /** The raw client: `agent.request('initialize', …)` etc. */
  agent: ClientContext;
  connection: ClientConnection;
  /** Every JSON-RPC line, both directions, in order. */
  transcript: WireLine[];
  /** Every `session/update` notification received. */
  updates: SessionNotification[];
  /** Every `fs/write_text_file` request received (path, content). */
  fsWrites: { path: string; content: string }[];
  /** Every permission request received, with the answer given. */
  permissions: { request: RequestPermissionRequest; answer: RequestPermissionResponse }[];
  /** How the next permission requests are answered (replace freely). */
  onPermission: PermissionAnswer;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Resolves with the exit code/signal of the launcher. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The pids currently in the process group. */
  groupPids(): number[];
  /** `initialize` with this client's capabilities (`fs` as in the options, no terminal). */
  initialize(): ReturnType<ClientContext['request']>;
  /** Ends the CLI's stdin (what ends the whole tree, docs/reference/acp.md#process-tree). */
  endStdin(): void;
  /** Ends stdin, waits (bounded) for the group to go, kills what is left, removes the temp dirs. */
  close(): Promise<void>;
}

/** The pids whose process group is `pgid` (Linux /proc; field 5 of stat). */
export function groupMembers(pgid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // A zombie (state Z) is already dead; only its parent has not reaped it yet.
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/** Waits (bounded, polling /proc) until the group is empty; returns the survivors. */
export async function waitGroupGone(pgid: number, timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = groupMembers(pgid);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((ok) => setTimeout(ok, 50));
  }
}

/**
 * Whether `pid` is a live process. A zombie is not: it is dead, and only waits for its parent (for a grandchild
 * orphaned by the launcher's death, the machine's init, which may reap it late on a loaded machine).
 */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The first option of `kind` (throws when the request has none: a shape change the tests must see). */
export function optionOf(req: RequestPermissionRequest, kind: string): string {
  const option = req.options.find((o) => o.kind === kind);
  if (option === undefined) throw new Error(`no ${kind} option in ${JSON.stringify(req.options)}`);
  return option.optionId;
}

/** Answers with the first option of `kind`. */
export function choose(
  kind: 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always',
): PermissionAnswer {
  return (req) => ({ outcome: { outcome: 'selected', optionId: optionOf(req, kind) } });
}

/** Starts `node <gemini-cli entry> --acp` in its own process group and attaches the raw client. */
export async function startAcpGemini(opts: AcpGeminiOptions = {}): Promise<AcpGemini> {
  const fake = opts.fake ?? (await FakeGemini.start({ apiKey: 'acp-e2e-key' }));
  const ownHome = opts.home === undefined;
  const ownCwd = opts.cwd === undefined;
  const home = opts.home ?? realpathSync(mkdtempSync(join(tmpdir(), 'acp-e2e-home-')));
  const cwd = opts.cwd ?? realpathSync(mkdtempSync(join(tmpdir(), 'acp-e2e-work-')));
  mkdirSync(join(home, '.gemini'), { recursive: true, mode: 0o700 });
  const ownTmp = mkdtempSync(join(tmpdir(), 'acp-e2e-tmp-'));
  if (ownHome || opts.settings !== undefined)
    writeFileSync(
      join(home, '.gemini', 'settings.json'),
      JSON.stringify({ ...OFFLINE_SETTINGS, ...opts.settings }),
      { mode: 0o600 },
    );
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    // Gemini CLI writes an error report (gemini-client-error-*.json) into its temp dir on every failed turn:
    // this process's own, removed by close().
    TMPDIR: ownTmp,
    GEMINI_API_KEY: fake.apiKey,
    GOOGLE_GEMINI_BASE_URL: fake.url,
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    GEMINI_TELEMETRY_ENABLED: 'false',
    NO_COLOR: '1',
    TERM: 'dumb',
    ...opts.env,
  };
  const started = Date.now();
  const child: ChildProcessByStdio<Writable, Readable, Readable> = spawn(
    process.execPath,
    [GEMINI_CLI_ENTRY, '--acp', ...(opts.args ?? [])],
    { cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const pid = child.pid;
  if (pid === undefined) throw new Error('gemini --acp did not start');
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((ok) => {
    child.on('close', (code, signal) => ok({ code, signal }));
  });
  child.on('error', () => {});
  child.stdin.on('error', () => {});
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));

  const transcript: WireLine[] = [];
  const record = (dir: 'in' | 'out', text: string) => {
    for (const line of text.split('\n'))
      if (line.trim() !== '') transcript.push({ dir, t: Date.now() - started, line });
  };
  // Tee both pipes: the raw lines go to the transcript, the bytes to the SDK's ndjson stream unchanged.
  let pendingIn = '';
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      child.stdout.on('data', (chunk: Buffer) => {
        pendingIn += chunk.toString('utf8');
        const cut = pendingIn.lastIndexOf('\n');
        if (cut !== -1) {
          record('in', pendingIn.slice(0, cut));
          pendingIn = pendingIn.slice(cut + 1);
        }
        controller.enqueue(new Uint8Array(chunk));
      });
      child.stdout.on('end', () => {
        if (pendingIn !== '') record('in', pendingIn);
        try {
          controller.close();
        } catch {
          // Already closed by a cancel.
        }
      });
    },
  });
  const decoder = new TextDecoder();
  const output = new WritableStream<Uint8Array>({
    write(chunk) {
      record('out', decoder.decode(chunk));
      return new Promise<void>((ok) => {
        if (child.stdin.destroyed || !child.stdin.writable) return ok();
        child.stdin.write(chunk, () => ok());
      });
    },
    close() {
      child.stdin.end();
    },
  });

  const updates: SessionNotification[] = [];
  const permissions: AcpGemini['permissions'] = [];
  const fsWrites: AcpGemini['fsWrites'] = [];
  const self = {} as AcpGemini;
  const app = client({ name: 'agy-sdk-acp-e2e' })
    .onNotification('session/update', ({ params }) => {
      updates.push(params);
    })
    .onRequest('session/request_permission', async ({ params }) => {
      const answer = await self.onPermission(params);
      permissions.push({ request: params, answer });
      return answer;
    })
    .onRequest('fs/read_text_file', ({ params }) => {
      // A missing file must be "Resource not found" (-32002): Gemini CLI maps only that (or an ENOENT text) to
      // ENOENT, and fails a write to a new file otherwise (docs/reference/acp.md#fs-proxy).
      if (!existsSync(params.path)) throw RequestError.resourceNotFound(params.path);
      return { content: readFileSync(params.path, 'utf8') };
    })
    .onRequest('fs/write_text_file', ({ params }) => {
      fsWrites.push({ path: params.path, content: params.content });
      writeFileSync(params.path, params.content);
      return {};
    });
  const connection = app.connect(ndJsonStream(output, input));

  let closed = false;
  Object.assign(self, {
    pid,
    home,
    cwd,
    fake,
    agent: connection.agent,
    connection,
    transcript,
    updates,
    permissions,
    fsWrites,
    onPermission: choose('reject_once'),
    stderr: () => stderr,
    exited,
    groupPids: () => groupMembers(pid),
    endStdin: () => {
      child.stdin.end();
    },
    initialize: () =>
      connection.agent.request('initialize', {
        protocolVersion: 1,
        clientCapabilities: { fs: opts.fs ?? { readTextFile: false, writeTextFile: true }, terminal: false },
        clientInfo: { name: 'agy-sdk-acp-e2e', version: '0.0.0' },
      }),
    async close() {
      if (closed) return;
      closed = true;
      // stdin EOF ends the launcher and its relaunched child (SIGTERM would not).
      child.stdin.end();
      const left = await waitGroupGone(pid, 10_000);
      if (left.length > 0) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // Gone meanwhile.
        }
        await waitGroupGone(pid, 5_000);
      }
      await Promise.race([exited, new Promise((ok) => setTimeout(ok, 5_000))]);
      connection.close();
      if (opts.fake === undefined) await fake.close();
      rmSync(ownTmp, { recursive: true, force: true });
      if (ownHome) rmSync(home, { recursive: true, force: true });
      if (ownCwd) rmSync(cwd, { recursive: true, force: true });
    },
  } satisfies Omit<AcpGemini, 'onPermission'> & { onPermission: PermissionAnswer });
  return self;
}

/** The text of every `agent_message_chunk` (or `agent_thought_chunk`) among `updates`, joined. */
export function joinedText(
  updates: SessionNotification[],
  kind: 'agent_message_chunk' | 'agent_thought_chunk' = 'agent_message_chunk',
): string {
  let text = '';
  for (const { update } of updates)
    if (update.sessionUpdate === kind && update.content.type === 'text') text += update.content.text;
  return text;
}

/** The transcript as JSONL text (for fixtures), with the temp paths and the key replaced by placeholders. */
export function transcriptJsonl(g: AcpGemini, from = 0): string {
  return g.transcript
    .slice(from)
    .map((l) =>
      JSON.stringify({ dir: l.dir, msg: JSON.parse(l.line) as unknown })
        .replaceAll(g.home, '<HOME>')
        .replaceAll(g.cwd, '<WORKSPACE>')
        // Gemini CLI also writes them lower-cased (its project temp dir).
        .replaceAll(g.home.toLowerCase(), '<HOME>')
        .replaceAll(basename(g.cwd).toLowerCase(), '<workspace>')
        .replaceAll(g.fake.url, '<ENDPOINT>'),
    )
    .join('\n')
    .concat('\n');
}
