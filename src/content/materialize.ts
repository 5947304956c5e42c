/**
 * agy's stdin accepts only text blocks: an image block fails the whole line (docs/reference/stream-json.md#text-blocks-only). So each
 * media part is written to a private file in the session directory and replaced by a text block naming it.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type ContentPart, isMediaContent } from './content.js';
import { mimeExtension } from './mime.js';

let sequence = 0;

/** A media part written to a file, with the text block naming it (for backends that take the part natively). */
export interface MaterializedMedia {
  /** The text block naming the file. */
  ref: string;
  /** The part's kind. */
  kind: 'image' | 'document' | 'audio' | 'video';
  /** Its MIME type. */
  mimeType: string;
  /** Its bytes. */
  data: Uint8Array;
  /** The file. */
  file: string;
}

/** A file name that cannot escape the attachments directory and has no hidden segment. */
export function safeFileName(name: string | undefined, mimeType: string): string {
  const ext = mimeExtension(mimeType) || 'bin';
  const base = (name ?? '')
    .split(/[\\/]/)
    .pop()!
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/^[.]+/, '')
    .slice(0, 80);
  return base ? (base.includes('.') ? base : `${base}.${ext}`) : `attachment.${ext}`;
}

/**
 * Converts parts to agy text blocks, writing media parts (mode 0600) under `attachmentsDir`.
 * @param attachmentsDir Creates the attachments directory (0700) on first use.
 * @param onMedia Sees each file once it is written, and is awaited before the next part (so a file is
 *   recorded, e.g. in the agent's `AttachmentFiles`, before the prompt naming it is sent).
 */
export async function materialize(
  parts: readonly ContentPart[],
  attachmentsDir: () => Promise<string>,
  onMedia?: (media: MaterializedMedia) => void | Promise<void>,
): Promise<string[]> {
  const blocks: string[] = [];
  for (const part of parts) {
    if (typeof part === 'string') {
      blocks.push(part);
      continue;
    }
    if (!isMediaContent(part)) continue;
    const dir = await attachmentsDir();
    const file = join(dir, `${++sequence}-${safeFileName(part.name, part.mimeType)}`);
    await writeFile(file, part.data, { mode: 0o600, flag: 'wx' });
    const desc = part.description ? ` — ${part.description}` : '';
    const ref = `[Attached ${part.kind} (${part.mimeType}) at ${file}${desc}. Read it with view_file.]`;
    blocks.push(ref);
    await onMedia?.({ ref, kind: part.kind, mimeType: part.mimeType, data: part.data, file });
  }
  return blocks;
}
