/**
 * The simulator's cassette mode (`agy-sim --cassette <file>`, or `AGY_SIM_CASSETTE=<file>`): it plays a
 * recorded session as the agent process. stdout, stderr, the exit and the timing come from the cassette;
 * each recorded hook call is re-issued by running this session's hook commands (so the SDK's relay reaches the
 * new listener and the user's policies and hooks decide again), and each recorded MCP call that passes the
 * replay's gate (`replay-gate.ts`: a tool call only when this session's PreToolUse hooks allowed it, a remote
 * server only when the replay allows it) is POSTed to this session's server of the same name (so the user's
 * own tools run again). Each stdin line is compared with the
 * recording (placeholders of the sanitizer match anything): `strict` (default) ends the turn with a
 * mismatch marker on stderr and a failed result, which the SDK turns into a `CassetteMismatchError`; `loose`
 * warns and goes on.
 *
 * Each process start plays the next `spawn` segment: starts are counted per cassette and session directory
 * in the simulator's state directory.
 *
 * Environment: `AGY_SIM_CASSETTE_MODE` = `strict` | `loose`; `AGY_SIM_CASSETTE_TIMING` = `none` (default: as
 * fast as the reader takes it), `real`, or a speed-up factor (`10` plays ten times faster);
 * `AGY_SIM_CASSETTE_REMOTE` = the non-loopback MCP servers the replay may reach (`*`, or comma-separated names;
 * default none).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type Cassette,
  type CassetteRecord,
  type ExitRecord,
  type HookRecord,
  readCassette,
} from '../../cassette/format.js';
import { CassetteError } from '../../errors.js';
import { parseArgs } from '../simulator/args.js';
import { Emitter } from '../simulator/emitter.js';
import { runHook } from '../simulator/hook-runner.js';
import { SimRuntime } from '../simulator/runtime.js';
import { stateDirFromEnv } from '../simulator/state.js';
import { usableWorkspaces } from '../simulator/workspace.js';
import { CASSETTE_MISMATCH_MARKER, stdinMatches } from './mismatch.js';
import { type McpDecision, ReplayGate } from './replay-gate.js';
import { parseRemoteServers, REMOTE_SERVERS_ENV, type RemoteServers } from './replay-remote.js';

/** How long one replayed MCP POST may take before it is abandoned. */
const MCP_POST_TIMEOUT_MS = 30_000;

/** The `--cassette` value in `argv`, if any, and the other arguments. */
export function cassetteArgument(argv: readonly string[]): { file: string | undefined; rest: string[] } {
  const rest: string[] = [];
  let file: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--cassette') file = argv[++i];
    else if (arg.startsWith('--cassette=')) file = arg.slice('--cassette='.length);
    else rest.push(arg);
  }
  return { file, rest };
}

type Timing = { kind: 'none' } | { kind: 'scaled'; factor: number };

function timingFromEnv(value: string | undefined): Timing {
  if (value === undefined || value === '' || value === 'none') return { kind: 'none' };
  if (value === 'real') return { kind: 'scaled', factor: 1 };
  const factor = Number(value);
  if (!Number.isFinite(factor) || factor <= 0)
    throw new CassetteError(
      'AGY_SIM_CASSETTE_TIMING',
      0,
      'timing',
      `must be none, real or a positive number, got ${value}`,
    );
  return { kind: 'scaled', factor };
}

/** The segments of a cassette: the records of each process start (records before any `spawn` are dropped). */
export function segments(cassette: Cassette): CassetteRecord[][] {
  const out: CassetteRecord[][] = [];
  for (const r of cassette.records) {
    if (r.type === 'spawn') out.push([r]);
    else out.at(-1)?.push(r);
  }
  return out;
}

