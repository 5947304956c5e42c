/**
 * Optional peers: packages only one feature needs, loaded with a dynamic `import()` when that feature is used,
 * so a missing one is a `MissingPeerError` naming the install command instead of Node's bare "Cannot find
 * package".
 */

/** The one of `peers` Node could not find, when `error` is a module-not-found error for it (or a subpath). */
export function missingPeer(error: unknown, peers: readonly string[]): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return undefined;
  const message = error instanceof Error ? error.message : '';
  const name = /Cannot find (?:package|module) '([^']+)'/.exec(message)?.[1];
  return peers.find((peer) => name === peer || name?.startsWith(`${peer}/`));
}
