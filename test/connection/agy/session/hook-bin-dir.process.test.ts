// Hook commands under agy 1.3.3's split on spaces (docs/reference/hooks.md#hook-commands-split-on-spaces): a
// session whose data directory has a space (macOS's `~/Library/Application Support`) still gets every hook
// event answered, on the simulator's 1.3.3 profile (the command split at whitespace and exec'd without a shell)
// and on the default profile (through `/bin/sh -c`). The hook scripts then live in a private directory of their
// own, removed on close and swept once its process is gone.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hookBinRoots } from '../../../../src/connection/agy/session/hook-bin-dir.js';
import { SessionRuntime } from '../../../../src/connection/agy/session/session-runtime.js';
import { isPlainWord } from '../../../../src/platform/posix-shell-quote.js';
import { policy } from '../../../../src/policy/index.js';
import { AGY_HOOK_EVENTS, type AgyHookRegistration } from '../../../../src/protocol/hook-wire.js';
import { useSandboxAgents } from '../../../helpers/agents.js';
import { recordingLogger } from '../../../helpers/runtime-files.js';

const sb = useSandboxAgents();

/** The commands of a session's hooks.json, by event. */
async function hookCommands(dataDir: string): Promise<Record<string, string>> {
  const [id] = await readdir(join(dataDir, 'sessions'));
  const file = JSON.parse(
    readFileSync(join(dataDir, 'sessions', id!, '.agents', 'hooks.json'), 'utf8'),
  ) as Record<string, Record<string, unknown>>;
  const out: Record<string, string> = {};
  for (const [event, entries] of Object.entries(file['agy-sdk']!)) {
    if (!Array.isArray(entries)) continue;
    const first = entries[0] as { command?: string; hooks?: Array<{ command: string }> };
    out[event] = first.command ?? first.hooks![0]!.command;
  }
  return out;
}

/** A pid that belonged to a process that has exited. */
function deadPid(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', () => resolve(child.pid!));
  });
}

