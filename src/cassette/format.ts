/**
 * The cassette format, version 1: JSON Lines, one header line, then one record per line in the order things
 * happened, each with `t`, its offset in milliseconds from the start of the recording. Documented in
 * `docs/guides/testing-your-agent.md#cassettes`; {@link parseCassette} is the schema check.
 */
import { CassetteError } from '../errors.js';
import { exceedsJsonDepth, mayExceedJsonDepth } from '../internal/json-depth.js';
import { INPUT_LIMITS, type InputLimits, readInput } from './limits.js';

/** The `format` value of every cassette header. */
export const CASSETTE_FORMAT = 'agy-sdk-cassette';
/** The format version this SDK writes and reads. */
export const CASSETTE_VERSION = 1;

/** The agent CLI a cassette was recorded from. */
export interface CassetteAgy {
  /** Its version (`null` when unknown). */
  version: string | null;
  /** The arguments of its first launch. */
  args: string[];
}

/** The first line of a cassette. */
export interface CassetteHeader {
  /** Always {@link CASSETTE_FORMAT}. */
  format: typeof CASSETTE_FORMAT;
  /** Always {@link CASSETTE_VERSION}. */
  version: typeof CASSETTE_VERSION;
  /** Which backend the session ran on. */
  backend: 'agy' | 'acp';
  /** The agent CLI: its version (`null` when unknown) and the arguments of its first launch. */
  agy: CassetteAgy;
  /** When the recording started (ISO 8601). */
  recordedAt: string;
  /** True when secrets and paths were replaced (every cassette the SDK writes). */
  sanitized: boolean;
  /** Where it came from when it was not recorded by the SDK (an imported capture's path). */
  source?: string | undefined;
}

/** A process start (the first one and every restart), with its arguments. */
export interface SpawnRecord {
  /** Milliseconds since the recording started. */
  t: number;
  /** The record type. */
  type: 'spawn';
  /** The arguments agy was started with (sanitized). */
  args: string[];
}
/** One line the SDK wrote to agy's stdin (without the newline). */
export interface StdinRecord {
  /** Milliseconds since the recording started. */
  t: number;
  /** The record type. */
  type: 'stdin';
  /** The line, without its newline. */
  line: string;
}
/** The SDK closed agy's stdin (agy exits on EOF). */
export interface CloseRecord {
  /** Milliseconds since the recording started. */
  t: number;
  /** The record type. */
  type: 'close';
}
/** The SDK sent agy a signal (`SIGINT` interrupts a turn). */
export interface SignalRecord {
  /** Milliseconds since the recording started. */
  t: number;
  /** The record type. */
  type: 'signal';
  /** The signal's name. */
  signal: string;
}
/** One line agy wrote to stdout (without the newline). */
export interface StdoutRecord {
  /** Milliseconds since the recording started. */
  t: number;
  /** The record type. */
  type: 'stdout';
  /** The line, without its newline. */
  line: string;
}
/** One line agy wrote to stderr. */
export interface StderrRecord {
  /** Milliseconds since the recording started. */
  t: number;
  /** The record type. */
  type: 'stderr';
  /** The line, without its newline. */
  line: string;
}
/** How the process ended. */
export interface ExitRecord {
  /** Milliseconds since the recording started. */
  t: number;
  /** The record type. */
  type: 'exit';
  /** The exit code, or `null` when a signal ended it. */
  code: number | null;
  /** The signal that ended it, if any: one agy can end with (`SIGTERM`, `SIGKILL`, …; `code` is then `null`). */
  signal: string | null;
}

/**
 * The signals an agy process can end with, the only ones an `exit` record may name: the SDK's own stops
 * (SIGINT, then SIGTERM, then SIGKILL), a lost terminal (SIGHUP), a closed output pipe (SIGPIPE), the OOM
 * killer (SIGKILL), and a crash (SIGQUIT, SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE). A stop signal (SIGSTOP,
 * SIGTSTP, …) suspends a process rather than ending it, and one ignored by default (SIGCHLD, SIGCONT, …)
 * cannot end it. See docs/reference/process.md#exit-by-a-signal.
 */
export const EXIT_SIGNALS: ReadonlySet<string> = new Set([
  'SIGHUP',
  'SIGINT',
  'SIGQUIT',
  'SIGILL',
  'SIGABRT',
  'SIGBUS',
  'SIGFPE',
  'SIGKILL',
  'SIGSEGV',
  'SIGPIPE',
  'SIGTERM',
]);

