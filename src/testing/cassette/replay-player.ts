/**
 * Plays one `spawn` segment of a cassette as the agent process (`replay-agy.ts` picks the segment): stdout and
 * stderr lines as recorded, at the recorded pace when asked; each recorded stdin line, EOF or signal awaited
 * from the real ones (a stdin line compared with the recording); hook and MCP calls re-issued
 * (`replay-reissue.ts`); the recorded exit.
 */
import { constants as osConstants } from 'node:os';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CassetteRecord, ExitRecord, HookRecord, StdinRecord } from '../../cassette/format.js';
import type { Emitter } from '../simulator/emitter.js';
import type { SimRuntime } from '../simulator/runtime.js';
import { CASSETTE_MISMATCH_MARKER, stdinMatches } from './mismatch.js';
import type { ReplayGate } from './replay-gate.js';
import { reissueHook, reissueMcp } from './replay-reissue.js';

/** The replay's pace: as fast as the reader takes it, or the recorded gaps divided by `factor`. */
export type Timing = { kind: 'none' } | { kind: 'scaled'; factor: number };

/** The process's stdin lines, its EOF and the signals it got, awaited in order by the records that need them. */
export class ReplayInput {
  /** stdin lines not yet matched with a record. */
  readonly lines: string[] = [];
  /** Signals (SIGINT, SIGTERM) not yet matched with a record. */
  readonly signals: string[] = [];
  /** Whether stdin closed. */
  eof = false;
  #wake: (() => void) | undefined;

  /** Starts reading this process's stdin and catching its SIGINT and SIGTERM. */
  static listen(): ReplayInput {
    const input = new ReplayInput();
    const lines = createInterface({ input: process.stdin });
    lines.on('line', (line) => {
      input.lines.push(line);
      input.#notify();
    });
    lines.on('close', () => {
      input.eof = true;
      input.#notify();
    });
    for (const sig of ['SIGINT', 'SIGTERM'] as const) {
      process.on(sig, () => {
        input.signals.push(sig);
        input.#notify();
      });
    }
    return input;
  }

