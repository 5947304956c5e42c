/**
 * The MCP SDK's client as the simulator loads it: from the CommonJS bundle the build makes of it beside the
 * simulator (`mcp-client.cjs`, scripts/postbuild.mjs), compiled with the V8 code cache the build wrote next to it
 * (`mcp-client.code-cache`). Every simulator with an MCP server configured (every session with own tools) loads
 * it right after `init`: as one ES module it cost ~106 ms of CPU per process, this way ~39 (with the lazy
 * stand-ins scripts/postbuild.mjs puts in the bundle; Node 20), an artefact of the stand-in that real agy, one
 * Go binary, does not pay. A cache V8 refuses (another Node, other flags) is only slower; without the
 * bundle (a build without rolldown), the package is imported from node_modules.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** What the simulator takes from the MCP SDK's client. */
export interface McpClientModule {
  /** The SDK's `Client`. */
  Client: typeof Client;
  /** The SDK's stdio transport. */
  StdioClientTransport: typeof StdioClientTransport;
  /** The SDK's Streamable HTTP transport. */
  StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
}

/** The bundle the build makes, beside this module (or beside the one-file simulator). */
export const MCP_CLIENT_BUNDLE = fileURLToPath(new URL('./mcp-client.cjs', import.meta.url));
/** The V8 code cache of {@link MCP_CLIENT_BUNDLE}, written by the build. */
export const MCP_CLIENT_CODE_CACHE = fileURLToPath(new URL('./mcp-client.code-cache', import.meta.url));

// node:vm is required when the client is loaded, not with the simulator: it is not among what Node loads to
// boot, and a simulator without MCP servers never needs it (~0.9 ms of CPU).
const require = createRequire(import.meta.url);

let loaded: Promise<McpClientModule> | undefined;
/** How the client was loaded, once it was. */
let how: McpClientLoad | undefined;

/** How this process loaded the client: from the bundle with its code cache taken or refused, or the package. */
export type McpClientLoad =
  | 'bundle, code cache accepted'
  | 'bundle, code cache rejected'
  | 'bundle, no code cache'
  | 'package';

/** How {@link loadMcpClient} loaded the client in this process (undefined before it did). */
export function mcpClientLoad(): McpClientLoad | undefined {
  return how;
}

/**
 * The MCP SDK's client, loaded once per process. zod is set jitless first: it compiles a fast path for each
 * object schema on its first parse (`new Function`), worth it for a schema parsed often, not for the handful
 * of messages a simulator's client parses (~10 ms of CPU less per simulator to list and call a tool). zod
 * keeps that setting on `globalThis` for every copy in the process; the simulator itself uses none.
 */
export function loadMcpClient(): Promise<McpClientModule> {
  setZodJitless();
  loaded ??= existsSync(MCP_CLIENT_BUNDLE)
    ? Promise.resolve().then(() => {
        const cache = readCache();
        const { script, exports } = runBundle(MCP_CLIENT_BUNDLE, cache);
        how = !cache
          ? 'bundle, no code cache'
          : script.cachedDataRejected
            ? 'bundle, code cache rejected'
            : 'bundle, code cache accepted';
        return exports;
      })
    : fromPackage().then((exports) => {
        how = 'package';
        return exports;
      });
  return loaded;
}

/**
 * Runs the bundle once without a cache, then `exercise`, and writes the code cache of everything compiled by
 * then. During `exercise`, {@link loadMcpClient} answers this run of the bundle, so the simulator's own code
 * (its `McpHub`) can drive it. The build calls this in a Node started without flags (the simulator's one
 * flag, `--no-memory-reducer`, is not in V8's flag hash, so V8 accepts the cache there). V8 caches the
 * bytecode of every function compiled so far, so what the exercise runs is not compiled again in each
 * simulator: the build connects a hub to a real session listener and calls a tool
 * (scripts/write-mcp-client-cache.mjs), ~7 ms of CPU less per session start than a cache of the load alone
 * (of ~85 for the client's load, connect and list).
 */
export async function writeMcpClientCodeCache(
  exercise?: () => Promise<void>,
  file: string = MCP_CLIENT_CODE_CACHE,
): Promise<void> {
  setZodJitless(); // as in a simulator, so the exercise compiles the paths a simulator runs
  const { script, exports } = runBundle(MCP_CLIENT_BUNDLE, undefined);
  loaded = Promise.resolve(exports);
  how = 'bundle, no code cache';
  await exercise?.();
  writeFileSync(file, script.createCachedData());
}

function setZodJitless(): void {
  const zod = globalThis as { __zod_globalConfig?: { jitless?: boolean } };
  zod.__zod_globalConfig ??= {};
  zod.__zod_globalConfig.jitless ??= true;
}

function readCache(): Buffer | undefined {
  try {
    return readFileSync(MCP_CLIENT_CODE_CACHE);
  } catch {
    return undefined; // no cache (or unreadable): compiled from source, only slower
  }
}

/** Evaluates the CommonJS bundle `file` in this context, as Node's loader would wrap it. */
function runBundle(
  file: string,
  cachedData: Buffer | undefined,
): { script: import('node:vm').Script; exports: McpClientModule } {
  const vm = require('node:vm') as typeof import('node:vm');
  const source = `(function (exports, require, module, __filename, __dirname) {${readFileSync(file, 'utf8')}\n})`;
  const script = new vm.Script(source, {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const module = { exports: {} as McpClientModule };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper(module.exports, createRequire(file), module, file, dirname(file));
  return { script, exports: module.exports };
}

async function fromPackage(): Promise<McpClientModule> {
  const [{ Client }, { StdioClientTransport }, { StreamableHTTPClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
  return { Client, StdioClientTransport, StreamableHTTPClientTransport };
}
