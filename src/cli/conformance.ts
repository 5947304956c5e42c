/**
 * `agy-sdk doctor --conformance`: runs the probes (short real turns: a text reply, a built-in tool, an own tool
 * over MCP, a denied command, an interrupt, a resume, a print-mode slash command) on the user's agy, each
 * recorded as a sanitized cassette, and checks every wire fact of the catalogue on them. Prints pass / drift /
 * fail per fact; exit 1 on a fail. `--offline` runs the probes on the simulator (each probe with its scenario).
 * Without agy (and without `--offline`) it prints one line saying so and exits 10, having run and written nothing.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod/v4';
import { resolveAgyBinary } from '../connection/index.js';
import { Agent, type AgentConfig, AgyNotFoundError, type ChatResponse, policy, tool } from '../index.js';
import { settlesWithin } from '../internal/timing.js';
import { describeRun, runBounded } from '../platform/index.js';
import {
  type Cassette,
  CassetteRecorder,
  checkConformance,
  type FactResult,
  PROBES,
  type Probe,
  readCassette,
  replayCassette,
  simulatorPath,
  writeScenario,
} from '../testing/index.js';
import { EXIT_START_FAILED } from './exit-codes.js';
import { reportFailure } from './failure.js';
import { type ProbeBounds, probeBounds } from './probe-bounds.js';

/** How to run the probes. */
export interface ConformanceOptions {
  /** The agy binary (default: `AGY_PATH`, then PATH); the simulator with `offline`. */
  agyPath?: string | undefined;
  /** Run on the simulator, each probe with its own scenario. */
  offline?: boolean | undefined;
  /** Environment for agy (e.g. `AGY_SIM_VERSION` offline). */
  env?: Record<string, string> | undefined;
  /** Where the cassettes go (default: a fresh temp directory). */
  dir?: string | undefined;
  /** Replay these cassettes as agy, one per probe, instead of running agy (tests, bug reports). */
  replay?: Partial<Record<Probe, string>> | undefined;
  /** Which probes to run (default: all of them, in order; `resume` needs `text` before it). */
  probes?: readonly Probe[] | undefined;
  /** Bound on each probe's turn. Default 120 s. */
  turnTimeoutMs?: number | undefined;
  /**
   * How long agy gets between SIGTERM and SIGKILL when the print-mode probe (`agy -p /model`) passes its bound.
   * Default 2 s.
   */
  graceMs?: number | undefined;
}

/** The bound on each probe's turn unless {@link ConformanceOptions.turnTimeoutMs} says otherwise. */
const DEFAULT_PROBE_TIMEOUT_MS = 120_000;

/** What a conformance run found. */
export interface ConformanceReport {
  /** Each fact's verdict. */
  facts: FactResult[];
  /** Each probe's cassette file. */
  cassettes: Partial<Record<Probe, string>>;
  /** Probes that could not run, with why. */
  errors: Partial<Record<Probe, string>>;
}

const PROMPTS: Record<Exclude<Probe, 'slash' | 'resume'>, string> = {
  text: 'Reply with the single word PONG and nothing else.',
  'builtin-tool': 'Use your list_dir tool on the current directory, then reply with the word done.',
  'own-tool': "Call the conformance_echo tool with text 'hi', then reply with its output.",
  denied: 'Run the shell command `echo conformance` with your run_command tool, then reply done.',
  interrupt: 'Count slowly from 1 to 200, one number per line, with a short sentence for each.',
};

/** The simulator scenarios standing in for a model, offline. */
const SCENARIOS: Record<Exclude<Probe, 'slash'>, object> = {
  text: { turns: [{ actions: [{ text: 'PONG' }] }] },
  'builtin-tool': {
    turns: [
      {
        actions: [
          { tool: { name: 'list_dir', parameters: { DirectoryPath: '.' }, output: 'a' } },
          { text: 'done' },
        ],
      },
    ],
  },
  'own-tool': {
    turns: [
      {
        actions: [
          { mcpTool: { server: 'agy-sdk_tools', tool: 'conformance_echo', arguments: { text: 'hi' } } },
          { text: 'hi' },
        ],
      },
    ],
  },
  denied: {
    turns: [
      {
        actions: [
          { tool: { name: 'run_command', parameters: { CommandLine: 'echo conformance' }, output: 'x' } },
          { text: 'done' },
        ],
      },
    ],
  },
  interrupt: { turns: [{ actions: [{ text: 'one two three four five six', chunks: 6, delayMs: 1500 }] }] },
  resume: { turns: [{ actions: [{ text: 'PONG' }] }, { actions: [{ text: 'OK' }] }] },
};