describe('hook commands from a data directory with a space', () => {
  for (const version of ['1.3.3', undefined]) {
    const profile = version ?? 'the default profile';
    it(`every hook event fires on ${profile} (${version ? 'split, no shell' : 'through a shell'})`, async () => {
      const dataDir = join(sb.box.root, 'Library', 'Application Support', 'my app');
      const seen: string[] = [];
      const agyHooks: AgyHookRegistration[] = AGY_HOOK_EVENTS.map((event) => ({
        event,
        handler: () => {
          seen.push(event);
          return undefined;
        },
      }));
      const agent = await sb.agentWith(
        {
          ...(version !== undefined && { version }),
          turns: [
            {
              actions: [
                { tool: { name: 'run_command', parameters: { CommandLine: 'ls' }, output: 'a.txt' } },
                { text: 'listed' },
              ],
            },
          ],
        },
        { dataDir, agyHooks, policies: [policy.allowAll()] },
      );
      const r = await agent.chat('list');
      const result = await r.result();
      expect(result.status).toBe('success');
      expect(result.toolCalls).toEqual([expect.objectContaining({ name: 'run_command', state: 'DONE' })]);
      expect(new Set(seen)).toEqual(new Set(AGY_HOOK_EVENTS));

      // Each command is one plain word, outside the data directory, in a private directory of its own.
      const commands = Object.values(await hookCommands(dataDir));
      expect(commands).toHaveLength(AGY_HOOK_EVENTS.length);
      for (const command of commands) {
        expect(isPlainWord(command)).toBe(true);
        expect(command.startsWith(dataDir)).toBe(false);
      }
      const binDir = dirname(dirname(commands[0]!));
      expect(statSync(binDir).mode & 0o777).toBe(0o700);
      await agent.close();
      expect(existsSync(binDir)).toBe(false);
    });
  }

  it("'next-step' steering reaches the model through the gated PreInvocation command on 1.3.3", async () => {
    const dataDir = join(sb.box.root, 'Application Support');
    const agent = await sb.agentWith(
      {
        version: '1.3.3',
        turns: [
          {
            actions: [
              { tool: { name: 'view_file', parameters: { AbsolutePath: '/a' }, output: 'x' } },
              { sleep: 300 },
              { text: 'after steer' },
            ],
          },
        ],
      },
      { dataDir },
    );
    const r = await agent.chat('go');
    for await (const c of r.toolCalls()) if (c) break;
    await agent.steer('use tabs, not spaces', { when: 'next-step' });
    const steps = [];
    for await (const s of r.steps()) steps.push(s);
    expect(
      steps.filter((s) => s.type === 'user_input' && JSON.stringify(s.raw).includes('use tabs, not spaces')),
    ).toHaveLength(1);
    expect((await r.result()).status).toBe('success');
  });

  it('a plain data directory keeps the scripts in the session directory (no second directory)', async () => {
    const runtime = await SessionRuntime.create({
      dataDir: join(sb.box.root, 'plain'),
      env: { PATH: process.env.PATH, HOME: sb.box.root },
      logger: recordingLogger(),
      hooks: [{ event: 'Stop', handler: () => undefined }],
    });
    try {
      expect(runtime.hookBinDir).toBeUndefined();
      const file = JSON.parse(readFileSync(runtime.hooksFile!, 'utf8')) as {
        'agy-sdk': { Stop: Array<{ command: string }> };
      };
      expect(file['agy-sdk'].Stop[0]!.command).toBe(join(runtime.dir.path, 'hooks', 'Stop.sh'));
    } finally {
      await runtime.close();
    }
  });

  it('a session that fails after its script directory was made leaves neither directory behind', async () => {
    const home = join(sb.box.root, 'user-home');
    // The user's hooks.json is a directory: building the shadow HOME (after the hooks) fails with a ConfigError.
    mkdirSync(join(home, '.gemini', 'config', 'hooks.json'), { recursive: true });
    const dataDir = join(sb.box.root, 'with space');
    const root = join(hookBinRoots()[0]!, 'sessions');
    const mine = async () =>
      (await readdir(root).catch(() => [] as string[])).filter((d) => {
        try {
          return JSON.parse(readFileSync(join(root, d, 'owner.json'), 'utf8')).pid === process.pid;
        } catch {
          return false;
        }
      });
    const before = await mine();
    await expect(
      SessionRuntime.create({
        dataDir,
        isolation: 'shadow-home',
        env: { PATH: process.env.PATH, HOME: home },
        logger: recordingLogger(),
        hooks: [{ event: 'Stop', handler: () => undefined }],
      }),
    ).rejects.toThrow(/hooks\.json is not a regular file/);
    expect(await readdir(join(dataDir, 'sessions'))).toEqual([]);
    expect(await mine()).toEqual(before);
  });

  it("a crashed session's script directory is swept at a later start", async () => {
    const make = () =>
      SessionRuntime.create({
        dataDir: join(sb.box.root, 'with space'),
        env: { PATH: process.env.PATH, HOME: sb.box.root },
        logger: recordingLogger(),
        hooks: [{ event: 'Stop', handler: () => undefined }],
      });
    const first = await make();
    const live = first.hookBinDir!;
    expect(dirname(dirname(live.path))).toBe(hookBinRoots()[0]);
    // A directory left by a host that died: its owner file names a pid that is gone.
    const stale = join(dirname(live.path), `stale-${live.id}`);
    mkdirSync(join(stale, 'hooks'), { recursive: true, mode: 0o700 });
    const owner = JSON.parse(readFileSync(join(live.path, 'owner.json'), 'utf8')) as { pid: number };
    writeFileSync(join(stale, 'owner.json'), JSON.stringify({ ...owner, pid: await deadPid() }));
    await first.close();
    expect(existsSync(live.path)).toBe(false);
    expect(existsSync(stale)).toBe(true);
    const second = await make();
    try {
      expect(existsSync(stale)).toBe(false);
      expect(existsSync(second.hookBinDir!.path)).toBe(true);
    } finally {
      await second.close();
    }
    expect(existsSync(second.hookBinDir!.path)).toBe(false);
  });
});
