/**
 * `eventsource-parser/stream` for the simulator's bundled MCP client (scripts/postbuild.mjs puts it in place of
 * the module the SDK's Streamable HTTP transport imports): the same package's `EventSourceParserStream`, loaded
 * from node_modules when the first SSE answer is read instead of when the client is. The package defines it as
 * `class extends TransformStream`, and touching that global makes Node 20 load its web streams (~3.7 ms of CPU
 * in every simulator that connects an MCP server), although a server answering JSON, as the SDK's own
 * listener does, never sends one.
 */
import { requireAsMcpSdk } from './mcp-sdk-require.js';

/** What the stream's constructor takes (the package's `ParserStreamOptions`, unchecked here). */
export type ParserStreamOptions = Record<string, unknown>;

type StreamClass = new (options?: ParserStreamOptions) => TransformStream<string, unknown>;

let real: StreamClass | undefined;

/** The package's class, required on first use. */
function realStream(): StreamClass {
  real ??= (requireAsMcpSdk('eventsource-parser/stream') as { EventSourceParserStream: StreamClass })
    .EventSourceParserStream;
  return real;
}

/** Stands in for the package's class: `new` gives an instance of the real one. */
export class EventSourceParserStream {
  constructor(options?: ParserStreamOptions) {
    // biome-ignore lint/correctness/noConstructorReturn: `new` must give the package's own stream, made here on first use.
    return new (realStream())(options) as unknown as EventSourceParserStream;
  }
}
