/**
 * Typed errors. Every error the SDK raises extends `AgySdkError` and carries a stable `code`, so callers can
 * branch on `err.code` (or `instanceof`) instead of parsing messages.
 */

/** How a turn ended, as a `TurnError` code (`turn_<TurnStatus>`); kept equal to `TurnStatus` by a type check. */
export type TurnErrorCode =
  | 'turn_success'
  | 'turn_denied'
  | 'turn_timeout'
  | 'turn_quota_exhausted'
  | 'turn_rate_limited'
  | 'turn_auth_failed'
  | 'turn_interrupted'
  | 'turn_canceled'
  | 'turn_budget_exceeded'
  | 'turn_error';

/** Every `code` an agy-sdk error can carry: switch on it exhaustively. */
export type AgySdkErrorCode =
  | 'config_invalid'
  | 'policy_config_invalid'
  | 'misuse'
  | 'agy_not_found'
  | 'start_failed'
  | 'process_exited'
  | 'watchdog_timeout'
  | 'line_too_long'
  | 'structured_output_invalid'
  | 'budget_exceeded'
  | 'closed'
  | 'content_invalid'
  | 'queue_full'
  | 'queued_work_aborted'
  | 'unsupported'
  | 'cassette_invalid'
  | 'cassette_mismatch'
  | 'redis_unavailable'
  | 'peer_missing'
  | TurnErrorCode;