const echo = tool(
  { name: 'conformance_echo', description: 'Echoes its text back.', input: z.object({ text: z.string() }) },
  ({ text }) => text,
);

/**
 * Runs the probes and checks the facts. Throws `AgyNotFoundError` before anything starts or is written when a
 * probe needs agy (neither `offline` nor replayed) and there is none.
 */
export async function runConformance(o: ConformanceOptions = {}): Promise<ConformanceReport> {
  const probes = o.probes ?? PROBES;
  // Every probe that runs agy runs the same one: found once, up front, so a missing agy is one error instead of
  // one failed probe each, and no cassette of a session that never started.
  const agyPath =
    o.offline || probes.every((p) => o.replay?.[p])
      ? undefined
      : resolveAgyBinary({ agyPath: o.agyPath, env: { ...process.env, ...o.env } });
  const dir = resolve(o.dir ?? (await mkdtemp(join(tmpdir(), 'agy-sdk-conformance-'))));
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const state = await mkdtemp(join(tmpdir(), 'agy-sdk-conformance-state-'));
  const run: ProbeRun = { o, agyPath, dir, state, conversationId: undefined };
  const cassettes: Partial<Record<Probe, string>> = {};
  const errors: Partial<Record<Probe, string>> = {};
  const runs: Partial<Record<Probe, Cassette>> = {};
  try {
    for (const probe of probes) {
      try {
        const file =
          probe === 'slash' ? await slashProbe(o, agyPath, dir, state) : await turnProbe(run, probe);
        cassettes[probe] = file;
        runs[probe] = readCassette(file);
      } catch (err) {
        errors[probe] = err instanceof Error ? err.message : String(err);
      }
    }
  } finally {
    // The simulator's state is the probes' own; the cassettes in `dir` are the caller's.
    await rm(state, { recursive: true, force: true });
  }
  return { facts: checkConformance(runs), cassettes, errors };
}

/** What the probes of one run share. */
interface ProbeRun {
  o: ConformanceOptions;
  /** The agy every probe runs; undefined when none runs one (offline, or all replayed). */
  agyPath: string | undefined;
  /** Where the cassettes are recorded. */
  dir: string;
  /** The simulator's state directory. */
  state: string;
  /** The `text` probe's conversation, which the `resume` probe resumes. */
  conversationId: string | undefined;
}

/** The agent config of one probe: a replayed cassette, the simulator (offline), or the run's agy. */
async function probeConfig(run: ProbeRun, probe: Probe): Promise<AgentConfig> {
  const { o, state } = run;
  const replay = o.replay?.[probe];
  const env: Record<string, string> = { ...o.env, AGY_SIM_STATE_DIR: state };
  if (replay) {
    // An interrupt must land mid-turn: that replay keeps the recorded gaps.
    const r = replayCassette(replay, { mode: 'loose', timing: probe === 'interrupt' ? 'real' : 'none' });
    return { ...r, env: { ...env, ...r.env } };
  }
  if (o.offline) {
    const scenario = await writeScenario(SCENARIOS[probe as Exclude<Probe, 'slash'>] as never, state);
    return { agyPath: simulatorPath(), env: { ...env, AGY_SIM_SCENARIO: scenario } };
  }
  return { agyPath: run.agyPath, ...(o.env && { env: o.env }) };
}

/** One probe that runs a turn through an `Agent`, recorded; resolves with its cassette's path. */
async function turnProbe(run: ProbeRun, probe: Probe): Promise<string> {
  const { o, conversationId } = run;
  const base = await probeConfig(run, probe);
  const agent = new Agent({
    ...base,
    record: { dir: run.dir },
    turnTimeoutMs: o.turnTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS,
    tools: [echo],
    policies: [policy.deny('run_command'), policy.allowAll()],
    ...(probe === 'resume' && conversationId !== undefined && { conversationId }),
    logger: { debug() {}, info() {}, warn() {}, error() {} },
  });
  try {
    const prompt =
      probe === 'resume' ? 'Reply with the single word OK.' : PROMPTS[probe as keyof typeof PROMPTS];
    const response = await agent.chat(prompt);
    if (probe === 'interrupt') await interruptOnceAtWork(agent, response);
    const result = await response.result();
    if (probe === 'text') run.conversationId = result.conversationId;
  } finally {
    await agent.close();
  }
  if (!agent.cassetteFile) throw new Error(`${probe}: no cassette was written`);
  return agent.cassetteFile;
}

/**
 * Interrupts once agy is visibly at work: its first step, or after 30 s. A SIGINT that lands before agy has read
 * the prompt finds it idle, and an idle agy exits on SIGINT without a `result`; a short fallback made that race
 * likely on a loaded machine.
 */
