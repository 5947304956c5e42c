/**
 * The CLI's one-line spinner (in place of nanospinner, which divides by the terminal's width, so a pty that
 * reports 0 columns made it loop, and which exits the process on SIGINT before a turn can print its closing
 * line). It draws one line, cut to the terminal's width, and redraws it with `\r` + erase-line, so it never
 * wraps and never needs to count lines; with no usable width (0 or unknown columns) it does not animate at all.
 * It installs no signal handlers, and its timer is unref'd and always cleared by `stop`.
 * Under an open line (the answer stopped mid-sentence while the model thinks) it draws on the row below instead
 * and puts the cursor back after each frame (`below`), so the answer's next words continue where they stopped.
 */

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const INTERVAL_MS = 80;
const HIDE_CURSOR = '\u001b[?25l';
const SHOW_CURSOR = '\u001b[?25h';
const CLEAR_LINE = '\r\u001b[2K';
/** DECSC / DECRC: save and restore the cursor (row, column, attributes). */
const SAVE_CURSOR = '\u001b7';
const RESTORE_CURSOR = '\u001b8';
/**
 * IND then RI: down a row (scrolling at the bottom) and back up, keeping the column. After it there is a row
 * below the cursor, and the cursor is still at the end of its text (which moved up with the scroll).
 */
const MAKE_ROOM_BELOW = '\u001bD\u001bM';
/** IND: the row below, same column (no `\n`, which the tty turns into CR LF). */
const DOWN = '\u001bD';

/** Options for {@link Spinner}. */
export interface SpinnerOptions {
  /** Paints the frame (colour). */
  paint?: (frame: string) => string;
  /** Paints the elapsed-time suffix (dim). */
  dim?: (text: string) => string;
  /** Shows `label 1.2s` counting from `since` (epoch ms). */
  since?: number;
  /**
   * Draws on the row below the cursor and restores the cursor after each frame and on stop: for a wait while
   * a line of the answer is still open. `stop(final)` then prints nothing in its place (the open line owns it).
   */
  below?: boolean;
}

/** The usable width of `stream`: its columns when it reports a positive number, else undefined. */
export function usableColumns(stream: NodeJS.WritableStream): number | undefined {
  const columns = (stream as NodeJS.WriteStream).columns;
  return typeof columns === 'number' && Number.isFinite(columns) && columns > 0 ? columns : undefined;
}

/** Cuts `text` (no control sequences) to `width` characters. */
function fitWidth(text: string, width: number): string {
  const chars = Array.from(text);
  return chars.length > width ? `${chars.slice(0, Math.max(0, width - 1)).join('')}…` : text;
}

/** A live status line on `stream`. */
export class Spinner {
  readonly #stream: NodeJS.WritableStream;
  readonly #label: string;
  readonly #paint: (frame: string) => string;
  readonly #dim: (text: string) => string;
  readonly #since: number | undefined;
  readonly #below: boolean;
  #frame = 0;
  #timer: NodeJS.Timeout | undefined;
  #drawn = false;

  /** Starts drawing `label` (plain text, already made terminal-safe) at once. */
  constructor(stream: NodeJS.WritableStream, label: string, options: SpinnerOptions = {}) {
    this.#stream = stream;
    this.#label = label;
    this.#paint = options.paint ?? ((s) => s);
    this.#dim = options.dim ?? ((s) => s);
    this.#since = options.since;
    this.#below = options.below === true;
    if (usableColumns(stream) === undefined) return;
    this.#stream.write(this.#below ? `${HIDE_CURSOR}${MAKE_ROOM_BELOW}` : HIDE_CURSOR);
    this.#draw();
    this.#timer = setInterval(() => this.#draw(), INTERVAL_MS);
    this.#timer.unref();
  }

  /**
   * Erases the line (when one was drawn) and, given `final`, prints it in its place (not `below`: the cursor is
   * back on the open line). Idempotent.
   */
  stop(final?: string): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    if (this.#drawn) {
      this.#stream.write(
        this.#below
          ? `${SAVE_CURSOR}${DOWN}${CLEAR_LINE}${RESTORE_CURSOR}${SHOW_CURSOR}`
          : `${CLEAR_LINE}${SHOW_CURSOR}`,
      );
      this.#drawn = false;
    }
    if (final !== undefined && !this.#below) this.#stream.write(`${final}\n`);
  }

  /**
   * Prints `line` where the spinner is and draws the spinner again under it: a line that arrives while the
   * spinner runs never lands inside its row. Not for a `below` spinner (the open line must end first).
   */
  print(line: string): void {
    if (this.#drawn) this.#stream.write(CLEAR_LINE);
    this.#stream.write(`${line}\n`);
    if (this.#drawn) this.#draw();
  }

  #draw(): void {
    const width = usableColumns(this.#stream);
    if (width === undefined) return;
    const elapsed = this.#since === undefined ? '' : ` ${formatElapsed(Date.now() - this.#since)}`;
    // Frame, space, label, elapsed: one line, one column short of the edge so the cursor never wraps.
    const room = Math.max(0, width - 3 - elapsed.length);
    const text = `${this.#paint(FRAMES[this.#frame] ?? '')} ${fitWidth(this.#label, room)}${this.#dim(elapsed)}`;
    this.#frame = (this.#frame + 1) % FRAMES.length;
    this.#stream.write(
      this.#below ? `${SAVE_CURSOR}${DOWN}${CLEAR_LINE}${text}${RESTORE_CURSOR}` : `${CLEAR_LINE}${text}`,
    );
    this.#drawn = true;
  }
}

/** `0.4s`, `12.3s`, `2m05s`. */
export function formatElapsed(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 60) return `${s.toFixed(1)}s`;
  const m = Math.floor(s / 60);
  return `${m}m${String(Math.floor(s % 60)).padStart(2, '0')}s`;
}
