/**
 * Third-party captures of real agy sessions → cassettes (`agy-sdk cassette import`): stream-json stdout
 * files (`.stdout`, `.ndjson`, `.jsonl`, with a sibling `.stderr` when there is one), Untether's `.script`
 * recordings (`sleep:`/`out:`/`err:`/`rc:`, gaps kept as offsets), hook payload folders (one `hook` record
 * per `<Event>…json`) and ACP transcripts (`{"direction":…}` lines → `acp` records). A capture has no stdin of
 * the SDK's, so its one user line is recorded as `<prompt>`, which a replay matches with any prompt.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import {
  CASSETTE_FORMAT,
  CASSETTE_VERSION,
  type Cassette,
  type CassetteHeader,
  type CassetteRecord,
} from '../../cassette/format.js';
import { INPUT_LIMITS, readInput } from '../../cassette/limits.js';
import { CassetteError } from '../../errors.js';
import { exceedsJsonDepth } from '../../internal/json-depth.js';

/** What the capture does not say itself. */
export interface ImportOptions {
  /** The exit code agy ended with (a capture's SOURCE.txt may state one); default: agy stays up until stdin closes. */
  exitCode?: number | undefined;
  /** A stderr file to add after the stdout lines (default: the sibling `<name>.stderr`, if any). */
  stderrFile?: string | undefined;
  /** The agy version (default: from the path, e.g. `…-agy-1.3.1/`, else `null`). */
  agyVersion?: string | null | undefined;
}

const STREAM_ARGS = ['--input-format', 'stream-json', '--output-format', 'stream-json'];
/** The user line of an imported capture: matches any prompt on replay. */
export const ANY_PROMPT = '<prompt>';

function header(source: string, version: string | null, backend: 'agy' | 'acp' = 'agy'): CassetteHeader {
  return {
    format: CASSETTE_FORMAT,
    version: CASSETTE_VERSION,
    backend,
    agy: { version, args: backend === 'agy' ? STREAM_ARGS : [] },
    recordedAt: new Date(0).toISOString(),
    sanitized: false,
    source,
  };
}

function versionFromPath(path: string): string | null {
  return /agy-(\d+\.\d+\.\d+)/.exec(path)?.[1] ?? null;
}

/** A capture's text (a regular file within the size limit). */
function readText(file: string): string {
  return readInput(file, INPUT_LIMITS, 'capture');
}

/**
 * The lines of a capture, each within the line limit and at most the record limit of them; `keepEmpty` keeps
 * the empty ones so that an index is still a line number.
 */
function captureLines(file: string, text: string, keepEmpty = false): { n: number; line: string }[] {
  const out: { n: number; line: string }[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (!keepEmpty && line.trim() === '') continue;
    if (line.length > INPUT_LIMITS.lineChars)
      throw new CassetteError(
        file,
        i + 1,
        'line',
        `is longer than the limit of ${INPUT_LIMITS.lineChars} characters`,
      );
    if (out.length >= INPUT_LIMITS.records)
      throw new CassetteError(
        file,
        i + 1,
        'line',
        `is past the limit of ${INPUT_LIMITS.records} lines per capture`,
      );
    out.push({ n: i + 1, line });
  }
  return out;
}

function nonEmptyLines(file: string, text: string): string[] {
  return captureLines(file, text).map((l) => l.line);
}

/** Parses a JSON value of a capture; a malformed or too deeply nested one is a {@link CassetteError}. */
function parseJson(file: string, text: string, line: number, field: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (err) {
    // V8 names the offset ("… at position 12"): for a whole file, turn it into the line it is on.
    const at = Number(/position (\d+)/.exec((err as Error).message)?.[1] ?? Number.NaN);
    const where = Number.isNaN(at) ? line : line + (text.slice(0, at).match(/\n/g)?.length ?? 0);
    throw new CassetteError(file, where, field, `is not JSON (${(err as Error).message})`);
  }
  if (exceedsJsonDepth(value, INPUT_LIMITS.jsonDepth))
    throw new CassetteError(file, line, field, `nests deeper than ${INPUT_LIMITS.jsonDepth} levels`);
  return value;
}

