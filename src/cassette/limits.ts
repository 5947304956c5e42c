/**
 * The bounds on every file the cassette tools read (a cassette given to replay or `show`, an OTLP trace given
 * to `show`, a capture given to `cassette import`): such files travel (bug reports, fixtures), so each is
 * untrusted. A file past a bound is a {@link CassetteError} naming it, never a crash or an unbounded wait.
 * Documented in docs/guides/testing-your-agent.md#limits-on-files-read.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { DEFAULT_MAX_LINE_BYTES } from '../connection/process/line-splitter.js';
import { CassetteError } from '../errors.js';
import { MAX_JSON_DEPTH } from '../internal/json-depth.js';

/** The bounds applied to one input file. */
export interface InputLimits {
  /** Largest file, in bytes. */
  fileBytes: number;
  /** Longest line, in characters (a cassette line, a capture line). */
  lineChars: number;
  /** Most records (cassette lines after the header, capture lines, hook payload files). */
  records: number;
  /** Most spans in one OTLP trace. */
  spans: number;
  /** Deepest JSON nesting of one value (objects and arrays). */
  jsonDepth: number;
}

/**
 * The bounds used by `readCassette`, `parseCassette`, `show` and `cassette import`. A line may be as long as
 * the SDK's own stdout line cap (`maxLineBytes` default), the depth is the SDK's bound on agy's JSON; 256 MiB
 * and a million records are far beyond any recorded session (a long one is a few MiB), yet each file is still
 * read and checked in a few seconds.
 */
export const INPUT_LIMITS: Readonly<InputLimits> = {
  fileBytes: 256 * 1024 * 1024,
  lineChars: DEFAULT_MAX_LINE_BYTES,
  records: 1_000_000,
  spans: 1_000_000,
  jsonDepth: MAX_JSON_DEPTH,
};

/**
 * Reads a whole input file as UTF-8 after checking it is a regular file within `limits.fileBytes` (a FIFO or
 * `/dev/zero` would otherwise be read forever). `field` names the file's role in the error (`file`, `capture`).
 */
export function readInput(file: string, limits: InputLimits = INPUT_LIMITS, field = 'file'): string {
  let fd: number;
  try {
    // Non-blocking, so that opening a FIFO returns at once (and is then refused as not a regular file).
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    throw new CassetteError(file, 0, field, `cannot be read (${(err as Error).message})`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new CassetteError(file, 0, field, 'is not a regular file');
    if (stat.size > limits.fileBytes)
      throw new CassetteError(
        file,
        0,
        field,
        `is ${stat.size} bytes, over the limit of ${limits.fileBytes} bytes`,
      );
    return readFileSync(fd, 'utf8');
  } catch (err) {
    if (err instanceof CassetteError) throw err;
    throw new CassetteError(file, 0, field, `cannot be read (${(err as Error).message})`);
  } finally {
    closeSync(fd);
  }
}
