/**
 * `cross-spawn` for the simulator's bundled MCP client (scripts/postbuild.mjs puts this in place of the package
 * the SDK's stdio transport imports): the same package, required from node_modules when the first stdio server
 * is spawned instead of when the client is loaded. Loaded, it requires `node:child_process` (with `net`'s
 * `dgram` and the rest) and its own helpers: ~3 ms of CPU in every simulator that connects an MCP server, most
 * of which connect only over HTTP (the session's own tools always do).
 */
import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { requireAsMcpSdk } from './mcp-sdk-require.js';

type CrossSpawn = (command: string, args?: readonly string[], options?: SpawnOptions) => ChildProcess;

/** The package's default export, loaded on the first call. */
export default function spawn(
  command: string,
  args?: readonly string[],
  options?: SpawnOptions,
): ChildProcess {
  return (requireAsMcpSdk('cross-spawn') as CrossSpawn)(command, args, options);
}
