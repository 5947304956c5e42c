/**
 * Spawns the built agy simulator (`dist/testing/simulator/main.js`) for integration tests, collects its
 * stdout lines and stderr, and lets tests wait for lines or exit by events, never by sleeping. A `SimHarness`
 * owns the processes and temp dirs of one test and removes them in `cleanup()`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Scenario } from '../../src/testing/simulator/scenario.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SIM_SRC = join(ROOT, 'src/testing/simulator');
/** The compiled simulator the tests run. */
export const SIM_MAIN = join(ROOT, 'dist/testing/simulator/main.js');

/** How long a wait may take before it fails with the output collected so far (a guard, not a sleep). */
const WAIT_MS = 15_000;

/**
 * Makes sure `dist/testing/simulator/main.js` is at least as new as the simulator sources; if not, compiles
 * just the simulator with the project's build settings. Each file is written to a temp name and renamed, so a
 * concurrent build or a running simulator never sees a half-written file.
 */
export async function ensureSimulatorBuilt(): Promise<void> {
  const newestSource = Math.max(...readdirSync(SIM_SRC).map((name) => statSync(join(SIM_SRC, name)).mtimeMs));
  if (existsSync(SIM_MAIN) && statSync(SIM_MAIN).mtimeMs >= newestSource) return;
  const ts = (await import('typescript')).default;
  const parsed = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.build.json'), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  if (parsed === undefined) throw new Error('cannot read tsconfig.build.json');
  const program = ts.createProgram({
    rootNames: [join(SIM_SRC, 'main.ts'), join(SIM_SRC, 'path.ts')],
    options: parsed.options,
  });
  program.emit(undefined, (fileName, text) => {
    mkdirSync(dirname(fileName), { recursive: true });
    const temp = `${fileName}.${process.pid}.tmp`;
    writeFileSync(temp, text);
    renameSync(temp, fileName);
  });
  chmodSync(SIM_MAIN, 0o755);
}

/** A parsed stdout line (`raw` keeps the text; `json` is undefined when the line is not JSON). */
export interface SimLine {
  raw: string;
  json: Record<string, unknown> | undefined;
}

/** How the process ended. */
export interface SimExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running simulator. */
export class SimProcess {
  /** Complete stdout lines, in order. */
  readonly lines: SimLine[] = [];
  /** Everything written to stderr so far. */
  stderr = '';
  /** Resolves when the process has exited and its output has been read to the end. */
  readonly exited: Promise<SimExit>;
  private exit: SimExit | undefined;
  private pending: Buffer[] = [];
  private readonly waiters = new Set<() => void>();