/** Which start of this session this is (0 for the first), counted in the state directory. */
function nextStart(file: string, addDirs: readonly string[]): number {
  const dir = stateDirFromEnv(process.env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const key = createHash('sha256')
    .update(JSON.stringify([resolve(file), ...addDirs]))
    .digest('hex')
    .slice(0, 24);
  const counter = join(dir, `cassette-${key}.starts`);
  let n = 0;
  try {
    n = Number(readFileSync(counter, 'utf8')) || 0;
  } catch {
    // First start of this session.
  }
  writeFileSync(counter, String(n + 1), { mode: 0o600 });
  return n;
}

/** Plays the cassette named by `file` as agy, then exits. */
export async function replayCassette(file: string, argv: readonly string[]): Promise<never> {
  const emitter = new Emitter();
  const exit = async (code: number): Promise<never> => {
    await emitter.flush().catch(() => {});
    process.exit(code);
  };
  let cassette: Cassette;
  let timing: Timing;
  let remote: RemoteServers;
  try {
    cassette = readCassette(file);
    timing = timingFromEnv(process.env.AGY_SIM_CASSETTE_TIMING);
    remote = remoteFromEnv(process.env[REMOTE_SERVERS_ENV]);
  } catch (err) {
    await emitter.stderr(`error: ${(err as Error).message}`);
    return exit(2);
  }
  if (argv.includes('--version')) {
    await emitter.raw(`agy version ${cassette.header.agy.version ?? '0.0.0'} (cassette)\n`);
    return exit(0);
  }
  const strict = process.env.AGY_SIM_CASSETTE_MODE !== 'loose';
  const args = parseArgs(argv);
  const workspaces = usableWorkspaces(args.addDirs, process.cwd());
  const all = segments(cassette);
  const index = nextStart(file, args.addDirs);
  const segment = all[index];
  if (!segment) {
    await emitter.stderr(
      `error: the cassette has ${all.length} process start(s); this is start ${index + 1}`,
    );
    return exit(1);
  }
  const runtime = SimRuntime.load(
    {
      workspaces,
      model: args.model,
      skipPermissions: args.skipPermissions,
      // The recorded build's hook reading and command splitting, as the SDK answered for that version.
      version: cassette.header.agy.version ?? '0.0.0',
    },
    () => {},
  );
  const gate = new ReplayGate(runtime, remote);

  // stdin lines, EOF and signals, awaited in order by the records that need them.
  const input: string[] = [];
  let eof = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  const waitFor = async (ready: () => boolean): Promise<void> => {
    while (!ready()) await new Promise<void>((r) => (wake = r));
  };
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    input.push(line);
    notify();
  });
  lines.on('close', () => {
    eof = true;
    notify();
  });
  const signals: string[] = [];
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.on(sig, () => {
      signals.push(sig);
      notify();
    });
  }

  let base = Date.now() - scaled(segment[0]!.t, timing);
  const conversationId = (): string => {
    for (const r of segment) {
      if (r.type !== 'stdout') continue;
      const id = /"conversation_id":"([^"]+)"/.exec(r.line)?.[1];
      if (id) return id;
    }
    return '';
  };
  for (let i = 1; i < segment.length; i++) {
    const record = segment[i]!;
    // A signal the recording did not expect here (a capture has none): agy answers it at once, so the rest of
    // the segment plays without its gaps.
    const hurry = signals.length > 0 && record.type !== 'signal';
    if (timing.kind === 'scaled' && !hurry) {
      const due = base + scaled(record.t, timing);
      const wait = due - Date.now();
      if (wait > 0 && record.type !== 'stdin' && record.type !== 'close' && record.type !== 'signal')
        await sleep(wait);
    }
    switch (record.type) {
      case 'stdout':
        await emitter.raw(`${record.line}\n`);
        break;
      case 'stderr':
        await emitter.stderr(record.line);
        break;
      case 'stdin': {
        await waitFor(() => input.length > 0 || eof);
        if (input.length === 0) return exit(0);
        const actual = input.shift()!;
        if (!stdinMatches(record.line, actual)) {
          const detail = JSON.stringify({ expected: record.line, actual });
          if (strict) {
            // The marker first (the SDK reads stderr before acting on a result), then a failed result so the
            // turn ends at once; the process stays up until stdin closes, as agy does after a failed turn.
            await emitter.stderr(`${CASSETTE_MISMATCH_MARKER} ${detail}`);
            await emitter.line({
              event: 'result',
              result: {
                conversation_id: conversationId(),
                status: 'ERROR',
                error: 'cassette mismatch: stdin differs from the recording',
                response: '',
                num_turns: 0,
              },
            });
            await waitFor(() => eof);
            return exit(0);
          }
          await emitter.stderr(`agy-sdk cassette (loose): stdin differs from the recording ${detail}`);
        }
        base = Date.now() - scaled(record.t, timing);
        break;
      }
      case 'close':
        await waitFor(() => eof);
        break;
      case 'signal':
        await waitFor(() => signals.length > 0 || eof);
        signals.shift();
        base = Date.now() - scaled(record.t, timing);
        break;
      case 'hook': {
        // Consecutive calls with one payload are one agy hook event (several registrations of the SDK).
        while (sameHookCall(segment[i + 1], record)) i++;
        if (record.event === 'PreToolUse') await gate.preToolUse(record, conversationId());
        else await reissueHook(runtime, record, conversationId());
        break;
      }
      case 'mcp':
        await reissueMcp(gate.decide(record), record.server, record.request, emitter);
        break;
      case 'exit':
        return exit(exitStatus(record));
      default:
        break;
    }
  }
  // The recording ended with the process still up: stay until stdin closes, as agy does.
  await waitFor(() => eof);
  return exit(0);
}

