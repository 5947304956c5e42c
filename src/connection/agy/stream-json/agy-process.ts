/**
 * One agy process read as one stream of typed events (the Codex SDK's `exec.ts` shape): spawned supervised,
 * its stdout framed (`LineSplitter`) and parsed (`EventReader`) into {@link AgyEvent}s, its stderr lines, spawn
 * and exit pushed into the same queue in the order they happened. `events` is read by one consumer.
 */
import { AgentProcess } from '../../process/child-process.js';
import { LineSplitter } from '../../process/line-splitter.js';
import type { AgyEvent, AgyLineEvent } from './agy-event.js';
import { EventQueue } from './event-queue.js';
import { EventReader, lineEvent } from './event-reader.js';
import { isBadLine, parseEvent } from './parse-line.js';
import { StartHandshake } from './start-handshake.js';

/** What to start. */
export interface AgyProcessSpec {
  /** The agy binary. */
  binary: string;
  /** Its argv (`command-line.ts`). */
  args: string[];
  /** Its full environment. */
  env: NodeJS.ProcessEnv;
  /** Its working directory. */
  cwd: string;
  /** Longest stdout line kept; a longer one is a `line_too_long` event. */
  maxLineBytes: number;
  /** How long `init` may take, counted from the actual spawn. */
  startTimeoutMs: number;
  /** See `AgentProcessOptions.startWork`. */
  startWork?: (() => Promise<unknown>) | undefined;
}

/** One spawned agy process and the stream of its events. */
export class AgyProcess {
  /** The supervised child (signals, stdin, close, stderr tail). */
  readonly proc: AgentProcess;
  /** Everything the process does, in order; ends after its `exit`. One consumer. */
  readonly events = new EventQueue<AgyEvent>();
  /** The `init` handshake: `ready` resolves with agy's `init` or rejects with a `StartError`. */
  readonly start: StartHandshake;
  readonly #reader = new EventReader();

  constructor(o: AgyProcessSpec) {
    const events = this.events;
    const splitter = new LineSplitter({
      maxLineBytes: o.maxLineBytes,
      onLine: (line) => events.push(this.#read(line)),
      onOverflow: (head) => events.push({ type: 'line_too_long', head }),
    });
    this.proc = new AgentProcess({
      binary: o.binary,
      args: o.args,
      env: o.env,
      cwd: o.cwd,
      onStdout: (chunk) => splitter.push(chunk),
      onStdoutEnd: () => {
        const last = splitter.end();
        if (last !== undefined && last.trim() !== '') events.push(lastLine(last));
      },
      onStderrLine: (line) => events.push({ type: 'stderr', line }),
      onSpawn: (pid) => events.push({ type: 'spawned', pid }),
      startWork: o.startWork,
    });
    this.start = new StartHandshake(this.proc, o);
    void this.proc.exited.then((exit) => {
      events.push({ type: 'exit', exit });
      events.end();
    });
  }

  /** The event of one complete stdout line; never throws (a bad line is an event too). */
  #read(line: string): AgyEvent {
    if (line.length === 0) return { type: 'blank_line', line };
    return this.#reader.event(line);
  }
}

/**
 * The unterminated last line at stdout's end: delivered when it still parses, otherwise reported as
 * `truncated` (or `too_deep`), never thrown. Parsed in full (not from a delta template).
 */
function lastLine(line: string): AgyLineEvent {
  const parsed = parseEvent(line);
  if (!isBadLine(parsed)) return lineEvent(parsed, line);
  const reason = parsed.reason === 'too_deep' ? 'too_deep' : 'truncated';
  return { type: 'bad_line', line, bad: { ...parsed, reason } };
}

/**
 * Reads `p`'s events to its exit, each through `handle`. A throw while handling one drops that event (reported
 * through `onHandlerError` with the pipe it came from), never the stream or the host.
 */
export async function readEvents(
  p: AgyProcess,
  handle: (event: AgyEvent) => void,
  onHandlerError: (error: unknown, stream: 'stdout' | 'stderr') => void,
): Promise<void> {
  for await (const event of p.events) {
    try {
      handle(event);
    } catch (error) {
      onHandlerError(error, event.type === 'stderr' ? 'stderr' : 'stdout');
    }
  }
}
