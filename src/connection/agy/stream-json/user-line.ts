/** The one line a turn writes to agy's stdin (docs/reference/stream-json.md#envelope). */
import type { WireUserLine } from '../../../protocol/stream-json-wire.js';

/**
 * Prompt text is never a command: agy refuses text starting with `/` on stdin (1.3.1: `result` ERROR "… is
 * answered by the CLI itself …", exit 2; agy-real/littlebearapps-untether-agy-1.3.1/stream_slash_fatal.script), so
 * such a first block is sent behind a zero-width space (U+200B, which neither agy's trimming nor the model
 * reads as anything). docs/reference/stream-json.md#slash-commands.
 */
export function literalText(text: readonly string[]): string[] {
  const first = text.findIndex((t) => t.trim() !== '');
  if (first < 0 || !text[first]!.trimStart().startsWith('/')) return [...text];
  return text.map((t, i) => (i === first ? `\u200b${t}` : t));
}

/** The user line of a turn's text blocks, serialized (without the newline). */
export function userLine(text: readonly string[]): string {
  const line: WireUserLine = {
    event: 'user',
    message: {
      role: 'user',
      content: literalText(text).map((t) => ({ type: 'text' as const, text: t })),
    },
  };
  return JSON.stringify(line);
}