/**
 * The status a recorded exit is played with. A death by signal becomes exit 128 + the signal's number (the
 * shell's convention, `$?` after a killed child): the replayer never signals itself, since a stop signal
 * would freeze it, a handled one (SIGINT, SIGTERM) would be caught by its own listeners, SIGPIPE is ignored by
 * Node, and a core-dumping one (SIGSEGV, SIGABRT, …) would write this process's memory, the session's
 * environment included, to a core file. The SDK judges the turn the same way (an exit before the `result`
 * fails it, whatever the status); `TurnResult.exitCode` is then 128 + N and `signal` is null
 * (docs/reference/process.md#exit-by-a-signal).
 */
export function exitStatus(record: ExitRecord): number {
  if (record.signal === null) return record.code ?? 1;
  // Every name in EXIT_SIGNALS (checked when the cassette was read) has a number on POSIX systems.
  return 128 + (osConstants.signals[record.signal as NodeJS.Signals] ?? 0);
}

function scaled(t: number, timing: Timing): number {
  return timing.kind === 'scaled' ? t / timing.factor : 0;
}

function sameHookCall(next: CassetteRecord | undefined, record: HookRecord): boolean {
  return (
    next?.type === 'hook' &&
    next.event === record.event &&
    JSON.stringify(next.request) === JSON.stringify(record.request)
  );
}

type HookEventName = Parameters<SimRuntime['hooksFor']>[0];

/** Runs this session's hook commands for the recorded event with the recorded payload. */
async function reissueHook(runtime: SimRuntime, record: HookRecord, conversationId: string): Promise<void> {
  const request = (record.request ?? {}) as { toolCall?: { name?: unknown } };
  const tool = typeof request.toolCall?.name === 'string' ? request.toolCall.name : undefined;
  const event = record.event as HookEventName;
  const hooks = (() => {
    try {
      return runtime.hooksFor(event, tool);
    } catch {
      return [];
    }
  })();
  for (const hook of hooks ?? []) {
    await runHook(hook, request as object, { cwd: runtime.hookCwd, conversationId, exec: runtime.hookExec });
  }
}

/** POSTs a recorded MCP request the gate let through, or says on stderr why it did not. */
async function reissueMcp(
  decision: McpDecision,
  server: string,
  request: unknown,
  emitter: Emitter,
): Promise<void> {
  if ('refused' in decision) {
    await emitter.stderr(
      `agy-sdk cassette: refused ${describeRequest(request)} to MCP server ${JSON.stringify(server)}: ${decision.refused}`,
    );
    return;
  }
  const { server: spec, body } = decision.send;
  try {
    const res = await fetch(spec.transport.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...spec.transport.headers,
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(MCP_POST_TIMEOUT_MS),
    });
    await res.text();
  } catch (err) {
    await emitter.stderr(`agy-sdk cassette: MCP call to ${server} failed: ${(err as Error).message}`);
  }
}

/** `tools/call delete_all`, `initialize`, `a batch`: what a refusal line names (bounded: the record is untrusted). */
function describeRequest(request: unknown): string {
  if (Array.isArray(request)) return 'a batch';
  const r = (typeof request === 'object' && request !== null ? request : {}) as {
    method?: unknown;
    params?: { name?: unknown };
  };
  const method = typeof r.method === 'string' ? r.method : 'a message';
  const tool = method === 'tools/call' && typeof r.params?.name === 'string' ? ` ${r.params.name}` : '';
  return JSON.stringify(`${method}${tool}`.slice(0, 200));
}

function remoteFromEnv(value: string | undefined): RemoteServers {
  const parsed = parseRemoteServers(value);
  if (typeof parsed === 'string') throw new CassetteError(REMOTE_SERVERS_ENV, 0, 'remote', parsed);
  return parsed;
}
