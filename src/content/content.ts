/**
 * Prompt content: text and media parts, as in the Python SDK (`Image`, `Document`, `Audio`, `Video`,
 * `from_file`). agy accepts text only, so media parts are written to private files and named in a text block
 * (see `materialize.ts`).
 */

import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { ContentError } from '../errors.js';
import { lookupMime } from './mime.js';
import { isSlashCommand, type SlashCommand } from './slash-command.js';

// The Python SDK's exact lists (docs/reference/design-sources.md#python-sdk-media-types).

/** Image MIME types accepted: the Python SDK's `SUPPORTED_IMAGE_MIMES`. */
export const SUPPORTED_IMAGE_MIMES: ReadonlySet<string> = new Set([
  'image/bmp',
  'image/jpeg',
  'image/png',
  'image/webp',
]);
/** Audio MIME types accepted: the Python SDK's `SUPPORTED_AUDIO_MIMES`. */
export const SUPPORTED_AUDIO_MIMES: ReadonlySet<string> = new Set([
  'audio/wav',
  'audio/x-wav',
  'audio/wave',
  'audio/vnd.wave',
  'audio/mp3',
  'audio/mp4',
  'audio/webm',
  'audio/aac',
  'audio/ogg',
  'audio/flac',
  'audio/opus',
  'audio/mpeg',
  'audio/m4a',
  'audio/l16',
]);
/** Video MIME types accepted: the Python SDK's `SUPPORTED_VIDEO_MIMES`. */
export const SUPPORTED_VIDEO_MIMES: ReadonlySet<string> = new Set([
  'video/3gpp',
  'video/avi',
  'video/mp4',
  'video/mpeg',
  'video/mpg',
  'video/quicktime',
  'video/webm',
  'video/wmv',
  'video/x-flv',
]);

/** The kinds of media part. */
export type MediaKind = 'image' | 'document' | 'audio' | 'video';

/** Init of a media part constructor. */
export interface MediaPartInit {
  /** The raw bytes. */
  data: Uint8Array;
  /** The MIME type; must be one the part's kind supports (else `ContentError`). */
  mimeType: string;
  /** Optional description shown to the model next to the file path. */
  description?: string;
  /** Optional file name (used, sanitized, for the written file). */
  name?: string;
}

/** Shared shape of media parts. */
abstract class MediaPart {
  /** The part's kind, used in the text block that names the file. */
  abstract readonly kind: MediaKind;
  /** The raw bytes. */
  readonly data: Uint8Array;
  /** The MIME type, e.g. `image/png`. */
  readonly mimeType: string;
  /** Optional description shown to the model next to the file path. */
  readonly description: string | undefined;
  /** Optional file name (used, sanitized, for the written file). */
  readonly name: string | undefined;

  constructor(kind: MediaKind, init: MediaPartInit) {
    if (!(init.data instanceof Uint8Array))
      throw new ContentError(`${kind} part: data must be a Uint8Array or Buffer`);
    if (typeof init.mimeType !== 'string') {
      throw new ContentError(`${kind} part: invalid mimeType ${JSON.stringify(init.mimeType)}`);
    }
    const mimeType = init.mimeType.toLowerCase();
    // The constructors and `fromBytes` share this check, so a part built either way is one agy can take.
    if (mediaKindOf(mimeType) !== kind) {
      throw new ContentError(
        `${kind} part: unsupported MIME type ${JSON.stringify(init.mimeType)}` +
          `${init.name ? ` (${init.name})` : ''}; ${supportedHint(kind)}`,
      );
    }
    this.data = init.data;
    this.mimeType = mimeType;
    this.description = init.description;
    this.name = init.name;
  }
}

/** An image (bmp, jpeg, png, webp). */
export class Image extends MediaPart {
  readonly kind = 'image' as const;
  /** Throws `ContentError` unless `mimeType` is a supported image type (`SUPPORTED_IMAGE_MIMES`). */
  constructor(init: MediaPartInit) {
    super('image', init);
  }
}
/**
 * A document: the Python SDK's document types (PDF, JSON, CSS, CSV, HTML, JavaScript, plain text, RTF, XML) and,
 * beyond them, every other `text/*` type and a few textual `application/*` ones (Markdown, YAML, scripts).
 */
