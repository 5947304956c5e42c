/**
 * Reads a request body up to a byte limit. A declared `Content-Length` over the limit is refused before a
 * byte is read; a chunked body is counted as it arrives and abandoned at the first byte over the limit, so
 * an oversized body is never held in memory.
 *
 * This is on every tool call's path, so it settles once and leaves its four listeners in place rather than
 * removing them (the request object is dropped with them when its exchange ends; a late `error` on it goes to
 * the settled handler, never unhandled), and a body that arrives in one chunk (almost every JSON-RPC POST) is
 * used as it is, with no array and no copy.
 */
import type { IncomingMessage } from 'node:http';

/** The listener's default body limit: 4 MiB, the same as the MCP SDK's. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** The outcome of {@link readBody}. */
export type BodyResult = { ok: true; body: Buffer } | { ok: false; reason: 'too_large' };

const TOO_LARGE: BodyResult = Object.freeze({ ok: false, reason: 'too_large' });
const EMPTY = Buffer.alloc(0);

/**
 * Reads all of `req` if it fits in `maxBytes`; `contentLength` is its `Content-Length` header, if any. Rejects
 * if the client aborts or the stream fails.
 */
export function readBody(
  req: IncomingMessage,
  maxBytes: number,
  contentLength: string | undefined,
): Promise<BodyResult> {
  const declared = Number(contentLength);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve(TOO_LARGE);
  return new Promise((resolve, reject) => {
    let first: Buffer | undefined;
    let rest: Buffer[] | undefined;
    let size = 0;
    let settled = false;
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > maxBytes) {
        settled = true;
        // Stop reading; the caller answers 413 and closes the connection.
        req.pause();
        first = undefined;
        rest = undefined;
        resolve(TOO_LARGE);
      } else if (first === undefined) first = chunk;
      else if (rest === undefined) rest = [first, chunk];
      else rest.push(chunk);
    });
    req.on('end', () => {
      if (settled) return;
      settled = true;
      resolve({ ok: true, body: rest !== undefined ? Buffer.concat(rest, size) : (first ?? EMPTY) });
    });
    req.on('error', (error: Error) => {
      if (settled) return;
      settled = true;
      reject(error);
    });
    req.on('close', () => {
      if (settled) return;
      // 'close' before 'end' means the client went away mid-body.
      settled = true;
      reject(new Error('request aborted before its body was complete'));
    });
  });
}
