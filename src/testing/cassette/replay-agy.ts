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
import { join, resolve } from 'node:path';
import { type Cassette, type CassetteRecord, readCassette } from '../../cassette/format.js';
import { CassetteError } from '../../errors.js';
import { parseArgs } from '../simulator/args.js';
import { Emitter } from '../simulator/emitter.js';
import { SimRuntime } from '../simulator/runtime.js';
import { stateDirFromEnv } from '../simulator/state.js';
import { usableWorkspaces } from '../simulator/workspace.js';
import { ReplayGate } from './replay-gate.js';
import { playSegment, ReplayInput, type Timing } from './replay-player.js';
import { parseRemoteServers, REMOTE_SERVERS_ENV, type RemoteServers } from './replay-remote.js';

export { exitStatus } from './replay-player.js';

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
  const input = ReplayInput.listen();
  return playSegment({ segment, emitter, exit, input, timing, strict, runtime, gate });
}

function remoteFromEnv(value: string | undefined): RemoteServers {
  const parsed = parseRemoteServers(value);
  if (typeof parsed === 'string') throw new CassetteError(REMOTE_SERVERS_ENV, 0, 'remote', parsed);
  return parsed;
}
