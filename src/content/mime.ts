/**
 * MIME types by file name and file extensions by MIME type (`mime-types`), loaded on first use: its database is
 * about 16 ms of `import 'agy-sdk'`, and only media parts read from files or written out need it.
 */
import { createRequire } from 'node:module';

type MimeTypes = typeof import('mime-types');

let loaded: MimeTypes | undefined;
const mimeTypes = (): MimeTypes => {
  loaded ??= createRequire(import.meta.url)('mime-types') as MimeTypes;
  return loaded;
};

/** The MIME type of a file name or path by its extension, or `false` when unknown. */
export function lookupMime(path: string): string | false {
  return mimeTypes().lookup(path);
}

/** The usual file extension of a MIME type (without the dot), or `false` when unknown. */
export function mimeExtension(mimeType: string): string | false {
  return mimeTypes().extension(mimeType);
}