  /** Resolves once `ready()` holds, re-checked after each line, EOF or signal. */
  async waitFor(ready: () => boolean): Promise<void> {
    while (!ready()) await new Promise<void>((r) => (this.#wake = r));
  }

  #notify(): void {
    this.#wake?.();
    this.#wake = undefined;
  }
}

/** What a segment's play needs. */
export interface SegmentPlay {
  /** The segment: its `spawn` record, then the records of that process. */
  segment: CassetteRecord[];
  emitter: Emitter;
  /** Flushes output and exits the process. */
  exit: (code: number) => Promise<never>;
  input: ReplayInput;
  timing: Timing;
  /** Whether a stdin line that differs from the recording ends the turn (else a warning). */
  strict: boolean;
  runtime: SimRuntime;
  gate: ReplayGate;
}

/** Plays the segment's records in order, then exits (never returns). */
export async function playSegment(play: SegmentPlay): Promise<never> {
  const { segment, timing, input, exit } = play;
  let base = Date.now() - scaled(segment[0]!.t, timing);
  for (let i = 1; i < segment.length; i++) {
    const record = segment[i]!;
    // A signal the recording did not expect here (a capture has none): agy answers it at once, so the rest of
    // the segment plays without its gaps.
    const hurry = input.signals.length > 0 && record.type !== 'signal';
    if (timing.kind === 'scaled' && !hurry) {
      const due = base + scaled(record.t, timing);
      const wait = due - Date.now();
      if (wait > 0 && record.type !== 'stdin' && record.type !== 'close' && record.type !== 'signal')
        await sleep(wait);
    }
    switch (record.type) {
      case 'stdin':
        await playStdin(play, record);
        base = Date.now() - scaled(record.t, timing);
        break;
      case 'signal':
        await input.waitFor(() => input.signals.length > 0 || input.eof);
        input.signals.shift();
        base = Date.now() - scaled(record.t, timing);
        break;
      case 'hook':
        // Consecutive calls with one payload are one agy hook event (several registrations of the SDK).
        while (sameHookCall(segment[i + 1], record)) i++;
        await playRecord(play, record);
        break;
      default:
        await playRecord(play, record);
    }
  }
  // The recording ended with the process still up: stay until stdin closes, as agy does.
  await input.waitFor(() => input.eof);
  return exit(0);
}

/** Plays a record that neither reads stdin nor awaits a signal. */
async function playRecord(play: SegmentPlay, record: CassetteRecord): Promise<void> {
  const { emitter, input } = play;
  switch (record.type) {
    case 'stdout':
      await emitter.raw(`${record.line}\n`);
      break;
    case 'stderr':
      await emitter.stderr(record.line);
      break;
    case 'close':
      await input.waitFor(() => input.eof);
      break;
    case 'hook':
      if (record.event === 'PreToolUse') await play.gate.preToolUse(record, conversationId(play.segment));
      else await reissueHook(play.runtime, record, conversationId(play.segment));
      break;
    case 'mcp':
      await reissueMcp(play.gate.decide(record), record.server, record.request, emitter);
      break;
    case 'exit':
      return play.exit(exitStatus(record));
    default:
      break;
  }
}

/**
 * Awaits the next stdin line and compares it with the recorded one. Strict, a mismatch writes the marker
 * first (the SDK reads stderr before acting on a result), then a failed result so the turn ends at once; the
 * process stays up until stdin closes, as agy does after a failed turn. Loose, it warns. EOF instead of a line
 * exits 0.
 */
async function playStdin(play: SegmentPlay, record: StdinRecord): Promise<void> {
  const { input, emitter, exit } = play;
  await input.waitFor(() => input.lines.length > 0 || input.eof);
  if (input.lines.length === 0) return exit(0);
  const actual = input.lines.shift()!;
  if (stdinMatches(record.line, actual)) return;
  const detail = JSON.stringify({ expected: record.line, actual });
  if (!play.strict) {
    await emitter.stderr(`agy-sdk cassette (loose): stdin differs from the recording ${detail}`);
    return;
  }
  await emitter.stderr(`${CASSETTE_MISMATCH_MARKER} ${detail}`);
  await emitter.line({
    event: 'result',
    result: {
      conversation_id: conversationId(play.segment),
      status: 'ERROR',
      error: 'cassette mismatch: stdin differs from the recording',
      response: '',
      num_turns: 0,
    },
  });
  await input.waitFor(() => input.eof);
  return exit(0);
}

/** The conversation id of the segment's first stdout line that names one, or `''`. */
function conversationId(segment: readonly CassetteRecord[]): string {
  for (const r of segment) {
    if (r.type !== 'stdout') continue;
    const id = /"conversation_id":"([^"]+)"/.exec(r.line)?.[1];
    if (id) return id;
  }
  return '';
}

/**
 * The status a recorded exit is played with. A death by signal becomes exit 128 + the signal's number (the
 * shell's convention, `$?` after a killed child): the replayer never signals itself, since a stop signal
 * would freeze it, a handled one (SIGINT, SIGTERM) would be caught by its own listeners, SIGPIPE is ignored by
 * Node, and a core-dumping one (SIGSEGV, SIGABRT, …) would write this process's memory, the session's
 * environment included, to a core file. The SDK judges the turn the same way (an exit before the `result`
 * fails it, whatever the status); `TurnResult.exitCode` is then 128 + N and `signal` is null
 * (docs/reference/process.md#exit-by-a-signal).
 */
export function exitStatus(record: ExitRecord): number {
  if (record.signal === null) return record.code ?? 1;
  // Every name in EXIT_SIGNALS (checked when the cassette was read) has a number on POSIX systems.
  return 128 + (osConstants.signals[record.signal as NodeJS.Signals] ?? 0);
}

function scaled(t: number, timing: Timing): number {
  return timing.kind === 'scaled' ? t / timing.factor : 0;
}

function sameHookCall(next: CassetteRecord | undefined, record: HookRecord): boolean {
  return (
    next?.type === 'hook' &&
    next.event === record.event &&
    JSON.stringify(next.request) === JSON.stringify(record.request)
  );
}
