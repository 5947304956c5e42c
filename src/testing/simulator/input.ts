/**
 * stdin: JSON lines split on `\n` only (a trailing `\r` is dropped), decoded as UTF-8 across chunk boundaries,
 * then classified by the rules of agy's headless doc (docs/reference/stream-json.md#input-errors).
 */
import { StringDecoder } from 'node:string_decoder';
import { PRINT_MODE_COMMANDS } from '../../content/slash-command.js';

/** What one stdin line asks for. */
export type InputLine =
  /** Run a turn with this prompt. */
  | { kind: 'user'; prompt: string }
  /** Bad input: a `result` ERROR with this error, then exit 1. */
  | { kind: 'fatal'; error: string }
  /**
   * Unsupported input (control messages, slash commands): this stderr error, then exit 2; `result` set when agy
   * also writes a `result` ERROR with it first (slash text, 1.3.1).
   */
  | { kind: 'unsupported'; error: string; result?: boolean }
  /** An unknown event: a stderr warning, and the line is skipped. */
  | { kind: 'skip'; warning: string }
  /** An empty line: ignored silently. */
  | { kind: 'blank' };

/** Splits a byte stream into lines; the caller gets each complete line, and the unterminated rest at the end. */
export class LineSplitter {
  readonly #decoder = new StringDecoder('utf8');
  #pending = '';

  /** Feeds a chunk; returns the lines it completed. */
  push(chunk: Buffer | string): string[] {
    this.#pending += typeof chunk === 'string' ? chunk : this.#decoder.write(chunk);
    const parts = this.#pending.split('\n');
    this.#pending = parts.pop() as string;
    return parts.map(stripCr);
  }

  /** Ends the stream; returns a last line that had no newline, if any. */
  end(): string[] {
    const last = this.#pending + this.#decoder.end();
    this.#pending = '';
    return last === '' ? [] : [stripCr(last)];
  }
}

function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

/** agy's print-mode commands (docs/reference/stream-json.md#slash-commands): the SDK's one list. */
const KNOWN_COMMANDS: ReadonlySet<string> = new Set(PRINT_MODE_COMMANDS);

/** Events agy refuses on stdin with exit 2 (Claude-style control messages have no equivalent). */
const CONTROL_EVENTS = new Set(['control_request', 'control_response']);

/**
 * Classifies one stdin line.
 *
 * @param slashCommands which prompts starting with `/` are (refused) slash commands: `all` (up to 1.3.1), `known`
 *   (1.3.2: only agy's own commands; other slash text is a prompt, agy-real/littlebearapps-untether-agy-1.3.1/
 *   slash_prompt_literal.script), `none` (`--disable-slash-commands`).
 */
export function classifyLine(line: string, slashCommands: 'all' | 'known' | 'none'): InputLine {
  if (line.trim() === '') return { kind: 'blank' };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return { kind: 'fatal', error: `failed to parse stream input line: ${(err as Error).message}` };
  }
  if (!isObj(value) || typeof value.event !== 'string' || value.event === '') {
    // agy-real/joiomi-playbook-plugin-agy-1.3.1/error-missing-event.stdout
    return { kind: 'fatal', error: 'stream input message is missing the "event" field' };
  }
  const event = value.event;
  if (CONTROL_EVENTS.has(event)) {
    return { kind: 'unsupported', error: `stream input event "${event}" is not supported yet` };
  }
  if (event !== 'user') {
    return { kind: 'skip', warning: `warning: ignoring unknown stream input event "${event}"` };
  }
  const message = value.message;
  if (!isObj(message)) return { kind: 'fatal', error: 'stream input "user" event has no "message"' };
  const prompt = promptOf(message.content);
  if (typeof prompt !== 'string') return prompt;
  if (slashCommands !== 'none' && prompt.trimStart().startsWith('/')) {
    const command = prompt.trimStart().split(/\s/, 1)[0] ?? '/';
    // agy 1.3.1's words (agy-real/littlebearapps-untether-agy-1.3.1/stream_slash_fatal.script).
    if (slashCommands === 'all' || KNOWN_COMMANDS.has(command.slice(1))) {
      return {
        kind: 'unsupported',
        error: `${command} is answered by the CLI itself and is unavailable with --input-format stream-json; run it as its own --print ${command} invocation`,
        result: true,
      };
    }
  }
  return { kind: 'user', prompt };
}

/** The prompt text of a message's content, or the fatal error the content earns. */
function promptOf(content: unknown): string | InputLine {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) {
    return {
      kind: 'fatal',
      error: 'stream input message content must be a string or an array of content blocks',
    };
  }
  const texts: string[] = [];
  for (const block of content) {
    const type = isObj(block) && typeof block.type === 'string' ? block.type : '';
    if (type !== 'text') {
      return { kind: 'fatal', error: `stream input content block type "${type}" is not supported` };
    }
    const text = (block as Record<string, unknown>).text;
    if (typeof text !== 'string') return { kind: 'fatal', error: 'stream input text block has no "text"' };
    texts.push(text);
  }
  return texts.join('\n');
}

function isObj(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