/** Base class of every error agy-sdk raises. */
export class AgySdkError extends Error {
  /** A stable, machine-readable code. */
  readonly code: AgySdkErrorCode;
  constructor(code: AgySdkErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** Bad configuration or arguments. `field` names what was wrong. */
export class ConfigError extends AgySdkError {
  /** The config field or argument that was wrong, e.g. `workspaces[1]`. */
  readonly field: string;
  constructor(field: string, message: string) {
    super('config_invalid', `${field}: ${message}`);
    this.field = field;
  }
}

/**
 * The SDK was used in a way it does not allow: a second turn on a connection while one runs, starting
 * something already started, a tool context's `send` with no conversation attached, … The message says what.
 */
export class UsageError extends AgySdkError {
  constructor(message: string) {
    super('misuse', message);
  }
}

/** The agy binary could not be found. `tried` lists every place looked at, in order. */
export class AgyNotFoundError extends AgySdkError {
  /** Every path tried, in order. */
  readonly tried: string[];
  constructor(tried: string[]) {
    super(
      'agy_not_found',
      `agy binary not found. Tried (in order): ${tried.length ? tried.join(', ') : '(nothing)'}. ` +
        'Set the agyPath option or the AGY_PATH environment variable, or put agy on PATH. ' +
        'To try the SDK without agy, use the bundled simulator: AGY_PATH=node_modules/.bin/agy-sim ' +
        "(or agyPath: simulatorPath() from 'agy-sdk/testing').",
    );
    this.tried = tried;
  }
}

/**
 * An optional peer dependency a feature needs is not installed (e.g. `bullmq` and `ioredis` for
 * `agy-sdk/fleet`). `install` is the command that adds it.
 */
export class MissingPeerError extends AgySdkError {
  /** The package that could not be loaded, e.g. `bullmq`. */
  readonly packageName: string;
  /** The command that installs what the feature needs, e.g. `npm install bullmq ioredis`. */
  readonly install: string;
  constructor(packageName: string, feature: string, install: string, options?: { cause?: unknown }) {
    super(
      'peer_missing',
      `${feature} needs the optional peer "${packageName}", which is not installed: run \`${install}\``,
      options,
    );
    this.packageName = packageName;
    this.install = install;
  }
}

/** What an exited or failing agy process left behind. */
export interface ProcessDiagnostics {
  /** Exit code, or null if the process was killed by a signal or has not exited. */
  exitCode: number | null;
  /** Terminating signal, if any. */
  signal: NodeJS.Signals | null;
  /** The last lines agy wrote to stderr. */
  stderrTail: string;
}

/** agy failed before it was ready (before `init`): sign-in failure, bad flags, crash, or start timeout. */
export class StartError extends AgySdkError implements ProcessDiagnostics {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderrTail: string;
  /** The reason agy gave in a `result` line before `init`, if any (e.g. `authentication failed or timed out`). */
  readonly reason: string | undefined;
  /** The turn status a turn that needed this start ends with. */
  readonly status: 'auth_failed' | 'quota_exhausted' | 'error';
  constructor(
    message: string,
    diag: ProcessDiagnostics & {
      reason?: string | undefined;
      status?: 'auth_failed' | 'quota_exhausted' | 'error';
      /** Whose stderr `stderrTail` is, for the message (default `agy`). */
      stderrOf?: string | undefined;
    },
    options?: { cause?: unknown },
  ) {
    super('start_failed', withStderr(message, diag.stderrTail, diag.stderrOf), options);
    this.exitCode = diag.exitCode;
    this.signal = diag.signal;
    this.stderrTail = diag.stderrTail;
    this.reason = diag.reason;
    this.status = diag.status ?? 'error';
  }
}

/**
 * `resume: 'require'` and agy did not know `conversationId`: it said `warning: conversation "<id>" not found` and
 * started a new conversation (docs/reference/stream-json.md#unknown-conversation). The new process is stopped.
 */
export class ConversationNotFoundError extends StartError {
  /** The conversation the agent asked agy to resume. */
  readonly requestedConversationId: string;
  /** The new conversation agy started instead (not kept). */
  readonly startedConversationId: string;
  constructor(requested: string, started: string, diag: ProcessDiagnostics) {
    super(
      `agy does not know conversation "${requested}" (it started a new conversation "${started}"); resume: 'require' refuses it`,
      diag,
    );
    this.requestedConversationId = requested;
    this.startedConversationId = started;
  }
}

/**
 * A user MCP server marked `required: true` failed the SDK's start check (it could not be started, exited, or
 * did not answer `initialize` and `tools/list` in time), so `start()` fails; the agent is closed and nothing it
 * started is left. `exitCode`, `signal` and `stderrTail` are the server's, not agy's.
 */
export class McpServerStartError extends StartError {
  /** The server's key in `AgentConfig.mcpServers`. */
  readonly server: string;
  constructor(
    server: string,
    why: string,
    diag: { exitCode: number | null; signal: NodeJS.Signals | null; stderrTail: string },
  ) {
    super(`required MCP server "${server}" failed to start: ${why}`, {
      ...diag,
      stderrOf: `MCP server "${server}"`,
    });
    this.server = server;
  }
}

/** agy exited when it was not asked to, failing the turn in flight. */
export class ProcessExitError extends AgySdkError implements ProcessDiagnostics {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderrTail: string;
  constructor(message: string, diag: ProcessDiagnostics) {
    super('process_exited', withStderr(message, diag.stderrTail));
    this.exitCode = diag.exitCode;
    this.signal = diag.signal;
    this.stderrTail = diag.stderrTail;
  }
}

/** The watchdog fired: no event for `idleTimeoutMs`, or the turn ran past `turnTimeoutMs`. */
export class WatchdogTimeoutError extends AgySdkError {
  /** Which limit fired. */
  readonly kind: 'idle' | 'turn';
  /** The limit, in ms. */
  readonly limitMs: number;
  /** Time since the turn started, in ms. */
  readonly elapsedMs: number;
  /** The last stdout line agy wrote before the stall (raw), if any. */
  readonly lastEvent: string | undefined;
  /** The last lines agy wrote to stderr. */
  readonly stderrTail: string;
  constructor(
    kind: 'idle' | 'turn',
    limitMs: number,
    elapsedMs: number,
    lastEvent: string | undefined,
    stderrTail: string,
    /** Who went quiet, for the message: `agy` (the default) or the ACP agent. */
    peer = 'agy',
  ) {
    super(
      'watchdog_timeout',
      withStderr(
        kind === 'idle'
          ? `${peer} sent no event for ${limitMs} ms (turn running ${elapsedMs} ms)`
          : `turn exceeded ${limitMs} ms`,
        stderrTail,
      ),
    );
    this.kind = kind;
    this.limitMs = limitMs;
    this.elapsedMs = elapsedMs;
    this.lastEvent = lastEvent;
    this.stderrTail = stderrTail;
  }
}

/** agy wrote a line longer than `maxLineBytes`. The line was dropped and the turn fails closed. */
export class LineTooLongError extends AgySdkError {
  /** The configured limit, in bytes. */
  readonly limitBytes: number;
  constructor(limitBytes: number) {
    super('line_too_long', `agy wrote a line longer than maxLineBytes (${limitBytes} bytes); it was dropped`);
    this.limitBytes = limitBytes;
  }
}

/** The structured output was missing or did not match `responseSchema`. */
export class StructuredOutputError extends AgySdkError {
  /** What agy returned in `result.structured_output` (undefined when missing). */
  readonly raw: unknown;
  /** Validation issues, one line each. */
  readonly issues: string[];
  constructor(message: string, raw: unknown, issues: string[] = []) {
    super('structured_output_invalid', issues.length ? `${message}: ${issues.join('; ')}` : message);
    this.raw = raw;
    this.issues = issues;
  }
}

/**
 * Who denied a turn before it was sent: the same shape as `DeniedBy` (model/turn-result.ts), restated here
 * because this file imports nothing of ours.
 */
export type TurnDenier =
  | {
      /** A hook denied the turn. */
      kind: 'hook';
      /** The hook's name. */
      name: string;
    }
  | {
      /** A policy denied the turn. */
      kind: 'policy';
      /** The policy's name. */
      name: string;
    };

/** A `preTurn` hook (or a prepare stage) denied the prompt; it was never sent. */
export class TurnDeniedError extends AgySdkError {
  /** Who denied the turn; absent when the stage that threw did not say (the SDK then reports `sdk`). */
  readonly deniedBy: TurnDenier | undefined;
  constructor(message: string, deniedBy?: TurnDenier) {
    super('turn_denied', message);
    this.deniedBy = deniedBy;
  }
}

/** The agent or conversation is closed (or was never started). */
export class ClosedError extends AgySdkError {
  constructor(message = 'the agent is closed') {
    super('closed', message);
  }
}

/** A prompt part could not be used (unsupported MIME type, unreadable file, empty prompt). */
export class ContentError extends AgySdkError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('content_invalid', message, options);
  }
}

