/**
 * Requires a package as the MCP SDK resolves it (from its own place in node_modules), so the version found is
 * the one the SDK depends on: for the simulator's lazy stand-ins of what the SDK's client imports.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let fromSdk: NodeJS.Require | undefined;

/** `require(id)` from the MCP SDK's client. */
export function requireAsMcpSdk(id: string): unknown {
  fromSdk ??= createRequire(require.resolve('@modelcontextprotocol/sdk/client/index.js'));
  return fromSdk(id);
}