async function interruptOnceAtWork(agent: Agent, response: ChatResponse): Promise<void> {
  const first = (async () => {
    for await (const _ of response.steps()) return;
  })();
  await settlesWithin(first, 30_000);
  await agent.interrupt();
}

/** `agy -p /model --output-format stream-json`, recorded by hand (print mode runs no session of ours). */
async function slashProbe(
  o: ConformanceOptions,
  agyPath: string | undefined,
  dir: string,
  state: string,
): Promise<string> {
  const replay = o.replay?.slash;
  const binary = replay || o.offline || agyPath === undefined ? simulatorPath() : agyPath;
  const args = ['-p', '/model', '--output-format', 'stream-json'];
  const env = {
    ...process.env,
    ...o.env,
    AGY_SIM_STATE_DIR: state,
    ...(replay && { AGY_SIM_CASSETTE: replay }),
  };
  const recorder = new CassetteRecorder({ dir }, { env }, () => {});
  recorder.spawn(args);
  // Bounded like every probe: SIGTERM to agy's group at the bound, SIGKILL after the grace (some builds
  // ignore SIGTERM), so a hung print-mode agy ends the probe instead of the run.
  const run = await runBounded(binary, args, {
    env,
    timeoutMs: o.turnTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS,
    graceMs: o.graceMs,
  });
  for (const line of run.stdout.split('\n')) if (line !== '') recorder.stdout(line);
  for (const line of run.stderr.split('\n')) if (line !== '') recorder.stderr(line);
  if (run.kind === 'timed-out' || run.kind === 'aborted') {
    recorder.signal('SIGTERM');
    if (run.killed) recorder.signal('SIGKILL');
  }
  if (run.kind !== 'spawn-failed') recorder.exit(run.code, run.signal);
  await recorder.close();
  if (run.kind !== 'exited')
    throw new Error(`\`agy ${args.join(' ')}\` ${describeRun(run)} (its cassette: ${recorder.file})`);
  return recorder.file;
}

/** The report as lines for a terminal. */
export function formatReport(report: ConformanceReport): string {
  const mark = { pass: 'pass ', drift: 'DRIFT', fail: 'FAIL ', skip: 'skip ' } as const;
  const lines = report.facts.map((f) => {
    const details = f.details.length ? `\n        ${f.details.join('\n        ')}` : '';
    return `  ${mark[f.status]}  ${f.id.padEnd(22)} ${f.what}  [${f.source}]${details}`;
  });
  for (const [probe, error] of Object.entries(report.errors)) lines.push(`  ERROR  probe ${probe}: ${error}`);
  lines.push('', 'cassettes (sanitized, ready to attach to a bug report):');
  for (const [probe, file] of Object.entries(report.cassettes)) lines.push(`  ${probe.padEnd(13)} ${file}`);
  return lines.join('\n');
}

/** The command: prints the report; 1 when a fact fails or a probe could not run. */
export async function conformanceCommand(flags: {
  offline?: boolean;
  json?: boolean;
  cassettes?: string;
}): Promise<number> {
  let bounds: ProbeBounds;
  try {
    bounds = probeBounds(process.env, DEFAULT_PROBE_TIMEOUT_MS);
  } catch (error) {
    // A bad AGY_SDK_PROBE_* value: one line and the usage exit code, before anything starts.
    return reportFailure(error, process.stderr);
  }
  let report: ConformanceReport;
  try {
    report = await runConformance({
      offline: flags.offline,
      dir: flags.cassettes,
      turnTimeoutMs: bounds.timeoutMs,
      graceMs: bounds.graceMs,
    });
  } catch (error) {
    if (!(error instanceof AgyNotFoundError)) throw error;
    process.stderr.write(`${missingAgy(process.env)}\n`);
    return EXIT_START_FAILED;
  }
  process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`);
  const broken = report.facts.some((f) => f.status === 'fail') || Object.keys(report.errors).length > 0;
  return broken ? 1 : 0;
}

/**
 * The one line for a conformance run with no agy: what is missing, where it was looked for, and the two ways on
 * (the full list of paths tried is `agy-sdk doctor`'s business).
 */
function missingAgy(env: NodeJS.ProcessEnv): string {
  const where = env.AGY_PATH ? `AGY_PATH=${env.AGY_PATH} is not an executable file` : 'none on PATH';
  return (
    `agy-sdk: doctor --conformance runs real turns on agy, and there is no agy (${where}): install agy ` +
    '(https://antigravity.google) and sign in, or add --offline to run the probes on the bundled simulator'
  );
}