/** An `AgentPool`'s queue is at its `maxQueue` bound: the work was refused at once, never queued. */
export class QueueFullError extends AgySdkError {
  /** The bound that was reached. */
  readonly maxQueue: number;
  constructor(maxQueue: number) {
    super('queue_full', `the pool's queue is full (maxQueue ${maxQueue}); try again later`);
    this.maxQueue = maxQueue;
  }
}

/** Work waiting in an `AgentPool` queue was aborted through its `AbortSignal` before it reached an agent. */
export class QueuedWorkAbortedError extends AgySdkError {
  constructor(reason?: unknown) {
    super('queued_work_aborted', 'the queued work was aborted before it started', { cause: reason });
  }
}

/** The backend cannot do what was asked (e.g. `setModel()` on an ACP agent that advertises no model switch). */
export class UnsupportedError extends AgySdkError {
  /** What is not supported, e.g. `setModel`. */
  readonly feature: string;
  constructor(feature: string, message: string) {
    super('unsupported', `${feature}: ${message}`);
    this.feature = feature;
  }
}

/** A cassette file that does not follow the format (`docs/guides/testing-your-agent.md#cassettes`). */
export class CassetteError extends AgySdkError {
  /** The file (or `<text>` when parsed from a string). */
  readonly file: string;
  /** The 1-based line that was wrong (0: the file as a whole). */
  readonly line: number;
  /** The field that was wrong, e.g. `header.version` or `records[3].t`. */
  readonly field: string;
  constructor(file: string, line: number, field: string, message: string) {
    super('cassette_invalid', `${file}:${line}: ${field}: ${message}`);
    this.file = file;
    this.line = line;
    this.field = field;
  }
}

/**
 * A replayed session's stdin differed from the recording (strict replay). `expected` is the recorded line,
 * `actual` the line the SDK wrote.
 */
export class CassetteMismatchError extends AgySdkError {
  /** The recorded stdin line. */
  readonly expected: string;
  /** The stdin line this session wrote. */
  readonly actual: string;
  constructor(expected: string, actual: string) {
    super('cassette_mismatch', `stdin differs from the cassette: expected ${expected}, got ${actual}`);
    this.expected = expected;
    this.actual = actual;
  }
}

/**
 * A fleet queue or worker could not reach its Redis within its `connectTimeoutMs`: nothing was left connected.
 * The message names the server (never its password) and the last connection error.
 */
export class RedisUnavailableError extends AgySdkError {
  /** The server, as `host:port` (or the URL without credentials). */
  readonly server: string;
  /** How long it was tried, in ms. */
  readonly waitedMs: number;
  constructor(server: string, waitedMs: number, cause?: unknown) {
    const why = cause instanceof Error ? `: ${cause.message}` : '';
    super('redis_unavailable', `Redis at ${server} did not answer within ${waitedMs} ms${why}`, { cause });
    this.server = server;
    this.waitedMs = waitedMs;
  }
}

function withStderr(message: string, stderrTail: string, stderrOf = 'agy'): string {
  const tail = stderrTail.trim();
  return tail ? `${message}\n--- ${stderrOf} stderr (tail) ---\n${tail}` : message;
}
