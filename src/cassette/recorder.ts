/**
 * Records one session into one cassette file (`AgentConfig.record`, `AGY_SDK_RECORD`): a {@link WireTap} the
 * backend feeds, kept in memory and written, sanitized, after every turn and on close (mode 0600, in a 0700
 * directory). The file is rewritten whole each time, so it is always a complete, valid cassette. On close, a
 * `redact` pattern that matched nothing, or matched in every string value, of the recording is reported as a
 * warning.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { WireTap } from '../connection/wire-tap.js';
import {
  CASSETTE_FORMAT,
  CASSETTE_VERSION,
  type CassetteHeader,
  type CassetteRecord,
  type HookRecord,
} from './format.js';
import type { RedactPattern } from './redact-patterns.js';
import { type SanitizeContext, Sanitizer } from './sanitize.js';

/** `AgentConfig.record`: where and how to record. */
export interface RecordConfig {
  /** The directory cassettes are written to (created 0700 if missing); one file per session. */
  dir: string;
  /**
   * More patterns to replace with `<redacted>` (literal strings or regular expressions), applied to each
   * string value, never to the JSON around it or to protocol values (record and step types, states, methods).
   * One that matches the empty string is a `ConfigError`.
   */
  redact?: readonly RedactPattern[] | undefined;
}

/** A recorder for one session. */
export class CassetteRecorder implements WireTap {
  /** The cassette's path. */
  readonly file: string;
  readonly #dir: string;
  readonly #started = Date.now();
  readonly #header: CassetteHeader;
  readonly #records: CassetteRecord[] = [];
  readonly #hooks = new Map<unknown, HookRecord>();
  readonly #sanitizer: Sanitizer;
  #writing: Promise<void> = Promise.resolve();
  #dirty = false;
  #closed = false;

  readonly #onError: (error: unknown) => void;
  readonly #onWarning: (message: string) => void;
  #warnings: string[] = [];

  /**
   * @param onError where a failed write after a turn is reported (`close()` rejects with its own failure).
   * @param onWarning where, on close, a `redact` pattern that matched nothing or every value is reported.
   * @throws ConfigError when a `redact` pattern is not a string or RegExp, or matches the empty string.
   */
  constructor(
    config: RecordConfig,
    context: SanitizeContext & { backend?: 'agy' | 'acp' },
    onError: (error: unknown) => void,
    onWarning: (message: string) => void = () => {},
  ) {
    this.#dir = config.dir;
    this.#onError = onError;
    this.#onWarning = onWarning;
    const stamp = new Date(this.#started).toISOString().replace(/[:.]/g, '-');
    this.file = join(config.dir, `session-${stamp}-${randomBytes(3).toString('hex')}.cassette.jsonl`);
    this.#sanitizer = new Sanitizer({ ...context, redact: config.redact });
    this.#header = {
      format: CASSETTE_FORMAT,
      version: CASSETTE_VERSION,
      backend: context.backend ?? 'agy',
      agy: { version: null, args: [] },
      recordedAt: new Date(this.#started).toISOString(),
      sanitized: true,
    };
  }

  #t(): number {
    return Date.now() - this.#started;
  }

  #push(record: CassetteRecord): void {
    if (this.#closed) return;
    this.#records.push(record);
    this.#dirty = true;
  }

  spawn(args: readonly string[]): void {
    if (this.#header.agy.args.length === 0) this.#header.agy.args = [...args];
    this.#push({ t: this.#t(), type: 'spawn', args: [...args] });
  }

  stdin(line: string): void {
    this.#push({ t: this.#t(), type: 'stdin', line });
  }

  stdinClosed(): void {
    this.#push({ t: this.#t(), type: 'close' });
  }

  signal(signal: string): void {
    this.#push({ t: this.#t(), type: 'signal', signal });
  }

  stdout(line: string): void {
    this.#push({ t: this.#t(), type: 'stdout', line });
  }

  stderr(line: string): void {
    this.#push({ t: this.#t(), type: 'stderr', line });
  }

  exit(code: number | null, signal: string | null): void {
    this.#push({ t: this.#t(), type: 'exit', code, signal });
  }

  hookRequest(event: string, request: unknown): void {
    // In the file at the request's place (before the step agy writes after it), answered later.
    const record: HookRecord = { t: this.#t(), type: 'hook', event, request, answer: null };
    this.#hooks.set(request, record);
    this.#push(record);
  }

  hookAnswer(event: string, request: unknown, answer: unknown): void {
    const record = this.#hooks.get(request);
    this.#hooks.delete(request);
    if (record) record.answer = answer ?? null;
    else this.#push({ t: this.#t(), type: 'hook', event, request, answer: answer ?? null });
    this.#dirty = true;
  }

  mcp(server: string, request: unknown, status: number, response: unknown): void {
    this.#push({ t: this.#t(), type: 'mcp', server, request, status, response: response ?? null });
  }

  acp(direction: 'in' | 'out', message: unknown): void {
    this.#push({ t: this.#t(), type: 'acp', direction, message });
  }

  secrets(known: { token?: string | undefined; sessionDir?: string | undefined }): void {
    // Learned later, they also apply to what was recorded before: every write sanitizes the whole cassette.
    this.#sanitizer.update(known);
  }

  version(version: string | null): void {
    this.#header.agy.version = version;
    this.#dirty = true;
  }

  turnEnded(): void {
    this.#flush().catch(this.#onError);
  }

  async close(): Promise<void> {
    await this.#flush();
    if (!this.#closed) {
      this.#closed = true;
      for (const warning of this.#warnings) {
        try {
          this.#onWarning(warning);
        } catch {
          // The host's warning sink failing must not fail the close.
        }
      }
    }
  }

  /** Writes the whole cassette (sanitized) through a temp file and a rename, one write at a time. */
  #flush(): Promise<void> {
    // A failed write was reported to whoever awaited it; the next one starts afresh.
    this.#writing = this.#writing
      .catch(() => {})
      .then(async () => {
        if (!this.#dirty) return;
        this.#dirty = false;
        const { records, warnings } = this.#sanitizer.cassette([this.#header, ...this.#records]);
        this.#warnings = warnings;
        const text = `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;
        await mkdir(this.#dir, { recursive: true, mode: 0o700 });
        const tmp = `${this.file}.${randomBytes(3).toString('hex')}.tmp`;
        await writeFile(tmp, text, { mode: 0o600 });
        await rename(tmp, this.file);
      });
    return this.#writing;
  }
}