/** One hook call on the session's listener: agy's payload and the answer it got. */
export interface HookRecord {
  /** Milliseconds since the recording started. */
  t: number;
  /** The record type. */
  type: 'hook';
  /** agy's hook event (`PreToolUse`, `PostToolUse`, `Stop`, …). */
  event: string;
  /** The request body, as sent. */
  request: unknown;
  /** The answer agy got (`null` when none was sent before the session ended). */
  answer: unknown;
}
/** One MCP POST on the session's listener: the JSON-RPC body and the answer. */
export interface McpRecord {
  /** Milliseconds since the recording started. */
  t: number;
  /** The record type. */
  type: 'mcp';
  /** The listener's server name (`tools` for the agent's own). */
  server: string;
  /** The request body, as sent. */
  request: unknown;
  /** The HTTP status answered. */
  status: number;
  /** The JSON answer (`null` for an empty one, e.g. 202). */
  response: unknown;
}
/** One JSON-RPC message on an ACP agent's pipes: `out` from the SDK, `in` from the agent. */
export interface AcpRecord {
  /** Milliseconds since the recording started. */
  t: number;
  /** The record type. */
  type: 'acp';
  /** `out`: the SDK sent it; `in`: the agent did. */
  direction: 'in' | 'out';
  /** The JSON-RPC message. */
  message: unknown;
}

/** Any record after the header. */
export type CassetteRecord =
  | SpawnRecord
  | StdinRecord
  | CloseRecord
  | SignalRecord
  | StdoutRecord
  | StderrRecord
  | ExitRecord
  | HookRecord
  | McpRecord
  | AcpRecord;

