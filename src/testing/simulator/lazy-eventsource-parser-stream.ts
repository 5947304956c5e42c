/**
 * `eventsource-parser/stream` for the simulator's bundled MCP client (scripts/postbuild.mjs puts it in place of
 * the module the SDK's Streamable HTTP transport imports): the same package's `EventSourceParserStream`, loaded
 * from node_modules when the first SSE answer is read instead of when the client is. The package defines it as
 * `class extends TransformStream`, and touching that global makes Node 20 load its web streams (~3.7 ms of CPU
 * in every simulator that connects an MCP server), although a server answering JSON, as the SDK's own
 * listener does, never sends one.
 */
import { createRequire } from 'node:module';

/** What the stream's constructor takes (the package's `ParserStreamOptions`, unchecked here). */
export type ParserStreamOptions = Record<string, unknown>;

type StreamClass = new (options?: ParserStreamOptions) => TransformStream<string, unknown>;

// Resolved from the SDK's own place in the package, so the version found is the one the SDK depends on.
const require = createRequire(import.meta.url);
let real: StreamClass | undefined;

/** The package's class, required on first use. */
function realStream(): StreamClass {
  if (!real) {
    const fromSdk = createRequire(require.resolve('@modelcontextprotocol/sdk/client/streamableHttp.js'));
    real = (fromSdk('eventsource-parser/stream') as { EventSourceParserStream: StreamClass })
      .EventSourceParserStream;
  }
  return real;
}

/** Stands in for the package's class: `new` gives an instance of the real one. */
export class EventSourceParserStream {
  constructor(options?: ParserStreamOptions) {
    // biome-ignore lint/correctness/noConstructorReturn: `new` must give the package's own stream, made here on first use.
    return new (realStream())(options) as unknown as EventSourceParserStream;
  }
}
