/**
 * A private temp tree per test: a workspace, the SDK's data dir, the simulator's state dir, and scenario
 * files. `agentConfig()` points an Agent at the real simulator executable through the real spawn path.
 */

import { mkdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { AgentConfig } from '../../src/agent/config.js';
import { simulatorPath, writeScenario } from '../../src/testing/simulator/path.js';
import type { Scenario } from '../../src/testing/simulator/scenario.js';

export interface Sandbox {
  root: string;
  workspace: string;
  dataDir: string;
  stateDir: string;
  /** An AgentConfig running the simulator with `scenario` (if any) and private dirs. */
  agentConfig(scenario?: Scenario, extra?: AgentConfig): Promise<AgentConfig>;
  /** Session directories currently present under the data dir. */
  sessionDirs(): Promise<string[]>;
  cleanup(): Promise<void>;
}

export async function sandbox(): Promise<Sandbox> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'agy-sdk-test-')));
  const workspace = join(root, 'workspace');
  const dataDir = join(root, 'data');
  const stateDir = join(root, 'sim-state');
  const home = join(root, 'user-home');
  mkdirSync(workspace);
  mkdirSync(home);
  return {
    root,
    workspace,
    dataDir,
    stateDir,
    async agentConfig(scenario, extra = {}) {
      // A private, empty HOME: the simulator reads ~/.gemini config as agy does, and the developer's own must
      // not leak into tests.
      const env: Record<string, string | undefined> = {
        AGY_SIM_STATE_DIR: stateDir,
        HOME: home,
        ...extra.env,
      };
      if (scenario) env.AGY_SIM_SCENARIO = await writeScenario(scenario, root);
      // Explicit workspaces confine the file tools; scenarios here use paths like /a freely, so the sandbox opts
      // out unless a test asks for it (allowOutsideWorkspaces: false, test/policy/workspace.confinement.process.test.ts).
      return {
        agyPath: simulatorPath(),
        workspaces: [workspace],
        dataDir,
        allowOutsideWorkspaces: true,
        ...extra,
        env,
      };
    },
    async sessionDirs() {
      try {
        return await readdir(join(dataDir, 'sessions'));
      } catch {
        return [];
      }
    },
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

/** True while a process exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits (bounded) until none of `pids` exists; returns the survivors. */
export async function waitGone(pids: number[], timeoutMs = 30_000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = pids.filter(alive).filter((pid) => !isZombie(pid));
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 50));
  }
}

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

/** A fresh sandbox for each test, and cleanups (last registered first) run before it is removed. */
export interface SandboxPerTest {
  /** The current test's sandbox. */
  readonly box: Sandbox;
  /** Runs `cleanup` after the current test, before the sandbox is removed. */
  defer(cleanup: () => Promise<unknown> | unknown): void;
}

/** Registers the beforeEach/afterEach pair that gives every test of the file its own {@link Sandbox}. */
export function useSandbox(): SandboxPerTest {
  let current: Sandbox | undefined;
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  beforeEach(async () => {
    current = await sandbox();
  });
  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()!();
    await current?.cleanup();
    current = undefined;
  });
  return {
    get box(): Sandbox {
      if (!current) throw new Error('no sandbox outside a test');
      return current;
    },
    defer(cleanup) {
      cleanups.push(cleanup);
    },
  };
}