/** A whole cassette. */
export interface Cassette {
  /** The first line. */
  header: CassetteHeader;
  /** Every other line, in order. */
  records: CassetteRecord[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringArray = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((s) => typeof s === 'string');

/** The record types and, for each, its fields beyond `t` and `type` with their checks. */
const RECORD_FIELDS: Record<CassetteRecord['type'], Record<string, (v: unknown) => string | undefined>> = {
  spawn: { args: (v) => (isStringArray(v) ? undefined : 'must be an array of strings') },
  stdin: { line: str },
  close: {},
  signal: { signal: str },
  stdout: { line: str },
  stderr: { line: str },
  exit: {
    code: (v) => (v === null || Number.isInteger(v) ? undefined : 'must be an integer or null'),
    signal: (v) =>
      v === null || (typeof v === 'string' && EXIT_SIGNALS.has(v))
        ? undefined
        : `must be null or a signal agy can end with (${[...EXIT_SIGNALS].join(', ')}), got ${JSON.stringify(v)}`,
  },
  hook: { event: str, request: present, answer: present },
  mcp: {
    server: str,
    request: present,
    status: (v) => (Number.isInteger(v) ? undefined : 'must be an integer'),
    response: present,
  },
  acp: {
    direction: (v) => (v === 'in' || v === 'out' ? undefined : "must be 'in' or 'out'"),
    message: present,
  },
};

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? undefined : 'must be a string';
}
function present(v: unknown): string | undefined {
  return v === undefined ? 'is missing' : undefined;
}

/** Checks a header value; throws {@link CassetteError} naming the first wrong field. */
export function checkHeader(value: unknown, file = '<text>'): CassetteHeader {
  const fail = (field: string, message: string): never => {
    throw new CassetteError(file, 1, `header.${field}`, message);
  };
  if (!isObj(value)) return fail('format', 'the first line must be a JSON object (the header)');
  if (value.format !== CASSETTE_FORMAT)
    fail('format', `must be "${CASSETTE_FORMAT}", got ${JSON.stringify(value.format)}`);
  if (value.version !== CASSETTE_VERSION)
    fail('version', `this SDK reads version ${CASSETTE_VERSION}, got ${JSON.stringify(value.version)}`);
  if (value.backend !== 'agy' && value.backend !== 'acp') fail('backend', "must be 'agy' or 'acp'");
  const agy = value.agy;
  if (!isObj(agy)) return fail('agy', 'must be { version, args }');
  if (agy.version !== null && typeof agy.version !== 'string')
    fail('agy.version', 'must be a string or null');
  if (!isStringArray(agy.args)) fail('agy.args', 'must be an array of strings');
  if (typeof value.recordedAt !== 'string' || Number.isNaN(Date.parse(value.recordedAt)))
    fail('recordedAt', 'must be an ISO 8601 date');
  if (typeof value.sanitized !== 'boolean') fail('sanitized', 'must be a boolean');
  if (value.source !== undefined && typeof value.source !== 'string') fail('source', 'must be a string');
  return value as unknown as CassetteHeader;
}

/** Checks one record; throws {@link CassetteError} naming the line and the first wrong field. */
export function checkRecord(value: unknown, line: number, file = '<text>', lastT = 0): CassetteRecord {
  const fail = (field: string, message: string): never => {
    throw new CassetteError(file, line, field, message);
  };
  if (!isObj(value)) return fail('record', 'must be a JSON object');
  const fields =
    typeof value.type === 'string' ? RECORD_FIELDS[value.type as CassetteRecord['type']] : undefined;
  if (!fields)
    return fail(
      'type',
      `must be one of ${Object.keys(RECORD_FIELDS).join(', ')}, got ${JSON.stringify(value.type)}`,
    );
  if (typeof value.t !== 'number' || !Number.isFinite(value.t) || value.t < 0)
    fail('t', 'must be a non-negative number of milliseconds');
  if ((value.t as number) < lastT) fail('t', `goes back in time (${value.t} after ${lastT})`);
  for (const [name, check] of Object.entries(fields)) {
    const problem = check(value[name]);
    if (problem) fail(name, problem);
  }
  // A process that died of a signal has no exit code (Node reports one or the other).
  if (value.type === 'exit' && value.signal !== null && value.code !== null)
    fail('code', 'must be null when a signal ended the process');
  return value as unknown as CassetteRecord;
}

/** Parses and checks a cassette's text; throws {@link CassetteError} on the first problem. */
export function parseCassette(text: string, file = '<text>'): Cassette {
  return parseCassetteWithin(text, file, INPUT_LIMITS);
}

/**
 * {@link parseCassette} under explicit bounds: the number of records, the length of a line and the nesting
 * of its JSON (checked once here, so nothing later walks a pathological value). One pass, linear in the text.
 */
export function parseCassetteWithin(text: string, file: string, limits: InputLimits): Cassette {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (lines.length === 0) throw new CassetteError(file, 0, 'header', 'the cassette is empty');
  if (lines.length - 1 > limits.records)
    throw new CassetteError(
      file,
      limits.records + 2,
      'record',
      `is past the limit of ${limits.records} records per cassette`,
    );
  const parse = (line: string, n: number): unknown => {
    if (line.length > limits.lineChars)
      throw new CassetteError(file, n, 'line', `is longer than the limit of ${limits.lineChars} characters`);
    let value: unknown;
    try {
      value = JSON.parse(line) as unknown;
    } catch (err) {
      throw new CassetteError(file, n, 'line', `is not JSON (${(err as Error).message})`);
    }
    if (mayExceedJsonDepth(line, limits.jsonDepth) && exceedsJsonDepth(value, limits.jsonDepth))
      throw new CassetteError(file, n, 'line', `nests deeper than ${limits.jsonDepth} levels`);
    return value;
  };
  const header = checkHeader(parse(lines[0]!, 1), file);
  const records: CassetteRecord[] = [];
  let lastT = 0;
  for (let i = 1; i < lines.length; i++) {
    const record = checkRecord(parse(lines[i]!, i + 1), i + 1, file, lastT);
    lastT = record.t;
    records.push(record);
  }
  return { header, records };
}

/** Reads and checks a cassette file (a regular file within the size limit). */
export function readCassette(file: string): Cassette {
  return parseCassette(readInput(file), file);
}

/** The cassette as JSON Lines (what {@link parseCassette} reads back). */
export function serializeCassette(cassette: Cassette): string {
  return `${[cassette.header, ...cassette.records].map((v) => JSON.stringify(v)).join('\n')}\n`;
}

/** The stdout lines of a cassette, as parsed JSON objects (non-JSON lines skipped). */
export function stdoutObjects(cassette: Cassette): Obj[] {
  const out: Obj[] = [];
  for (const r of cassette.records) {
    if (r.type !== 'stdout') continue;
    try {
      const v = JSON.parse(r.line) as unknown;
      if (isObj(v)) out.push(v);
    } catch {
      // Not JSON: agy's bad lines are kept verbatim in the cassette, but have no object to show.
    }
  }
  return out;
}
