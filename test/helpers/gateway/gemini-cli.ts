/**
 * Runs the real Gemini CLI 0.61.0 (devDependency `@google/gemini-cli`) headless against a Gemini-compatible
 * base URL, offline, the way docs/reference/gemini-clients.md#gemini-cli-headless-setup says it runs: a temp
 * HOME whose `~/.gemini/settings.json` selects `gemini-api-key` auth (without it `GOOGLE_GEMINI_BASE_URL`
 * makes it exit 41), `GEMINI_API_KEY`, `GOOGLE_GEMINI_BASE_URL`, `GEMINI_CLI_TRUST_WORKSPACE=true`,
 * telemetry, usage statistics and update checks off. The CLI relaunches itself as a child process, so it runs
 * in its own process group and the whole group is killed at the deadline and after exit. The environment is
 * built from scratch: no proxy, no real key leaks in.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Per-test timeout for tests that launch the real Gemini CLI: one run is 7–15 s alone, and on a loaded 2-core
 * machine running the whole suite it passed 60 s (the suite default), so these tests get four minutes.
 */
export const GEMINI_CLI_TEST_TIMEOUT_MS = 240_000;

/** The CLI's entry point in node_modules. */
export const GEMINI_CLI_ENTRY = resolve(
  import.meta.dirname,
  '../../../node_modules/@google/gemini-cli/bundle/gemini.js',
);

/** How to run the CLI. */
export interface GeminiCliOptions {
  /** `GOOGLE_GEMINI_BASE_URL`. */
  baseUrl: string;
  /** `GEMINI_API_KEY`. */
  apiKey: string;
  prompt: string;
  /** `-m`; a concrete model id skips the `auto` routing classifier call. */
  model?: string;
  /** Working directory (the workspace the CLI's tools see); a fresh temp dir when absent. */
  cwd?: string;
  /** Default `stream-json`. */
  outputFormat?: 'stream-json' | 'json';
  /** `--approval-mode`; `yolo` lets tools run without asking (default). */
  approvalMode?: 'yolo' | 'auto_edit' | 'default';
  /** Whole-run bound; the process group is killed when it passes. Default 90 s (a loaded 2-core box). */
  timeoutMs?: number;
  /** Extra environment variables. */
  env?: Record<string, string>;
  /**
   * Kills the group when it settles (a test's own deadline tied to an event, e.g. the endpoint having served the
   * request), so a slow boot on a loaded box is never mistaken for the state under test.
   */
  killWhen?: Promise<unknown>;
}

/** What one run produced. */
export interface GeminiCliRun {
  /** stdout lines that parsed as JSON objects (stream-json events, or the one json result). */
  events: Record<string, unknown>[];
  stdout: string;
  stderr: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** Whether the deadline killed it. */
  timedOut: boolean;
  /** Whether `killWhen` killed it. */
  killedOnRequest: boolean;
  /** The CLI's pid, which is also its process group id. */
  pid: number | undefined;
}

/** The settings that make 0.61.0 start headless with an API key and a custom base URL, and stay offline. */
export const OFFLINE_SETTINGS = {
  security: { auth: { selectedType: 'gemini-api-key' } },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
};

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}

/** Runs the CLI once and returns its output; never rejects on a non-zero exit (tests assert on it). */
export async function runGeminiCli(opts: GeminiCliOptions): Promise<GeminiCliRun> {
  const home = mkdtempSync(join(tmpdir(), 'gemini-cli-home-'));
  const ownCwd = opts.cwd === undefined ? mkdtempSync(join(tmpdir(), 'gemini-cli-work-')) : undefined;
  try {
    mkdirSync(join(home, '.gemini'), { recursive: true, mode: 0o700 });
    mkdirSync(join(home, 'tmp'), { mode: 0o700 });
    writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify(OFFLINE_SETTINGS), { mode: 0o600 });
    const args = [GEMINI_CLI_ENTRY, '-p', opts.prompt, '--output-format', opts.outputFormat ?? 'stream-json'];
    args.push('--approval-mode', opts.approvalMode ?? 'yolo');
    if (opts.model !== undefined) args.push('-m', opts.model);
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      // Gemini CLI writes an error report (gemini-client-error-*.json) into its temp dir on every failed turn:
      // this run's, removed with its HOME.
      TMPDIR: join(home, 'tmp'),
      GEMINI_API_KEY: opts.apiKey,
      GOOGLE_GEMINI_BASE_URL: opts.baseUrl,
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
      GEMINI_TELEMETRY_ENABLED: 'false',
      NO_COLOR: '1',
      TERM: 'dumb',
      ...opts.env,
    };
    const child = spawn(process.execPath, args, {
      cwd: opts.cwd ?? ownCwd,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid, 'SIGKILL');
    }, opts.timeoutMs ?? 90_000);
    let killedOnRequest = false;
    void opts.killWhen?.then(() => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      killedOnRequest = true;
      killGroup(child.pid, 'SIGKILL');
    });
    const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((ok) => {
      child.on('error', (err) => {
        stderr += `spawn error: ${err.message}\n`;
        ok([null, null]);
      });
      child.on('close', (code, sig) => ok([code, sig]));
    });
    clearTimeout(timer);
    // Anything the CLI left behind in its group (a relaunched child, a shell tool) goes too.
    killGroup(child.pid, 'SIGKILL');
    const events: Record<string, unknown>[] = [];
    for (const line of stdout.split('\n')) {
      const trimmed = line.trim();
      if (!trimmed.startsWith('{')) continue;
      try {
        events.push(JSON.parse(trimmed) as Record<string, unknown>);
      } catch {
        // Not an event line (pretty-printed json output is parsed below).
      }
    }
    if (events.length === 0 && (opts.outputFormat ?? 'stream-json') === 'json') {
      try {
        events.push(JSON.parse(stdout) as Record<string, unknown>);
      } catch {
        // Left for the test to report.
      }
    }
    return { events, stdout, stderr, exitCode, signal, timedOut, killedOnRequest, pid: child.pid };
  } finally {
    rmSync(home, { recursive: true, force: true });
    if (ownCwd !== undefined) rmSync(ownCwd, { recursive: true, force: true });
  }
}

/** Lines of the CLI's stderr that show a retried request (its `retryWithBackoff` logs "Attempt N failed"). */
export function retryLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => /attempt \d+ failed|retrying/i.test(line));
}