/** The init line, made up from the capture's conversation id when it has none (print-mode captures). */
function initLine(lines: readonly string[]): { init: string; rest: string[] } {
  const isInit = (l: string) => l.startsWith('{"event":"init"');
  const found = lines.find(isInit);
  if (found) return { init: found, rest: lines.filter((l) => l !== found) };
  const id =
    /"conversation_id":"([^"]+)"/.exec(lines.join('\n'))?.[1] ?? '00000000-0000-4000-8000-000000000000';
  const init = JSON.stringify({
    event: 'init',
    conversation_id: id,
    init: { cwd: '<cwd>', tools: [], permission_mode: 'request-review' },
  });
  return { init, rest: [...lines] };
}

/** Ends a stream: the exit code when the capture states one, else agy waits for stdin EOF and exits 0. */
function ending(t: number, exitCode: number | undefined): CassetteRecord[] {
  if (exitCode !== undefined) return [{ t, type: 'exit', code: exitCode, signal: null }];
  return [
    { t, type: 'close' },
    { t, type: 'exit', code: 0, signal: null },
  ];
}

/** A stream-json stdout capture (and its stderr) → a cassette. */
export function importStdout(file: string, options: ImportOptions = {}): Cassette {
  const lines = nonEmptyLines(file, readText(file));
  const sibling = file.replace(/\.(stdout|ndjson|jsonl)$/, '.stderr');
  const stderrFile = options.stderrFile ?? (sibling !== file && existsSync(sibling) ? sibling : undefined);
  const stderr = stderrFile ? nonEmptyLines(stderrFile, readText(stderrFile)) : [];
  const { init, rest } = initLine(lines);
  const records: CassetteRecord[] = [
    { t: 0, type: 'spawn', args: STREAM_ARGS },
    { t: 0, type: 'stdout', line: init },
    { t: 0, type: 'stdin', line: ANY_PROMPT },
    ...rest.map((line): CassetteRecord => ({ t: 0, type: 'stdout', line })),
    ...stderr.map((line): CassetteRecord => ({ t: 0, type: 'stderr', line })),
    ...ending(0, options.exitCode),
  ];
  return { header: header(file, options.agyVersion ?? versionFromPath(file)), records };
}

/** An Untether `.script` recording → a cassette (its recorded gaps become offsets). */
export function importScript(file: string, options: ImportOptions = {}): Cassette {
  let t = 0;
  let exitCode: number | undefined;
  const body: CassetteRecord[] = [];
  for (const { n, line: raw } of captureLines(file, readText(file), true)) {
    if (raw === '') continue;
    const colon = raw.indexOf(':');
    const kind = raw.slice(0, colon);
    const value = raw.slice(colon + 1);
    if (kind === 'sleep') {
      const s = Number(value);
      if (!Number.isFinite(s) || s < 0)
        throw new CassetteError(file, n, 'sleep', `is not a number of seconds: ${value}`);
      t += Math.round(s * 1000);
      if (!Number.isSafeInteger(t))
        throw new CassetteError(file, n, 'sleep', 'makes the recording longer than can be timed');
    } else if (kind === 'out') body.push({ t, type: 'stdout', line: value });
    else if (kind === 'err') body.push({ t, type: 'stderr', line: value });
    else if (kind === 'rc') {
      exitCode = Number(value);
      if (!Number.isInteger(exitCode) || exitCode < 0 || exitCode > 255)
        throw new CassetteError(file, n, 'rc', `is not an exit code 0–255: ${value}`);
    } else throw new CassetteError(file, n, 'line', `unknown .script entry ${JSON.stringify(kind)}`);
  }
  exitCode ??= options.exitCode;
  const isInit = (r: CassetteRecord) => r.type === 'stdout' && r.line.startsWith('{"event":"init"');
  const initAt = body.findIndex(isInit);
  const records: CassetteRecord[] = [{ t: 0, type: 'spawn', args: STREAM_ARGS }];
  if (initAt >= 0) {
    // The prompt follows init (Untether writes it on stdin at once).
    // Loops, not push(...body): spreading a long capture into arguments overflows the stack.
    for (const r of body.slice(0, initAt + 1)) records.push(r);
    records.push({ t: body[initAt]!.t, type: 'stdin', line: ANY_PROMPT });
    for (const r of body.slice(initAt + 1)) records.push(r);
  } else if (exitCode === undefined || exitCode === 0) {
    // Print mode (`-p /usage`): no init and no stdin; an init is made up so a stream session can read it.
    const lines = body.flatMap((r) => (r.type === 'stdout' ? [r.line] : []));
    records.push(
      { t: 0, type: 'stdout', line: initLine(lines).init },
      { t: 0, type: 'stdin', line: ANY_PROMPT },
    );
    for (const r of body) records.push(r);
  } else {
    // A failure before init (signed out, a rejected model): played as it came, the SDK never sends a prompt.
    for (const r of body) records.push(r);
  }
  // agy's exit 0 comes after stdin EOF (Untether closes stdin after the result).
  records.push(...ending(t, exitCode === 0 ? undefined : exitCode));
  return { header: header(file, options.agyVersion ?? versionFromPath(file)), records };
}

