/**
 * Helpers for the session-runtime tests: walking and hashing directory trees (without following symlinks),
 * running hook command scripts the way agy does (a real spawn, JSON on stdin, stdout read to the end), and
 * probing whether a loopback port still accepts connections.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { connect } from 'node:net';
import { join, relative } from 'node:path';

/** One entry of a walked tree. `rel` is relative to the root ('' for the root itself). */
export interface TreeEntry {
  rel: string;
  path: string;
  kind: 'dir' | 'file' | 'symlink' | 'other';
  /** Permission bits (`mode & 0o7777`). */
  mode: number;
}

/** Every entry under `root` (the root included), depth first, sorted by path. Symlinks are not followed. */
export async function walkTree(root: string): Promise<TreeEntry[]> {
  const out: TreeEntry[] = [];
  const visit = async (path: string): Promise<void> => {
    const st = await lstat(path);
    const kind = st.isSymbolicLink() ? 'symlink' : st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other';
    out.push({ rel: relative(root, path), path, kind, mode: st.mode & 0o7777 });
    if (kind === 'dir') {
      for (const name of (await readdir(path)).sort()) await visit(join(path, name));
    }
  };
  await visit(root);
  return out;
}

/**
 * A fingerprint of every entry under `root`: files by mode and SHA-256 of content, directories by mode,
 * symlinks by target. Two equal fingerprints mean nothing was added, removed, rewritten or re-moded.
 */
export async function fingerprintTree(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await walkTree(root)) {
    const mode = entry.mode.toString(8);
    if (entry.kind === 'file') {
      const digest = createHash('sha256')
        .update(await readFile(entry.path))
        .digest('hex');
      out[entry.rel] = `file ${mode} ${digest}`;
    } else if (entry.kind === 'symlink') {
      out[entry.rel] = `symlink -> ${await readlink(entry.path)}`;
    } else {
      out[entry.rel] = `${entry.kind} ${mode}`;
    }
  }
  return out;
}

/** What a hook command did. */
export interface HookRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A running hook command: its pid (the relay's, after the script's `exec`) and its outcome. */
export interface RunningHook {
  child: ChildProcess;
  pid: number;
  done: Promise<HookRun>;
}

/**
 * Spawns `command` (an absolute path, exec'd without a shell, as agy may) with `input` as JSON on stdin,
 * and collects its output until it exits. `env` defaults to an empty environment, which proves the
 * command needs neither PATH nor anything else inherited.
 */
export function startHook(command: string, input: unknown, env: NodeJS.ProcessEnv = {}): RunningHook {
  const child = spawn(command, [], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    stdout += c;
  });
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  child.stdin.on('error', () => {});
  const done = new Promise<HookRun>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  child.stdin.end(typeof input === 'string' ? input : JSON.stringify(input));
  if (child.pid === undefined) throw new Error(`could not spawn ${command}`);
  return { child, pid: child.pid, done };
}

/** Runs a hook command to completion. */
export function runHook(command: string, input: unknown, env: NodeJS.ProcessEnv = {}): Promise<HookRun> {
  return startHook(command, input, env).done;
}

/** Reads `/proc/<pid>/<file>` as NUL-separated strings (`cmdline`, `environ`). */
export async function procStrings(pid: number, file: 'cmdline' | 'environ'): Promise<string[]> {
  return (await readFile(`/proc/${pid}/${file}`, 'utf8')).split('\0').filter((s) => s !== '');
}

/** Whether a TCP connection to `127.0.0.1:<port>` is accepted (`'connected'`) or refused (the error code). */
export function probePort(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

/** The number of listening TCP servers in this process (a leaked listener shows up here). */
export function tcpServers(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === 'TCPServerWrap').length;
}

/** One captured log call. */
export interface LogEntry {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  details: unknown[];
}

/**
 * A logger that keeps every call. Typed structurally (`(message, ...details)`), so it fits the SDK's
 * `Logger` whatever shape its detail arguments take.
 */
export function recordingLogger() {
  const entries: LogEntry[] = [];
  const push =
    (level: LogEntry['level']) =>
    (message: string, ...details: unknown[]): void => {
      entries.push({ level, message, details });
    };
  return {
    entries,
    debug: push('debug'),
    info: push('info'),
    warn: push('warn'),
    error: push('error'),
    /** Every call at `level` rendered as one line (message plus JSON details; errors by message). */
    lines(level: LogEntry['level']): string[] {
      return entries
        .filter((e) => e.level === level)
        .map(
          (e) =>
            `${e.message} ${JSON.stringify(e.details, (_k, v: unknown) => (v instanceof Error ? v.message : v))}`,
        );
    },
  };
}

/** A promise with its resolve function, for making handlers wait on the test. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
