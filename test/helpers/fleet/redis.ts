/**
 * A real Redis for the fleet tests: `AGY_SDK_TEST_REDIS_URL` (started by `.ci/run`), else a private
 * `redis-server` started here on 127.0.0.1 and a free port (no persistence, stopped after the file), else
 * nothing, with the reason the tests skip.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findOnPath } from '../../../src/internal/which.js';

export interface TestRedis {
  /** The URL, or undefined when no Redis could be had. */
  url: string | undefined;
  /** Why there is none. */
  skipReason: string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

export async function testRedis(): Promise<TestRedis> {
  const fromEnv = process.env.AGY_SDK_TEST_REDIS_URL;
  if (fromEnv) return { url: fromEnv, skipReason: '', stop: async () => {} };
  const binary = findOnPath(['redis-server'], process.env).found;
  if (!binary)
    return {
      url: undefined,
      skipReason:
        'no Redis: AGY_SDK_TEST_REDIS_URL is unset and redis-server is not on PATH (apt-get install redis-server)',
      stop: async () => {},
    };
  const dir = await mkdtemp(join(tmpdir(), 'agy-sdk-redis-'));
  const port = await freePort();
  const child: ChildProcess = spawn(
    binary,
    ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const ready = new Promise<boolean>((resolve) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Ready to accept connections')) resolve(true);
    });
    child.once('exit', () => resolve(false));
    child.once('error', () => resolve(false));
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    await rm(dir, { recursive: true, force: true });
  };
  if (!(await ready)) {
    await stop();
    return { url: undefined, skipReason: `redis-server at ${binary} did not start`, stop: async () => {} };
  }
  return { url: `redis://127.0.0.1:${port}`, skipReason: '', stop };
}

/** A `redis-server` this test owns: it may SIGKILL it and start it again on the same port, data kept. */
export interface OwnRedis {
  url: string;
  port: number;
  /** SIGKILLs the server (an outage); resolves once it is gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port with the same data (append-only file, fsync on every write); no-op when up. */
  restart(): Promise<void>;
  /** Stops it for good and removes its data. */
  stop(): Promise<void>;
}

/** Starts a private `redis-server` (never the shared one of `.ci/run`); undefined when there is none on PATH. */
export async function ownRedis(): Promise<OwnRedis | undefined> {
  const binary = findOnPath(['redis-server'], process.env).found;
  if (!binary) return undefined;
  const dir = await mkdtemp(join(tmpdir(), 'agy-sdk-own-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    if (child && child.exitCode === null && child.signalCode === null) return;
    // Persistence on every write: a SIGKILL loses nothing, as a production Redis with AOF would not.
    const proc = spawn(
      binary,
      [
        ...['--bind', '127.0.0.1', '--port', String(port), '--dir', dir, '--save', ''],
        ...['--appendonly', 'yes', '--appendfsync', 'always'],
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = proc;
    const ready = await new Promise<boolean>((resolve) => {
      let out = '';
      proc.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('Ready to accept connections')) resolve(true);
      });
      proc.once('exit', () => resolve(false));
      proc.once('error', () => resolve(false));
    });
    if (!ready) throw new Error(`redis-server did not start on port ${port}`);
  };
  const kill = async () => {
    const proc = child;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = once(proc, 'exit');
    proc.kill('SIGKILL');
    await exited;
  };
  try {
    await start();
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    restart: start,
    stop: async () => {
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
