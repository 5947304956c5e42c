/** A whole JSON response (model lists, unary answers, every HTTP error in Google's shape). */
import type { ServerResponse } from 'node:http';

/** Sends `body` as JSON with `status`; nothing when a response already started or the client went away. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=UTF-8',
    'content-length': Buffer.byteLength(payload),
  });
  res.end(payload);
}
