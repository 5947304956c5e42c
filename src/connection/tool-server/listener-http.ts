/**
 * Small response helpers for the listener. Every rejection has a fixed JSON body that says nothing about
 * why beyond the status, so a wrong token and an unknown path are indistinguishable.
 */
import { type ServerResponse, STATUS_CODES } from 'node:http';

const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** Sends `body` as JSON with `status`. Does nothing if the response has already started. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = NO_HEADERS,
): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  if (headers === NO_HEADERS) {
    // The usual answer: the head as one flat list, no per-call header object to build and walk.
    res.writeHead(status, [
      'Content-Type',
      'application/json',
      'Content-Length',
      String(Buffer.byteLength(text)),
      'Cache-Control',
      'no-store',
    ]);
    res.end(text);
    return;
  }
  const head: Record<string, string> = {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(text)),
    'Cache-Control': 'no-store',
  };
  for (const name in headers) head[name] = headers[name]!;
  res.writeHead(status, head);
  res.end(text);
}

/** Sends `{"error": "<reason phrase>"}` with `status`. */
export function sendStatus(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  sendJson(res, status, { error: STATUS_CODES[status] ?? 'Error' }, headers);
}

/** A JSON-RPC error response with no id, for MCP requests rejected before they were understood. */
export function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}
