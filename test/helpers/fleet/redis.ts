/**
 * A real Redis for the fleet tests: `AGY_SDK_TEST_REDIS_URL` (started by `.ci/run`), else a private
 * `redis-server` on 127.0.0.1 and a free port (no persistence), else nothing, with the reason the tests skip.
 *
 * Whether there can be one is decided without starting it ({@link REDIS}), so a file may call `describe.skipIf`
 * with it while vitest collects. A server is started only in a `beforeAll` of the scope that asked for it
 * ({@link useTestRedis}, {@link useOwnRedis}) and stopped in its `afterAll`: a `vitest list`, or a filter that
 * leaves the scope's tests out, starts none. A run that ends without its `afterAll` (an abort, a killed worker)
 * still leaves none: each server runs under a shell watchdog that stops it and removes its directory when the
 * test process's end closes the watchdog's stdin ({@link startTied}).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { findOnPath } from '../../../src/internal/which.js';

/** What the fleet tests can have, known without starting anything. */
export interface RedisAvailability {
  /** `AGY_SDK_TEST_REDIS_URL`, when set: a server someone else runs. */
  url: string | undefined;
  /** `redis-server` on PATH, when there is one. */
  binary: string | undefined;
  /** Why there is no Redis at all ('' when there is one). */
  skipReason: string;
}

function availability(): RedisAvailability {
  const url = process.env.AGY_SDK_TEST_REDIS_URL || undefined;
  const binary = findOnPath(['redis-server'], process.env).found;
  const skipReason =
    url || binary
      ? ''
      : 'no Redis: AGY_SDK_TEST_REDIS_URL is unset and redis-server is not on PATH (apt-get install redis-server)';
  return { url, binary, skipReason };
}

/** What this machine offers (see {@link RedisAvailability}). */
export const REDIS: RedisAvailability = availability();

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * The watchdog: starts the server in the background, lets go of the stdout it shares with it (so the pipe closes
 * when the server exits), then waits for one line on stdin, a signal name. The line comes from `stop`/`kill`;
 * end of file means the test process is gone, however it ended: the server gets SIGTERM and its directory
 * (`$AGY_SDK_REDIS_DIR`) is removed.
 */
const WATCHDOG = `"$0" "$@" & pid=$!
exec >/dev/null 2>&1
read -r sig
kill "-\${sig:-TERM}" "$pid"
wait "$pid"
if [ -z "$sig" ]; then rm -rf -- "$AGY_SDK_REDIS_DIR"; fi`;

/** A server under its watchdog. */
interface Tied {
  /** Sends `signal` to the server; resolves once it and its watchdog are gone. */
  end(signal: 'TERM' | 'KILL'): Promise<void>;
}

/**
 * Starts `binary args` under {@link WATCHDOG}; resolves once it printed `Ready to accept connections`, rejects
 * (with the server stopped) when it exits first.
 */
async function startTied(binary: string, args: string[], dir: string): Promise<Tied> {
  const shell: ChildProcess = spawn('/bin/sh', ['-c', WATCHDOG, binary, ...args], {
    env: { ...process.env, AGY_SDK_REDIS_DIR: dir },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const exited = once(shell, 'exit').then(() => undefined);
  let ended = false;
  const end = async (signal: 'TERM' | 'KILL') => {
    if (!ended) {
      ended = true;
      shell.stdin!.end(`${signal}\n`);
    }
    await exited;
  };
  let out = '';
  const ready = await new Promise<boolean>((resolve) => {
    shell.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Ready to accept connections')) resolve(true);
    });
    shell.stdout!.once('close', () => resolve(false));
    shell.once('error', () => resolve(false));
  });
  if (!ready) {
    await end('TERM');
    throw new Error(
      `redis-server (${binary}) did not start: ${out.trim().split('\n').slice(-3).join(' | ')}`,
    );
  }
  return { end };
}

/** A Redis URL for a test scope: `url` is set by the scope's `beforeAll`. */
export interface TestRedis {
  /** The URL; throws before the scope's `beforeAll` ran. */
  readonly url: string;
}

/**
 * Registers, in the calling scope (a file or a `describe` body), a `beforeAll` that has a Redis
 * (`AGY_SDK_TEST_REDIS_URL`, else a private `redis-server`) and an `afterAll` that stops what it started. Call
 * it only where {@link REDIS} has one (`describe.skipIf(REDIS.skipReason !== '')`).
 */
export function useTestRedis(): TestRedis {
  let url: string | undefined;
  let stop = async () => {};
  beforeAll(async () => {
    if (REDIS.url) {
      url = REDIS.url;
      return;
    }
    if (!REDIS.binary) throw new Error(REDIS.skipReason);
    const dir = await mkdtemp(join(tmpdir(), 'agy-sdk-redis-'));
    const port = await freePort();
    const args = [
      '--bind',
      '127.0.0.1',
      '--port',
      String(port),
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
    ];
    stop = () => rm(dir, { recursive: true, force: true });
    const server = await startTied(REDIS.binary, args, dir);
    stop = async () => {
      await server.end('TERM');
      await rm(dir, { recursive: true, force: true });
    };
    url = `redis://127.0.0.1:${port}`;
  });
  afterAll(() => stop());
  return {
    get url() {
      if (url === undefined)
        throw new Error('useTestRedis: the url is set by its beforeAll, not while collecting');
      return url;
    },
  };
}

/** A `redis-server` this test owns: it may SIGKILL it and start it again on the same port, data kept. */
export interface OwnRedis {
  /** The URL; throws before the scope's `beforeAll` ran. */
  readonly url: string;
  /** SIGKILLs the server (an outage); resolves once it is gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port with the same data (append-only file, fsync on every write); no-op when up. */
  restart(): Promise<void>;
}

/**
 * Registers, in the calling scope, a `beforeAll` that starts a private `redis-server` (never the shared one of
 * `.ci/run`) and an `afterAll` that stops it for good and removes its data. Call it only where `REDIS.binary`
 * is set.
 */
export function useOwnRedis(): OwnRedis {
  let dir: string | undefined;
  let port: number | undefined;
  let server: Tied | undefined;
  const start = async () => {
    if (server) return;
    if (!REDIS.binary || !dir || port === undefined)
      throw new Error('useOwnRedis: no redis-server, or not started');
    // Persistence on every write: a SIGKILL loses nothing, as a production Redis with AOF would not.
    const args = [
      ...['--bind', '127.0.0.1', '--port', String(port), '--dir', dir, '--save', ''],
      ...['--appendonly', 'yes', '--appendfsync', 'always'],
    ];
    server = await startTied(REDIS.binary, args, dir);
  };
  const kill = async () => {
    const running = server;
    server = undefined;
    await running?.end('KILL');
  };
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agy-sdk-own-redis-'));
    port = await freePort();
    await start();
  });
  afterAll(async () => {
    await kill();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  return {
    get url() {
      if (port === undefined)
        throw new Error('useOwnRedis: the url is set by its beforeAll, not while collecting');
      return `redis://127.0.0.1:${port}`;
    },
    kill,
    restart: start,
  };
}
