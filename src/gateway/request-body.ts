/**
 * A client's JSON request body, read within bounds: at most `limit` bytes and {@link MAX_JSON_DEPTH} levels of
 * nesting. Whatever goes wrong is a Google-shaped `GatewayError` (413 for size, 400 otherwise).
 */
import type { IncomingMessage } from 'node:http';
import { GatewayError } from './errors.js';

/** Deepest JSON nesting accepted in a request; deeper is a 400 (Gemini's own request shapes nest a few dozen). */
export const MAX_JSON_DEPTH = 512;

/** The parsed body of `req` (`{}` when empty). Rejects with a `GatewayError` only. */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  try {
    const raw = await readRequestBody(req, limit);
    const body = raw.length === 0 ? {} : (JSON.parse(raw.toString('utf8')) as unknown);
    if (nestsDeeperThan(body, MAX_JSON_DEPTH))
      throw new GatewayError(
        400,
        `Invalid JSON payload received: nested deeper than ${MAX_JSON_DEPTH} levels.`,
        undefined,
        'INVALID_ARGUMENT',
      );
    return body;
  } catch (error) {
    throw error instanceof GatewayError ? error : new GatewayError(400, 'Invalid JSON payload received.');
  }
}

function readRequestBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new GatewayError(413, `request body exceeds ${limit} bytes`, undefined, 'INVALID_ARGUMENT'));
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Whether `value` nests deeper than `max` arrays/objects (iterative: a deep value must not exhaust the stack). */
function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}
