/**
 * `agy-sdk doctor`: checks what a first run needs and says how to fix each problem. Every check reads only
 * (the data-dir check creates and removes one probe file); the user's `~/.gemini` is never modified.
 * `--offline` checks the simulator instead of agy; `--json` prints the same checks for bug reports.
 */
import { accessSync, constants, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { newerThanTested, newestTestedLine } from '../connection/agy/version-policy.js';
import { resolveAgyBinary } from '../connection/index.js';
import { AgyNotFoundError, ConfigError } from '../index.js';
import { atLeastVersion, type VersionParts, versionParts } from '../internal/version.js';
import { describeRun, runBounded } from '../platform/index.js';
import { simulatorPath } from '../testing/index.js';
import type { DoctorCheck } from './doctor-check.js';
import { EXIT_DOCTOR_FAILED } from './exit-codes.js';
import { reportFailure } from './failure.js';
import { PROBE_TIMEOUT_VAR, probeBounds } from './probe-bounds.js';
import { renderTable } from './render/table.js';

export type { CheckStatus, DoctorCheck } from './doctor-check.js';

/** The first agy build with the stream-json protocol, per the captures (agy-real/jdiazromeral-agy-plugin-cc). */
export const MIN_STREAM_JSON_VERSION = '1.1.8';
/** How long each probe of agy (`--version`, `models`, `-p /hooks`) may take, unless `AGY_SDK_PROBE_TIMEOUT_MS` says. */
const PROBE_TIMEOUT_MS = 15_000;

/** `doctor`'s flags. */
export interface DoctorFlags {
  /** `--offline`: check the simulator instead of agy. */
  offline?: boolean;
  /** `--json`. */
  json?: boolean;
}

/** Runs every check; resolves to the exit code (0 unless a check failed). */
export async function doctorCommand(
  flags: DoctorFlags,
  out: NodeJS.WritableStream = process.stdout,
): Promise<number> {
  let checks: DoctorCheck[];
  try {
    checks = await runChecks(flags, process.env);
  } catch (error) {
    // A bad AGY_SDK_PROBE_* value: one line and the usage exit code, not a stack.
    if (error instanceof ConfigError) return reportFailure(error, process.stderr);
    throw error;
  }
  const ok = checks.every((c) => c.status !== 'fail');
  if (flags.json) out.write(`${JSON.stringify({ ok, offline: flags.offline === true, checks }, null, 2)}\n`);
  else out.write(renderTable(checks));
  return ok ? 0 : EXIT_DOCTOR_FAILED;
}

/** Every check, in order. */
export async function runChecks(flags: DoctorFlags, env: NodeJS.ProcessEnv): Promise<DoctorCheck[]> {
  const home = env.HOME || homedir();
  const checks: DoctorCheck[] = [];
  const binary = checkBinary(flags, env);
  checks.push(binary.check);
  const probed = binary.path ? await checkVersion(binary.path, env) : undefined;
  const version = probed?.check ?? skipped('version', 'agy version');
  checks.push(version);
  // An agy that hung on `--version` would hang on `models` too: the sign-in state files decide then.
  const answers = probed?.hung ? undefined : binary.path;
  checks.push(flags.offline ? simulatorAuth() : await checkAuth(answers, home, env));
  checks.push(...checkSettings(home, process.cwd()));
  checks.push(
    binary.path && (version.status === 'ok' || version.status === 'warn')
      ? await checkHookPlaces(binary.path, env, home)
      : skipped('hooks', 'hooks and MCP config'),
  );
  checks.push(await checkDataDir(home));
  checks.push(checkCurl(env));
  return checks;
}

function skipped(id: string, title: string): DoctorCheck {
  return { id, title, status: 'skip', detail: 'needs a working agy binary' };
}

function checkBinary(flags: DoctorFlags, env: NodeJS.ProcessEnv): { check: DoctorCheck; path?: string } {
  const title = flags.offline ? 'agy binary (simulator)' : 'agy binary';
  try {
    const path = resolveAgyBinary({ agyPath: flags.offline ? simulatorPath() : undefined, env });
    return { check: { id: 'binary', title, status: 'ok', detail: path }, path };
  } catch (error) {
    if (!(error instanceof AgyNotFoundError)) throw error;
    return {
      check: {
        id: 'binary',
        title,
        status: 'fail',
        detail: `not found; tried: ${error.tried.join(', ') || '(PATH is empty)'}`,
        fix: env.AGY_PATH
          ? `AGY_PATH=${env.AGY_PATH} is not an executable file: fix or unset it`
          : 'install agy (https://antigravity.google) and put it on PATH, or set AGY_PATH; `--offline` uses the simulator',
      },
    };
  }
}

/** `1.2.17` → [1, 2, 17]; null when there is no version in the text. */
export function parseVersion(text: string): VersionParts | null {
  return versionParts(text, 'anywhere');
}

interface Probe {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Why it gave no answer of its own: it timed out (and was stopped), was killed or could not be started. */
  error?: string;
  /** It was still running at its bound and was stopped. */
  timedOut: boolean;
}

/** One probe of agy, bounded: at its timeout agy's group gets SIGTERM, then SIGKILL (an agy may ignore SIGTERM). */
async function probe(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<Probe> {
  // A Node script (the simulator) runs on this Node, so doctor --offline works whatever PATH holds.
  const [command, argv] = /\.[cm]?js$/.test(file) ? [process.execPath, [file, ...args]] : [file, args];
  const run = await runBounded(command, argv, { env, ...probeBounds(env, PROBE_TIMEOUT_MS) });
  const code = run.kind === 'exited' ? run.code : null;
  const error = run.kind === 'exited' ? (run.code === null ? describeRun(run) : undefined) : describeRun(run);
  return {
    code,
    stdout: run.stdout,
    stderr: run.stderr,
    timedOut: run.kind === 'timed-out',
    ...(error !== undefined && { error }),
  };
}

/** The version check; `hung` when agy did not answer within its bound (and was stopped). */
async function checkVersion(
  path: string,
  env: NodeJS.ProcessEnv,
): Promise<{ check: DoctorCheck; hung: boolean }> {
  const run = await probe(path, ['--version'], env);
  return { check: versionCheck(run), hung: run.timedOut };
}

function versionCheck(run: Probe): DoctorCheck {
  const title = 'agy version';
  const version = parseVersion(run.stdout) ?? parseVersion(run.stderr);
  if (run.timedOut)
    return {
      id: 'version',
      title,
      status: 'fail',
      detail: `\`agy --version\` ${run.error}`,
      fix: `agy hangs: run \`agy --version\` by hand; reinstall agy if it does not answer (${PROBE_TIMEOUT_VAR} sets the bound)`,
    };
  if (run.code !== 0 || !version) {
    const said = (run.error ?? run.stderr.trim()) || run.stdout.trim() || `exit ${run.code}`;
    return {
      id: 'version',
      title,
      status: 'fail',
      detail: `\`agy --version\` failed: ${said.split('\n')[0]}`,
      fix: 'reinstall agy; the binary does not answer --version',
    };
  }
  const v = version.join('.');
  const min = parseVersion(MIN_STREAM_JSON_VERSION) as VersionParts;
  if (!atLeastVersion(version, min))
    return {
      id: 'version',
      title,
      status: 'fail',
      detail: `${v}: older than ${MIN_STREAM_JSON_VERSION}, the first build with stream-json`,
      fix: 'update agy (agy update, or reinstall) to 1.1.8 or later',
    };
  if (newerThanTested(v)) {
    // Not a failure: agy updates itself, and a newer build usually still speaks stream-json. Say what was
    // checked and what was not (docs/reference/versions.md#what-a-newer-build-gets).
    const newest = newestTestedLine();
    return {
      id: 'version',
      title,
      status: 'warn',
      detail:
        `${v}: newer than tested (newest tested line ${newest.line}, as ${newest.tested}); checked: it answers ` +
        `\`--version\` and is at least ${MIN_STREAM_JSON_VERSION} (stream-json); not checked: its wire, flags and ` +
        'hook answers, which the SDK treats as those of the newest tested line',
      fix: 'nothing to do to use it; unknown events and fields are logged as drift ("writes a field this SDK does not know")',
    };
  }
  return {
    id: 'version',
    title,
    status: 'ok',
    detail: `${v} (stream-json since ${MIN_STREAM_JSON_VERSION})`,
  };
}

function simulatorAuth(): DoctorCheck {
  return { id: 'auth', title: 'sign-in', status: 'ok', detail: 'the simulator needs no sign-in' };
}

function readJson(path: string): { value?: unknown; error?: string } {
  try {
    return { value: JSON.parse(readFileSync(path, 'utf8')) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** What agy says when it is signed out (`agy models`: "Please sign in"; a turn: "authentication required …"). */
const SIGNED_OUT = /sign in|log in|authenticat/i;

/**
 * `agy models`: a signed-in agy lists the models its login offers and a signed-out one fails saying so
 * (docs/reference/process.md#sign-in-probe). Undefined when the answer says neither (an agy without the
 * subcommand, a timeout): the state-file check decides then.
 */
async function modelsAuth(path: string, env: NodeJS.ProcessEnv): Promise<DoctorCheck | undefined> {
  const title = 'sign-in';
  const run = await probe(path, ['models'], { ...env, AGY_CLI_DISABLE_AUTO_UPDATE: '1' });
  const lines = run.stdout.split('\n').filter((line) => line.trim() !== '');
  if (run.code === 0 && lines.length > 0)
    return { id: 'auth', title, status: 'ok', detail: `\`agy models\` lists ${lines.length} models` };
  const said = `${run.stderr}\n${run.stdout}`.trim();
  if (run.code !== 0 && run.error === undefined && SIGNED_OUT.test(said))
    return {
      id: 'auth',
      title,
      status: 'fail',
      detail: `\`agy models\`: ${said
        .split('\n')
        .find((line) => SIGNED_OUT.test(line))
        ?.trim()}`,
      fix: 'run `agy` once and sign in, or use API-key mode: {"modelProvider":"gemini"} in settings.json plus GEMINI_API_KEY',
    };
  return undefined;
}

async function checkAuth(
  path: string | undefined,
  home: string,
  env: NodeJS.ProcessEnv,
): Promise<DoctorCheck> {
  const title = 'sign-in';
  const cliDir = join(home, '.gemini', 'antigravity-cli');
  const settingsPath = join(cliDir, 'settings.json');
  const settings = existsSync(settingsPath) ? readJson(settingsPath).value : undefined;
  const provider =
    typeof settings === 'object' && settings !== null
      ? (settings as Record<string, unknown>).modelProvider
      : undefined;
  if (provider === 'gemini') {
    if (env.GEMINI_API_KEY)
      return {
        id: 'auth',
        title,
        status: 'ok',
        detail: 'API-key mode (modelProvider "gemini", GEMINI_API_KEY set)',
      };
    return {
      id: 'auth',
      title,
      status: 'fail',
      detail: `API-key mode is configured in ${settingsPath} but GEMINI_API_KEY is not set`,
      fix: 'export GEMINI_API_KEY=… (or remove modelProvider to use your Google sign-in)',
    };
  }
  if (env.AGY_ADC_AUTH)
    return { id: 'auth', title, status: 'ok', detail: 'Application Default Credentials (AGY_ADC_AUTH)' };
  const answer = path === undefined ? undefined : await modelsAuth(path, env);
  if (answer !== undefined) return answer;
  // agy keeps its sign-in state beside settings.json (or in the OS keyring); its presence is the best offline sign.
  let entries: string[] = [];
  try {
    if (statSync(cliDir).isDirectory())
      entries = readdirSync(cliDir).filter((e) => e !== 'settings.json' && e !== 'skills');
  } catch {
    entries = [];
  }
  if (entries.length > 0)
    return {
      id: 'auth',
      title,
      status: 'ok',
      detail: `sign-in state found in ${cliDir} (a sign-in can still expire)`,
    };
  return {
    id: 'auth',
    title,
    status: 'fail',
    detail: `no sign-in state in ${cliDir} and no API-key mode`,
    fix: 'run `agy` once and sign in, or use API-key mode: {"modelProvider":"gemini"} in settings.json plus GEMINI_API_KEY',
  };
}

function checkSettings(home: string, cwd: string): DoctorCheck[] {
  const files = [
    join(home, '.gemini', 'antigravity-cli', 'settings.json'),
    join(home, '.gemini', 'config', 'hooks.json'),
    join(home, '.gemini', 'config', 'mcp_config.json'),
    join(cwd, '.agents', 'hooks.json'),
    join(cwd, '.agents', 'mcp_config.json'),
  ];
  const present = files.filter((f) => existsSync(f));
  const broken = present
    .map((f) => ({ f, ...readJson(f) }))
    .filter(
      (r) =>
        r.error !== undefined || typeof r.value !== 'object' || r.value === null || Array.isArray(r.value),
    );
  if (broken.length === 0)
    return [
      {
        id: 'settings',
        title: 'settings files parse',
        status: 'ok',
        detail: present.length ? present.join(', ') : 'none present (defaults apply)',
      },
    ];
  return broken.map((b) => ({
    id: 'settings',
    title: 'settings files parse',
    status: 'fail' as const,
    detail: `${b.f}: ${b.error ?? 'not a JSON object'}`,
    fix: `fix the JSON in ${b.f} (agy ignores or rejects a file it cannot parse)`,
  }));
}

async function checkHookPlaces(path: string, env: NodeJS.ProcessEnv, home: string): Promise<DoctorCheck> {
  const title = 'hooks and MCP config';
  const documented = [
    join(home, '.gemini', 'config', 'hooks.json'),
    '.agents/hooks.json',
    join(home, '.gemini', 'config', 'mcp_config.json'),
    '.agents/mcp_config.json',
  ].join(', ');
  const run = await probe(path, ['-p', '/hooks', '--output-format', 'json'], env);
  const answer = commandAnswer(run.stdout);
  if (answer !== undefined)
    return { id: 'hooks', title, status: 'ok', detail: `agy -p /hooks: ${oneLine(JSON.stringify(answer))}` };
  if (run.timedOut)
    return {
      id: 'hooks',
      title,
      status: 'warn',
      detail: `\`agy -p /hooks\` ${run.error}; documented places: ${documented}`,
      fix: `agy hangs on a print-mode command: run \`agy -p /hooks\` by hand (${PROBE_TIMEOUT_VAR} sets the bound)`,
    };
  return {
    id: 'hooks',
    title,
    status: 'ok',
    detail: `this agy has no /hooks command; documented places: ${documented}`,
  };
}

/** The payload of a `/hooks` answer in agy's JSON output, if it gave one (`command_result`'s key is `command`). */
function commandAnswer(stdout: string): unknown {
  for (const line of stdout.split('\n')) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    const v = value as Record<string, unknown>;
    const command = (v.command ?? (v.result as Record<string, unknown> | undefined)?.command) as
      | { name?: unknown; data?: unknown }
      | undefined;
    if (command && typeof command === 'object' && command.name === 'hooks') return command.data ?? command;
  }
  return undefined;
}

function oneLine(text: string, max = 160): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

async function checkDataDir(home: string): Promise<DoctorCheck> {
  const title = 'data dir writable';
  const dir = join(home, '.gemini', 'antigravity-cli');
  // agy creates the dir on first run; then its nearest existing parent must be writable.
  let target = dir;
  while (!existsSync(target) && target !== home && target.length > 1) target = join(target, '..');
  try {
    if (!statSync(target).isDirectory()) throw new Error(`${target} is not a directory`);
    accessSync(target, constants.W_OK);
    // access() says yes to root everywhere; a real create proves it.
    const probeDir = await mkdtemp(join(target, '.agy-sdk-doctor-'));
    await rm(probeDir, { recursive: true, force: true });
    return {
      id: 'datadir',
      title,
      status: 'ok',
      detail: target === dir ? dir : `${dir} (to be created in ${target})`,
    };
  } catch (error) {
    return {
      id: 'datadir',
      title,
      status: 'fail',
      detail: `${dir}: ${(error as Error).message}`,
      fix: `make ${dir} a directory you own and can write (agy keeps conversations and logs there)`,
    };
  }
}

function checkCurl(env: NodeJS.ProcessEnv): DoctorCheck {
  const dirs = (env.PATH ?? '').split(delimiter).filter(Boolean);
  const found = dirs
    .map((d) => join(d, 'curl'))
    .find((p) => {
      try {
        accessSync(p, constants.X_OK);
        return statSync(p).isFile();
      } catch {
        return false;
      }
    });
  if (found) return { id: 'curl', title: 'curl', status: 'ok', detail: found };
  return {
    id: 'curl',
    title: 'curl',
    status: 'warn',
    detail: `not on PATH (${dirs.length} directories searched)`,
    fix: "install curl (hooks relay through it); without it the SDK uses its slower Node relay (hookRelay: 'node')",
  };
}