/** A folder of hook payloads (`PreToolUse-step2.json`, `Stop.json`, …) → a cassette of `hook` records. */
export function importHookFolder(dir: string, options: ImportOptions = {}): Cassette {
  const events = ['PreInvocation', 'PostInvocation', 'PreToolUse', 'PostToolUse', 'Stop', 'SessionStart'];
  const files = readdirSync(dir)
    .filter((n) => n.endsWith('.json') && events.some((e) => n.startsWith(e)))
    .sort();
  if (files.length === 0)
    throw new CassetteError(dir, 0, 'capture', 'holds no hook payloads (<Event>….json)');
  if (files.length > INPUT_LIMITS.records)
    throw new CassetteError(dir, 0, 'capture', `holds more than ${INPUT_LIMITS.records} hook payloads`);
  const records: CassetteRecord[] = files.map((name) => {
    const file = join(dir, name);
    return {
      t: 0,
      type: 'hook',
      event: events.find((e) => name.startsWith(e))!,
      request: parseJson(file, readText(file), 1, 'request'),
      answer: null,
    };
  });
  return { header: header(dir, options.agyVersion ?? versionFromPath(dir)), records };
}

/** An ACP transcript (`{"direction":"agent"|"client",…}` lines) → a cassette of `acp` records. */
export function importAcp(file: string, options: ImportOptions = {}): Cassette {
  const records = captureLines(file, readText(file)).map(({ n, line }): CassetteRecord => {
    const value = parseJson(file, line, n, 'line');
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new CassetteError(file, n, 'line', 'must be a JSON object');
    const { direction, ...message } = value as Record<string, unknown>;
    return { t: 0, type: 'acp', direction: direction === 'client' ? 'out' : 'in', message };
  });
  return { header: header(file, options.agyVersion ?? versionFromPath(file), 'acp'), records };
}

/** Any capture: picks the importer from the path (a folder of hook payloads, `.script`, ACP, stdout). */
export function importCapture(path: string, options: ImportOptions = {}): Cassette {
  if (!existsSync(path)) throw new CassetteError(path, 0, 'capture', 'does not exist');
  if (statSync(path).isDirectory()) return importHookFolder(path, options);
  const name = basename(path);
  if (name.endsWith('.script')) return importScript(path, options);
  if (name.endsWith('.stderr') || name === 'SOURCE.txt' || /\.(hooks|mcp_config)\.json$/.test(name))
    throw new CassetteError(
      path,
      0,
      'capture',
      'is not a session capture (import its stdout, .script or folder)',
    );
  const first = readText(path).trimStart();
  if (first.startsWith('{"direction"')) return importAcp(path, options);
  if (!first.startsWith('{'))
    throw new CassetteError(path, 0, 'capture', `is not a stream-json capture (in ${dirname(path)})`);
  return importStdout(path, options);
}
