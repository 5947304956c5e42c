/**
 * Prompt content: text and media parts, as in the Python SDK (`Image`, `Document`, `Audio`, `Video`,
 * `from_file`). agy accepts text only, so media parts are written to private files and named in a text block
 * (see `materialize.ts`).
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import mime from 'mime-types';
import { ContentError } from '../errors.js';

/** Image MIME types accepted (as in the Python SDK). */
export const SUPPORTED_IMAGE_MIMES: ReadonlySet<string> = new Set([
  'image/bmp',
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/gif',
]);
/** Audio MIME types accepted. */
export const SUPPORTED_AUDIO_MIMES: ReadonlySet<string> = new Set([
  'audio/wav',
  'audio/x-wav',
  'audio/wave',
  'audio/mp3',
  'audio/mpeg',
  'audio/ogg',
  'audio/flac',
  'audio/aac',
  'audio/webm',
]);
/** Video MIME types accepted. */
export const SUPPORTED_VIDEO_MIMES: ReadonlySet<string> = new Set([
  'video/mp4',
  'video/webm',
  'video/quicktime',
  'video/mpeg',
  'video/x-msvideo',
]);

/** Shared shape of media parts. */
abstract class MediaPart {
  /** The part's kind, used in the text block that names the file. */
  abstract readonly kind: 'image' | 'document' | 'audio' | 'video';
  /** The raw bytes. */
  readonly data: Uint8Array;
  /** The MIME type, e.g. `image/png`. */
  readonly mimeType: string;
  /** Optional description shown to the model next to the file path. */
  readonly description: string | undefined;
  /** Optional file name (used, sanitized, for the written file). */
  readonly name: string | undefined;

  constructor(init: { data: Uint8Array; mimeType: string; description?: string; name?: string }) {
    if (!(init.data instanceof Uint8Array))
      throw new ContentError('media part: data must be a Uint8Array or Buffer');
    if (typeof init.mimeType !== 'string' || !init.mimeType.includes('/')) {
      throw new ContentError(`media part: invalid mimeType ${JSON.stringify(init.mimeType)}`);
    }
    this.data = init.data;
    this.mimeType = init.mimeType.toLowerCase();
    this.description = init.description;
    this.name = init.name;
  }
}

/** An image (bmp, jpeg, png, webp, gif). */
export class Image extends MediaPart {
  readonly kind = 'image' as const;
}
/** A document: PDF, JSON, plain text, Markdown, CSV, HTML, source code and similar. */
export class Document extends MediaPart {
  readonly kind = 'document' as const;
}
/** An audio clip. */
export class Audio extends MediaPart {
  readonly kind = 'audio' as const;
}
/** A video clip. */
export class Video extends MediaPart {
  readonly kind = 'video' as const;
}

/** A media part. */
export type MediaContent = Image | Document | Audio | Video;
/** One prompt part: text or media. */
export type ContentPart = string | MediaContent;
/** A prompt: a string, one media part, or a list of parts. */
export type Content = ContentPart | readonly ContentPart[];

function isDocumentMime(m: string): boolean {
  return (
    m.startsWith('text/') ||
    m === 'application/pdf' ||
    m === 'application/json' ||
    m === 'application/xml' ||
    m === 'application/x-yaml' ||
    m === 'application/yaml' ||
    m === 'application/javascript' ||
    m === 'application/typescript' ||
    m === 'application/x-sh'
  );
}

/** Builds the right part for bytes of a MIME type, or throws `ContentError` for an unsupported type. */
export function fromBytes(
  data: Uint8Array,
  mimeType: string,
  opts: { description?: string; name?: string } = {},
): MediaContent {
  const m = mimeType.toLowerCase();
  const init = { data, mimeType: m, ...opts };
  if (SUPPORTED_IMAGE_MIMES.has(m)) return new Image(init);
  if (SUPPORTED_AUDIO_MIMES.has(m)) return new Audio(init);
  if (SUPPORTED_VIDEO_MIMES.has(m)) return new Video(init);
  if (isDocumentMime(m)) return new Document(init);
  throw new ContentError(
    `unsupported MIME type ${JSON.stringify(mimeType)}${opts.name ? ` (${opts.name})` : ''}`,
  );
}

/** Reads a file and picks the part type from its MIME type (by extension). */
export async function fromFile(
  path: string,
  opts: { description?: string; mimeType?: string } = {},
): Promise<MediaContent> {
  const mimeType = opts.mimeType ?? mime.lookup(path);
  if (!mimeType) throw new ContentError(`cannot tell the MIME type of ${path}; pass { mimeType }`);
  let data: Buffer;
  try {
    data = await readFile(path);
  } catch (err) {
    throw new ContentError(`cannot read ${path}: ${(err as Error).message}`, { cause: err });
  }
  return fromBytes(data, mimeType, {
    name: basename(path),
    ...(opts.description !== undefined && { description: opts.description }),
  });
}

/** True for a media part. */
export function isMediaContent(v: unknown): v is MediaContent {
  return v instanceof MediaPart;
}

/** Normalizes a prompt to a list of parts and rejects empty or malformed prompts. */
export function contentParts(content: Content): ContentPart[] {
  const parts: ContentPart[] =
    typeof content === 'string' || isMediaContent(content)
      ? [content]
      : Array.isArray(content)
        ? [...content]
        : [];
  if (!Array.isArray(content) && typeof content !== 'string' && !isMediaContent(content)) {
    throw new ContentError('prompt must be a string, a media part, or a list of them');
  }
  parts.forEach((p, i) => {
    if (typeof p !== 'string' && !isMediaContent(p))
      throw new ContentError(`prompt part ${i} is neither text nor a media part`);
  });
  const hasContent = parts.some((p) => (typeof p === 'string' ? p.trim().length > 0 : p.data.length > 0));
  if (!hasContent) throw new ContentError('prompt is empty');
  return parts;
}
