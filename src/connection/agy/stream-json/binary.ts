/** Probes the agy binary's version (`resolve-binary.ts` finds it), cached per build of the binary. */
import { realpathSync, statSync } from 'node:fs';
import { AgentProcess } from '../../process/child-process.js';

export { type BinaryLookup, resolveAgyBinary } from './resolve-binary.js';

/** How long `agy --version` may run before it is killed. */
export const DEFAULT_VERSION_PROBE_TIMEOUT_MS = 10_000;

/** Options of one wait for the version probe. */
export interface ProbeOptions {
  /** Working directory of the probe. */
  cwd: string;
  /** The probe is killed after this long and the answer is null (not cached). */
  timeoutMs?: number | undefined;
  /** Aborting stops this wait (answer null); the probe is killed once no one waits for it any more. */
  signal?: AbortSignal | undefined;
}

/** One running probe, shared by every start that needs the same binary's version meanwhile. */
interface InFlight {
  answer: Promise<string | null>;
  waiters: number;
  kill: () => void;
  /** Settles once the probe's process has exited and been swept. */
  exited: Promise<unknown>;
}

/** Probes killed because no start waited for them any more, until their process is gone. */
const stopping = new Set<Promise<unknown>>();

/**
 * Settles once every probe killed so far has exited: a closing connection waits for the probe it abandoned, so
 * `close()` leaves no process behind when it returns (the probe, like agy, holds the host's supervisor).
 */
export async function probesStopped(): Promise<void> {
  await Promise.all(stopping);
}

/**
 * Finished answers, by {@link cacheKey}. A binary's version can change while the host runs (agy updates itself
 * in place), so the key names the file's identity, not only its path.
 */
const versionCache = new Map<string, string | null>();
const inFlight = new Map<string, InFlight>();
/** Numbers the probes of binaries without an identity, so that none shares another's in-flight entry. */
let uncachedProbes = 0;

/**
 * The variables the simulator takes its version from (`src/testing/simulator/main.ts`: a scenario's `version`,
 * else `AGY_SIM_VERSION`; a replayed cassette's header, `src/testing/cassette/replay-agy.ts`).
 */
const SIMULATOR_VERSION_VARIABLES = ['AGY_SIM_SCENARIO', 'AGY_SIM_VERSION', 'AGY_SIM_CASSETTE'] as const;

/**
 * Which file `binary` is now: its resolved real path (an update that moves a symlink to a new build), device,
 * inode, size and modification time (an update that replaces or rewrites the file in place). Null when the file
 * cannot be read: the probe then runs and fails on its own, and its answer is not cached (see
 * docs/reference/process.md#version-probe-and-self-update).
 */
function binaryIdentity(binary: string): string | null {
  try {
    const real = realpathSync(binary);
    const st = statSync(real, { bigint: true });
    return `${real}\0${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch {
    return null;
  }
}

/**
 * What an answer is known by: the binary's identity ({@link binaryIdentity}), and for the simulator, whose
 * version comes from its environment and not from its file, the variables it takes it from. Real agy reads none
 * of them, so every start of one build shares one answer, and a build that replaced it is probed again; agents
 * on simulator scenarios or cassettes of different versions in one process (a test file, a conformance run per
 * version) each get their own. Null when the binary's identity is unknown (nothing is cached then).
 */
function cacheKey(binary: string, env: NodeJS.ProcessEnv): string | null {
  const identity = binaryIdentity(binary);
  if (identity === null) return null;
  let key = identity;
  for (const name of SIMULATOR_VERSION_VARIABLES) {
    const value = env[name];
    if (value !== undefined) key += `\0${name}=${value}`;
  }
  return key;
}

/**
 * The cached answer for `binary` run with `env`: a version, null (probed, none printed), or undefined (not
 * probed yet).
 */
export function cachedAgyVersion(binary: string, env: NodeJS.ProcessEnv): string | null | undefined {
  const key = cacheKey(binary, env);
  if (key === null) return undefined;
  return versionCache.has(key) ? (versionCache.get(key) ?? null) : undefined;
}

/**
 * Runs `agy --version` (supervised, like agy itself, so it never outlives the host) once per build of the
 * binary (its identity, and the scenario for the simulator: `cacheKey`) and returns the first `x.y.z` it prints,
 * or null when the probe fails, times out or the wait is aborted. A completed answer is cached while the file
 * stays the same build; a timed-out or abandoned probe is killed and not cached, so a later start probes again,
 * and so is an answer from a file replaced while it was probed.
 */
export async function probeAgyVersion(
  binary: string,
  env: NodeJS.ProcessEnv,
  opts: ProbeOptions,
): Promise<string | null> {
  const found = cacheKey(binary, env);
  if (found !== null && versionCache.has(found)) return versionCache.get(found) ?? null;
  if (opts.signal?.aborted) return null;
  // An unreadable binary gets a probe of its own (never shared, never cached): its failure is the answer.
  const key = found ?? `\0uncached\0${++uncachedProbes}`;
  let probe = inFlight.get(key);
  if (!probe) {
    probe = startProbe(found, binary, env, opts.cwd, opts.timeoutMs ?? DEFAULT_VERSION_PROBE_TIMEOUT_MS);
    inFlight.set(key, probe);
  }
  const current = probe;
  current.waiters++;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<null>((resolve) => {
    onAbort = () => resolve(null);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([current.answer, aborted]);
  } finally {
    if (onAbort) opts.signal?.removeEventListener('abort', onAbort);
    current.waiters--;
    // Nobody waits any more: a probe still running is killed rather than left behind.
    if (current.waiters === 0 && inFlight.get(key) === current) {
      inFlight.delete(key);
      current.kill();
      const gone: Promise<unknown> = current.exited.finally(() => stopping.delete(gone));
      stopping.add(gone);
    }
  }
}

function startProbe(
  key: string | null,
  binary: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
  timeoutMs: number,
): InFlight {
  let out = '';
  const proc = new AgentProcess({
    binary,
    args: ['--version'],
    env,
    cwd,
    onStdout: (chunk) => {
      // Only the start matters; a runaway probe must not grow memory.
      if (out.length < 4096) out += chunk.toString('utf8');
    },
    onStdoutEnd: () => {},
    onStderrLine: (line) => {
      if (out.length < 4096) out += `\n${line}`;
    },
  });
  proc.endStdin();
  // A probe we killed (timeout, or nobody waiting) says nothing about the binary: its answer is not cached.
  let killed = false;
  let timer: NodeJS.Timeout | undefined;
  const kill = () => {
    killed = true;
    clearTimeout(timer);
    proc.killTree();
  };
  // Counted from the actual spawn: waiting in the host's spawn queue is not the probe hanging.
  void proc.launched.then(() => {
    if (!killed && !proc.exitInfo) timer = setTimeout(kill, timeoutMs);
  });
  const answer = proc.exited.then(() => {
    clearTimeout(timer);
    const version = /(\d+\.\d+\.\d+[\w.+-]*)/.exec(out)?.[1] ?? null;
    // An answer from a file replaced while it ran may be either build's: it is not cached.
    if (!killed && key !== null && cacheKey(binary, env) === key) versionCache.set(key, version);
    return version;
  });
  return {
    answer,
    waiters: 0,
    kill,
    exited: proc.exited,
  };
}
