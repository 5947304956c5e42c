/**
 * Finds the agy binary and probes its version.
 * Order: the `agyPath` option, then `AGY_PATH`, then every directory on `PATH`. The error lists every path tried.
 */
import { execFile } from 'node:child_process';
import { isAbsolute, resolve } from 'node:path';
import { AgyNotFoundError } from '../../errors.js';
import { findOnPath, isExecutableFile } from '../../internal/which.js';

/** Where to look. */
export interface BinaryLookup {
  /** Explicit path (the `agyPath` option). */
  agyPath?: string | undefined;
  /** Environment to read `AGY_PATH` and `PATH` from. */
  env: NodeJS.ProcessEnv;
}

/** Resolves the agy binary, or throws `AgyNotFoundError` listing every path tried. */
export function resolveAgyBinary(lookup: BinaryLookup): string {
  const tried: string[] = [];
  const explicit = [lookup.agyPath, lookup.env.AGY_PATH].filter((p): p is string => !!p);
  for (const candidate of explicit) {
    const path = isAbsolute(candidate) ? candidate : resolve(candidate);
    if (tried.includes(path)) continue;
    tried.push(path);
    if (isExecutableFile(path)) return path;
  }
  // An explicit path that is wrong is a configuration error: do not silently fall back to PATH.
  if (explicit.length > 0) throw new AgyNotFoundError(tried);
  const names = process.platform === 'win32' ? ['agy.exe', 'agy.cmd', 'agy'] : ['agy'];
  const onPath = findOnPath(names, lookup.env);
  if (onPath.found) return onPath.found;
  throw new AgyNotFoundError([...tried, ...onPath.tried]);
}

const versionCache = new Map<string, Promise<string | null>>();

/**
 * Runs `agy --version` once per binary path and returns the first `x.y.z` it prints, or null when the probe
 * fails. Cached for the life of the process.
 */
export function probeAgyVersion(
  binary: string,
  env: NodeJS.ProcessEnv,
  timeoutMs = 15_000,
): Promise<string | null> {
  let cached = versionCache.get(binary);
  if (!cached) {
    cached = new Promise((done) => {
      execFile(
        binary,
        ['--version'],
        { env, timeout: timeoutMs, killSignal: 'SIGKILL' },
        (err, stdout, stderr) => {
          const match = /(\d+\.\d+\.\d+[\w.+-]*)/.exec(`${stdout}\n${stderr}`);
          done(err && !match ? null : (match?.[1] ?? null));
        },
      );
    });
    versionCache.set(binary, cached);
  }
  return cached;
}
