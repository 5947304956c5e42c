/**
 * The tools of one MCP server, prepared once per session: provider-safe names and JSON Schemas are computed
 * at start, not per request (the listener builds a fresh MCP server for every stateless request).
 */
import { z } from 'zod/v4';
import { describeError } from '../../logger.js';
import type { McpToolListing as Tool } from '../../model/mcp-types.js';
import type { ToolDefinition } from '../../model/tool.js';
import { type NormalizedToolName, type ToolNameOptions, ToolNameRegistry } from '../../model/tool-names.js';

/** One served tool. */
export interface CatalogTool {
  /** The provider-safe name and where it came from. */
  readonly entry: NormalizedToolName;
  /** The tool as defined by `tool()`. */
  readonly definition: ToolDefinition;
  /** What `tools/list` shows for it. */
  readonly listing: Tool;
}

/** The tools of one MCP server, by provider-safe name. */
export class ToolCatalog {
  /** The MCP server these tools belong to. */
  readonly server: string;
  /** Normalized names and their provenance. */
  readonly names: ToolNameRegistry;
  readonly #tools = new Map<string, CatalogTool>();
  readonly #byOriginal = new Map<string, CatalogTool>();
  readonly #listings: Tool[];

  /** Throws when two tools share a name or a schema cannot be expressed as JSON Schema. */
  constructor(server: string, tools: readonly ToolDefinition[], options: ToolNameOptions = {}) {
    this.server = server;
    this.names = new ToolNameRegistry(options);
    const seen = new Set<string>();
    for (const definition of tools) {
      if (seen.has(definition.name))
        throw new TypeError(`MCP server "${server}": duplicate tool name "${definition.name}"`);
      seen.add(definition.name);
    }
    const entries = this.names.registerAll(tools.map((definition) => ({ server, name: definition.name })));
    tools.forEach((definition, index) => {
      const entry = entries[index]!;
      const tool: CatalogTool = { entry, definition, listing: listing(entry.name, definition) };
      this.#tools.set(entry.name, tool);
      this.#byOriginal.set(definition.name, tool);
    });
    this.#listings = [...this.#tools.values()].map((tool) => tool.listing);
  }

  /** The `tools/list` entries. */
  list(): Tool[] {
    return this.#listings;
  }

  /** The tool a call names: by provider-safe name, or else by its original name. */
  find(name: string): CatalogTool | undefined {
    return this.#tools.get(name) ?? this.#byOriginal.get(name);
  }

  /** The provider-safe names, in definition order. */
  toolNames(): string[] {
    return [...this.#tools.keys()];
  }
}

function listing(name: string, definition: ToolDefinition): Tool {
  const tool: Tool = {
    name,
    description: definition.description,
    inputSchema: jsonSchema(definition, 'input') as Tool['inputSchema'],
  };
  if (definition.title !== undefined) tool.title = definition.title;
  if (definition.output !== undefined)
    tool.outputSchema = jsonSchema(definition, 'output') as NonNullable<Tool['outputSchema']>;
  if (definition.annotations !== undefined) tool.annotations = definition.annotations;
  return tool;
}

// Same conversion as the SDK's McpServer (draft-7; arguments as accepted, results as produced), so agy sees
// the schemas it sees from any other TypeScript MCP server.
function jsonSchema(definition: ToolDefinition, which: 'input' | 'output'): Record<string, unknown> {
  const schema = which === 'input' ? definition.input : definition.output!;
  try {
    // `tool()` checked it is a zod object; its public type is structural (see `ZodObjectSchema`).
    return z.toJSONSchema(schema as unknown as z.ZodType, { target: 'draft-7', io: which }) as Record<
      string,
      unknown
    >;
  } catch (error) {
    throw new TypeError(
      `tool "${definition.name}": ${which} schema cannot be expressed as JSON Schema: ${describeError(error)}`,
      { cause: error },
    );
  }
}
