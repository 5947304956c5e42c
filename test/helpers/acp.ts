/**
 * The ACP backend's test kit: a scripted ACP agent (`fixtures/scripted-agent.mjs`, built on the official SDK's
 * agent side) spawned through the real spawn path, a scenario file, the agent's own log of what it received,
 * and a private sandbox per test.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, type AgentConfig, type Logger } from '../../src/index.js';

/** The scripted ACP agent. */
export const SCRIPTED_AGENT = fileURLToPath(new URL('../fixtures/acp/scripted-agent.mjs', import.meta.url));

/** One test's sandbox: scenario, log, workspace, data dir. */
export interface AcpSandbox {
  dir: string;
  workspace: string;
  scenarioFile: string;
  logFile: string;
  /** Every event the scripted agent logged, in order. */
  events(): Array<Record<string, unknown> & { event: string }>;
  /** An Agent on the scripted ACP agent with this scenario. */
  agent(scenario: Record<string, unknown>, config?: AgentConfig): Agent;
  cleanup(): void;
}

/** A logger that keeps every message (tests assert on warnings). */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const keep =
    (level: string) =>
    (message: string): void => {
      lines.push(`${level}: ${message}`);
    };
  return { lines, debug: keep('debug'), info: keep('info'), warn: keep('warn'), error: keep('error') };
}

export function acpSandbox(): AcpSandbox {
  const dir = mkdtempSync(join(tmpdir(), 'acp-test-'));
  const workspace = join(dir, 'ws');
  mkdirSync(workspace);
  const scenarioFile = join(dir, 'scenario.json');
  const logFile = join(dir, 'agent.log');
  return {
    dir,
    workspace,
    scenarioFile,
    logFile,
    events() {
      let text = '';
      try {
        text = readFileSync(logFile, 'utf8');
      } catch {
        return [];
      }
      return text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    },
    agent(scenario, config = {}) {
      writeFileSync(scenarioFile, JSON.stringify(scenario));
      const { backend, ...rest } = config;
      return new Agent({
        backend: {
          kind: 'acp',
          command: process.execPath,
          args: [SCRIPTED_AGENT],
          env: { ACP_SCENARIO: scenarioFile, ACP_LOG: logFile },
          ...(backend?.kind === 'acp' ? backend : {}),
        },
        workspaces: [workspace],
        dataDir: join(dir, 'data'),
        ...rest,
        logger: rest.logger ?? memoryLogger(),
      });
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Whether a process is alive (signal 0). A zombie (killed, not yet reaped by its new parent) counts as dead: it
 * runs nothing and holds nothing but its pid.
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    // No /proc at all (macOS): trust signal 0. With /proc, the process went in between.
    return !existsSync('/proc/self');
  }
}

/** Collects an async iterable. */
export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}