export class Document extends MediaPart {
  readonly kind = 'document' as const;
  /** Throws `ContentError` unless `mimeType` is a document type (`text/*`, PDF, JSON, XML, YAML, scripts). */
  constructor(init: MediaPartInit) {
    super('document', init);
  }
}
/** An audio clip. */
export class Audio extends MediaPart {
  readonly kind = 'audio' as const;
  /** Throws `ContentError` unless `mimeType` is a supported audio type (`SUPPORTED_AUDIO_MIMES`). */
  constructor(init: MediaPartInit) {
    super('audio', init);
  }
}
/** A video clip. */
export class Video extends MediaPart {
  readonly kind = 'video' as const;
  /** Throws `ContentError` unless `mimeType` is a supported video type (`SUPPORTED_VIDEO_MIMES`). */
  constructor(init: MediaPartInit) {
    super('video', init);
  }
}

/** A media part. */
export type MediaContent = Image | Document | Audio | Video;
/** One prompt part: text, media, or a slash command (alone). */
export type ContentPart = string | MediaContent | SlashCommand;
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

/** The part kind that takes a MIME type (lower case), or `undefined` when none does. */
export function mediaKindOf(mimeType: string): MediaKind | undefined {
  if (SUPPORTED_IMAGE_MIMES.has(mimeType)) return 'image';
  if (SUPPORTED_AUDIO_MIMES.has(mimeType)) return 'audio';
  if (SUPPORTED_VIDEO_MIMES.has(mimeType)) return 'video';
  if (isDocumentMime(mimeType)) return 'document';
  return undefined;
}

function supportedHint(kind: MediaKind): string {
  const set =
    kind === 'image'
      ? SUPPORTED_IMAGE_MIMES
      : kind === 'audio'
        ? SUPPORTED_AUDIO_MIMES
        : kind === 'video'
          ? SUPPORTED_VIDEO_MIMES
          : undefined;
  return set ? `supported: ${[...set].join(', ')}` : 'supported: text/*, PDF, JSON, XML, YAML, scripts';
}

/** Builds the right part for bytes of a MIME type, or throws `ContentError` for an unsupported type. */
export function fromBytes(
  data: Uint8Array,
  mimeType: string,
  opts: { description?: string; name?: string } = {},
): MediaContent {
  const m = typeof mimeType === 'string' ? mimeType.toLowerCase() : '';
  const init = { data, mimeType: m, ...opts };
  switch (mediaKindOf(m)) {
    case 'image':
      return new Image(init);
    case 'audio':
      return new Audio(init);
    case 'video':
      return new Video(init);
    case 'document':
      return new Document(init);
    default:
      throw new ContentError(
        `unsupported MIME type ${JSON.stringify(mimeType)}${opts.name ? ` (${opts.name})` : ''}`,
      );
  }
}

/** Reads a file and picks the part type from its MIME type (by extension). */
export async function fromFile(
  path: string,
  opts: { description?: string; mimeType?: string } = {},
): Promise<MediaContent> {
  const mimeType = opts.mimeType ?? lookupMime(path);
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
    typeof content === 'string' || isMediaContent(content) || isSlashCommand(content)
      ? [content]
      : Array.isArray(content)
        ? [...content]
        : [];
  if (
    !Array.isArray(content) &&
    typeof content !== 'string' &&
    !isMediaContent(content) &&
    !isSlashCommand(content)
  ) {
    throw new ContentError('prompt must be a string, a media part, or a list of them');
  }
  parts.forEach((p, i) => {
    if (typeof p !== 'string' && !isMediaContent(p) && !isSlashCommand(p))
      throw new ContentError(`prompt part ${i} is neither text, a media part nor a slash command`);
  });
  if (parts.some(isSlashCommand) && parts.length > 1)
    throw new ContentError('a slash command is a prompt of its own: send it alone');
  const hasContent = parts.some((p) =>
    typeof p === 'string' ? p.trim().length > 0 : isSlashCommand(p) || p.data.length > 0,
  );
  if (!hasContent) throw new ContentError('prompt is empty');
  return parts;
}
