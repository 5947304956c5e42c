/**
 * Reads a request body up to a byte limit. A declared `Content-Length` over the limit is refused before a
 * byte is read; a chunked body is counted as it arrives and abandoned at the first byte over the limit, so
 * an oversized body is never held in memory.
 */
import type { IncomingMessage } from 'node:http';

/** The listener's default body limit: 4 MiB, the same as the MCP SDK's. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** The outcome of {@link readBody}. */
export type BodyResult = { ok: true; body: Buffer } | { ok: false; reason: 'too_large' };

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
  if (Number.isFinite(declared) && declared > maxBytes)
    return Promise.resolve({ ok: false, reason: 'too_large' });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        cleanup();
        // Stop reading; the caller answers 413 and closes the connection.
        req.pause();
        chunks.length = 0;
        resolve({ ok: false, reason: 'too_large' });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve({ ok: true, body: Buffer.concat(chunks, size) });
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onClose = () => {
      // 'close' before 'end' means the client went away mid-body.
      cleanup();
      reject(new Error('request aborted before its body was complete'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}
