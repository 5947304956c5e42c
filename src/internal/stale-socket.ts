/**
 * A request that failed because the kept-alive connection it reused was being closed by the server (its idle
 * timeout racing the reuse). Such a request never reached the server, so a client may send it once more on a
 * new connection: Node documents the case (`request.reusedSocket`), and Go's transport retries it. Only before
 * any answer, and only for a reset or a broken pipe.
 */
import type { ClientRequest } from 'node:http';

export function failedOnStaleSocket(
  request: ClientRequest,
  error: NodeJS.ErrnoException,
  answered: boolean,
): boolean {
  return !answered && request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
}
