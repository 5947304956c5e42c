// biome-ignore-all lint/suspicious/noControlCharactersInRegex: matching control characters is what this file is for.
/**
 * Text from a model or a tool, made safe to print on a terminal. A model's answer (or a file a tool read) can
 * carry control sequences that a terminal obeys: OSC 52 writes the clipboard, OSC 0/2 retitle the window, SGR 8
 * hides text, a carriage return or cursor movement overwrites what was printed, and bidi overrides reorder it.
 * Every escape sequence (CSI, OSC, DCS, SOS/PM/APC, two-byte ESC forms, and their 8-bit C1 forms) is dropped
 * with its payload; any other control character but newline and tab becomes a visible `�`; bidi controls are
 * dropped. `TerminalTextFilter` does the same on a stream whose chunks may split a sequence.
 */

/** A sequence cut off at the end of a chunk is held at most this long before it is dropped as garbage. */
const MAX_PENDING = 4096;

// Complete sequences. OSC/DCS/SOS/PM/APC run to BEL or ST (ESC \ or U+009C); CSI to its final byte.
const STRING_SEQ = /(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[\s\S]*?(?:\u0007|\u001b\\|\u009c)/g;
const CSI_SEQ = /(?:\u001b\[|\u009b)[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]/g;
const ESC_SEQ = /\u001b[\u0020-\u002f]*[\u0030-\u007e]/g;
// A carriage return not ending a line moves the cursor back over what was printed.
const BARE_CR = /\r(?!\n)/g;
const OTHER_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const NEEDS_WORK = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

// The start of a sequence that may continue in the next chunk.
const OPEN_TAIL =
  /(?:(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])(?:(?!\u0007|\u001b\\|\u009c)[\s\S])*\u001b?|(?:\u001b\[|\u009b)[\u0030-\u003f]*[\u0020-\u002f]*|\u001b[\u0020-\u002f]*|\r)$/;

/** `text` with every terminal control sequence removed and stray control characters made visible. */
export function terminalSafe(text: string): string {
  if (!NEEDS_WORK.test(text)) return text;
  return text
    .replace(STRING_SEQ, '')
    .replace(CSI_SEQ, '')
    .replace(ESC_SEQ, '')
    .replace(BARE_CR, '')
    .replace(OTHER_CONTROL, '\ufffd')
    .replace(BIDI, '');
}

/**
 * `terminalSafe` for a stream: a sequence split across chunks is held back until its end arrives (or dropped
 * once it grows past 4 KiB, or at `end`).
 */
export class TerminalTextFilter {
  #pending = '';

  /** The printable part of `chunk` (with whatever was held from the previous one). */
  push(chunk: string): string {
    let text = this.#pending + chunk;
    this.#pending = '';
    const open = OPEN_TAIL.exec(text);
    if (open) {
      const tail = open[0];
      text = text.slice(0, text.length - tail.length);
      // A lone "\r" held back is a line ending when "\n" comes next; an over-long sequence is dropped.
      if (tail.length <= MAX_PENDING) this.#pending = tail;
    }
    return terminalSafe(text);
  }

  /** Ends the stream: a sequence still open is dropped (a held "\r" goes too: it ended no line). */
  end(): void {
    this.#pending = '';
  }
}