  constructor(readonly child: ChildProcess) {
    child.stdout?.on('data', (chunk: Buffer) => this.onStdout(chunk));
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString('utf8');
      this.notify();
    });
    // stdin may be closed by the simulator's exit while a test still writes: not a test failure.
    child.stdin?.on('error', () => {});
    this.exited = new Promise((resolve) => {
      child.on('close', (code, signal) => {
        this.exit = { code, signal };
        this.notify();
        resolve(this.exit);
      });
    });
  }

  private onStdout(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      this.pending.push(chunk.subarray(start, nl));
      const raw = Buffer.concat(this.pending).toString('utf8');
      this.pending = [];
      let json: Record<string, unknown> | undefined;
      try {
        json = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        json = undefined;
      }
      this.lines.push({ raw, json });
      start = nl + 1;
    }
    if (start < chunk.length) this.pending.push(chunk.subarray(start));
    this.notify();
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** The JSON objects written so far. */
  get events(): Record<string, unknown>[] {
    return this.lines.flatMap((line) => (line.json === undefined ? [] : [line.json]));
  }

  /** The `result` payloads written so far. */
  get results(): Record<string, unknown>[] {
    return this.events.filter((e) => e.event === 'result').map((e) => e.result as Record<string, unknown>);
  }

  /** The `step_update` payloads written so far. */
  get steps(): Record<string, unknown>[] {
    return this.events
      .filter((e) => e.event === 'step_update')
      .map((e) => e.step_update as Record<string, unknown>);
  }

  /** Writes one stdin line (an object is JSON-encoded). */
  send(message: unknown): void {
    this.child.stdin?.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  }

  /** Sends a user message with a plain-string prompt. */
  prompt(text: string): void {
    this.send({ event: 'user', message: { role: 'user', content: text } });
  }

  /** Closes stdin (EOF). */
  endInput(): void {
    this.child.stdin?.end();
  }

  /** Resolves once `check` returns a value other than `undefined`; rejects if the process exits first. */
  waitUntil<T>(label: string, check: () => T | undefined): Promise<T> {
    return new Promise((resolve, reject) => {
      const attempt = (): void => {
        const value = check();
        if (value !== undefined) {
          finish(() => resolve(value));
        } else if (this.exit !== undefined) {
          finish(() =>
            reject(
              new Error(`simulator exited (${JSON.stringify(this.exit)}) before ${label}${this.dump()}`),
            ),
          );
        }
      };
      const timer = setTimeout(
        () => finish(() => reject(new Error(`timed out waiting for ${label}${this.dump()}`))),
        WAIT_MS,
      );
      const finish = (settle: () => void): void => {
        clearTimeout(timer);
        this.waiters.delete(attempt);
        settle();
      };
      this.waiters.add(attempt);
      attempt();
    });
  }

  /** Waits for the `n`-th (1-based) event matching `predicate`. */
  waitForEvent(
    label: string,
    predicate: (event: Record<string, unknown>) => boolean,
    n = 1,
  ): Promise<Record<string, unknown>> {
    return this.waitUntil(label, () => this.events.filter(predicate)[n - 1]);
  }

  /** Waits for the `n`-th `result` payload. */
  waitForResult(n = 1): Promise<Record<string, unknown>> {
    return this.waitUntil(`result #${n}`, () => this.results[n - 1]);
  }

  /** Waits until stderr contains `text`. */
  waitForStderr(text: string): Promise<void> {
    return this.waitUntil(`stderr ${JSON.stringify(text)}`, () =>
      this.stderr.includes(text) ? true : undefined,
    ).then(() => {});
  }

  private dump(): string {
    const tail = this.lines.slice(-10).map((line) => line.raw.slice(0, 300));
    return `\n--- stdout (last lines) ---\n${tail.join('\n')}\n--- stderr ---\n${this.stderr}`;
  }
}

/** Options for one simulator launch. */
export interface StartOptions {
  /** Extra arguments after the stream-json flags (or instead of them, with `raw`). */
  args?: string[];
  /** Pass `args` alone, without the default `--input-format/--output-format stream-json`. */
  raw?: boolean;
  scenario?: Scenario;
  env?: Record<string, string>;
  cwd?: string;
}

/** Owns one test's simulators and temp dirs; call `cleanup()` in `afterEach`. */
export class SimHarness {
  private readonly processes = new Set<SimProcess>();
  private readonly dirs: string[] = [];
  private stateDirValue: string | undefined;

  /** A fresh temp dir, removed by `cleanup()`. */
  async tempDir(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'agy-sim-test-'));
    this.dirs.push(dir);
    return dir;
  }

  /** The state directory shared by every launch of this test (so `--conversation` can resume). */
  async stateDir(): Promise<string> {
    this.stateDirValue ??= await this.tempDir();
    return this.stateDirValue;
  }

  /** Starts the simulator. */
  async start(options: StartOptions = {}): Promise<SimProcess> {
    const env: Record<string, string | undefined> = {
      ...process.env,
      AGY_SIM_STATE_DIR: await this.stateDir(),
    };
    delete env.AGY_SIM_SCENARIO;
    if (options.scenario !== undefined) {
      const file = join(await this.tempDir(), 'scenario.json');
      writeFileSync(file, JSON.stringify(options.scenario), { mode: 0o600 });
      env.AGY_SIM_SCENARIO = file;
    }
    Object.assign(env, options.env);
    const args = options.raw
      ? (options.args ?? [])
      : ['--input-format', 'stream-json', '--output-format', 'stream-json', ...(options.args ?? [])];
    const child = spawn(process.execPath, [SIM_MAIN, ...args], {
      env,
      cwd: options.cwd ?? ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const sim = new SimProcess(child);
    this.processes.add(sim);
    return sim;
  }

  /** Kills what is still running, waits for it, and removes the temp dirs. */
  async cleanup(): Promise<void> {
    await Promise.all(
      [...this.processes].map(async (sim) => {
        if (sim.child.exitCode === null && sim.child.signalCode === null) sim.child.kill('SIGKILL');
        await sim.exited;
      }),
    );
    this.processes.clear();
    await Promise.all(this.dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
    this.stateDirValue = undefined;
  }
}
