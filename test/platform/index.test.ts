// The OS seam (src/platform/index.ts): which implementation serves which `process.platform`, the typed refusal
// on an OS without one (Windows, the BSDs, …), and that the refusal reaches every caller as that error before
// anything is started (this file is in the fast project: a spawn would throw a different error, naming it).
import { afterEach, describe, expect, it } from 'vitest';
import { queueHookCommand } from '../../src/connection/agy/session/hook-commands.js';
import { AgentProcess } from '../../src/connection/process/child-process.js';
import { hostSupervisor } from '../../src/connection/process/host-supervisor.js';
import { UnsupportedError } from '../../src/errors.js';
import { Agent } from '../../src/index.js';
import { currentPlatform, describeRun, platformFor, runBounded } from '../../src/platform/index.js';
import { runHook } from '../../src/testing/simulator/hook-runner.js';
import { sandbox } from '../helpers/sandbox.js';

const realPlatform = process.platform;

/** Makes this process report `name` as its OS until the test ends. */
function pretend(name: NodeJS.Platform): void {
  Object.defineProperty(process, 'platform', { value: name, configurable: true });
}

afterEach(() => {
  Object.defineProperty(process, 'platform', { value: realPlatform, configurable: true });
});

describe('platformFor', () => {
  it('serves Linux with process groups and the /proc process table', () => {
    const linux = platformFor('linux');
    expect(linux.name).toBe('linux');
    expect(linux.processes.available).toBe(true);
    expect(linux.newGroupSpawnOptions()).toEqual({ detached: true, windowsHide: true });
    expect(linux.hookShellArgv('echo hi')).toEqual(['/bin/sh', ['-c', 'echo hi']]);
  });

  it('serves macOS with the POSIX parts and no process table (every scan is empty, as without /proc)', async () => {
    const darwin = platformFor('darwin');
    expect(darwin.name).toBe('darwin');
    expect(darwin.processes.available).toBe(false);
    expect(darwin.processes.identity(process.pid)).toBeUndefined();
    expect(darwin.processes.marked('any')).toEqual([]);
    expect(darwin.processes.scanSync().size).toBe(0);
    expect((await darwin.processes.scan({ marks: true })).size).toBe(0);
    expect(darwin.processes.canWalkTrees()).toBe(false);
    // The hook relays and quoting are the same POSIX ones as Linux's.
    expect(darwin.hookCommand('/a b/PreToolUse.sh')).toBe(
      platformFor('linux').hookCommand('/a b/PreToolUse.sh'),
    );
    expect(darwin.hookCommand('/a b/PreToolUse.sh')).toBe(`'/a b/PreToolUse.sh'`);
  });

  it('refuses Windows with an UnsupportedError that names it and says why', () => {
    let error: unknown;
    try {
      platformFor('win32');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UnsupportedError);
    expect((error as UnsupportedError).feature).toBe('platform');
    expect((error as UnsupportedError).code).toBe('unsupported');
    expect((error as Error).message).toMatch(/^platform: .*Windows \(process\.platform 'win32'\)/);
    expect((error as Error).message).toContain('cmd /c');
  });

  it.each(['freebsd', 'openbsd', 'aix', 'sunos'] as const)(
    'refuses %s with an UnsupportedError naming it',
    (name) => {
      expect(() => platformFor(name)).toThrow(UnsupportedError);
      expect(() => platformFor(name)).toThrow(`process.platform '${name}'`);
    },
  );
});

describe('currentPlatform', () => {
  it('chooses by process.platform', () => {
    expect(currentPlatform()).toBe(platformFor(realPlatform));
    pretend('darwin');
    expect(currentPlatform().name).toBe('darwin');
    pretend('linux');
    expect(currentPlatform().name).toBe('linux');
  });

  it('throws the UnsupportedError on Windows', () => {
    pretend('win32');
    expect(() => currentPlatform()).toThrow(UnsupportedError);
  });
});

describe('on an OS without a platform, every caller gets the UnsupportedError and nothing starts', () => {
  it('runBounded resolves spawn-failed with it (it never rejects)', async () => {
    pretend('win32');
    const run = await runBounded('agy', ['--version'], { timeoutMs: 1000 });
    expect(run.kind).toBe('spawn-failed');
    if (run.kind !== 'spawn-failed') return;
    expect(run.error).toBeInstanceOf(UnsupportedError);
    expect(describeRun(run)).toMatch(/^could not start: platform: .*win32/);
  });

  it('an agent process rejects `spawned` with it and ends without a supervisor', async () => {
    pretend('win32');
    const supervisorsBefore = hostSupervisor.started;
    const proc = new AgentProcess({
      binary: 'agy',
      args: [],
      env: {},
      cwd: '/',
      onStdout: () => {},
      onStdoutEnd: () => {},
      onStderrLine: () => {},
    });
    await expect(proc.spawned).rejects.toBeInstanceOf(UnsupportedError);
    expect(await proc.exited).toEqual({ code: null, signal: null });
    expect(proc.pid).toBeUndefined();
    expect(hostSupervisor.started).toBe(supervisorsBefore);
  });

  it('writing a hook relay throws it before any file is queued', () => {
    pretend('win32');
    const queued: string[] = [];
    const queue = (relative: string): string => {
      queued.push(relative);
      return `/session/${relative}`;
    };
    expect(() =>
      queueHookCommand(queue, {
        event: 'PreToolUse',
        url: 'http://127.0.0.1:1/hook/PreToolUse',
        timeoutMs: 1000,
        relay: 'node',
      }),
    ).toThrow(UnsupportedError);
    expect(queued).toEqual([]);
  });

  it("the simulator's hook runner reports the hook as failed, naming the platform (it never throws)", async () => {
    pretend('win32');
    for (const exec of ['shell', 'split'] as const) {
      const run = await runHook(
        { command: 'echo {}', timeoutMs: 1000, source: 'test' },
        {},
        { cwd: '/', conversationId: 'c', exec },
      );
      expect(run.code).toBeNull();
      expect(run.failure).toMatch(/^cannot run echo \{\}: platform: .*win32/);
    }
  });

  it("an Agent's start rejects with it and leaves no session directory", async () => {
    const box = await sandbox();
    try {
      const agent = new Agent(await box.agentConfig());
      pretend('win32');
      const error = await agent.start().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(UnsupportedError);
      expect((error as Error).message).toContain("process.platform 'win32'");
      expect(await box.sessionDirs()).toEqual([]);
      await agent.close();
    } finally {
      await box.cleanup();
    }
  });
});
