/**
 * The MCP shapes our public API speaks (tool results, content blocks, annotations, `tools/list` entries),
 * declared here rather than re-exported from `@modelcontextprotocol/sdk`. The SDK's declarations reach DOM
 * lib types (fetch headers), so re-exporting them broke consumers compiling with `lib: ["ES2022"]` and
 * `skipLibCheck: false`; they are also zod-inferred, which ties type-checking to the SDK's own zod copy.
 * These are structural copies of the MCP 2025-06-18 schema: values of these types are valid for the SDK,
 * which the compiler checks where they are handed to it (`src/runtime/mcp-server.ts`).
 */

/** Hints for the client about a content block. */
export interface McpContentAnnotations {
  /** Who the content is for. */
  audience?: ('user' | 'assistant')[];
  /** Importance from 0 (least) to 1 (most). */
  priority?: number;
  /** ISO 8601 time of the last change. */
  lastModified?: string;
}

/** Fields every content block may carry. */
interface ContentBlockBase {
  /** Hints for the client. */
  annotations?: McpContentAnnotations;
  /** Protocol-level metadata. */
  _meta?: Record<string, unknown>;
}

/** Plain text. */
export interface TextContent extends ContentBlockBase {
  /** Discriminator. */
  type: 'text';
  /** The text. */
  text: string;
}

/** An image, base64-encoded. */
export interface ImageContent extends ContentBlockBase {
  /** Discriminator. */
  type: 'image';
  /** Base64 data. */
  data: string;
  /** e.g. `image/png`. */
  mimeType: string;
}

/** An audio clip, base64-encoded. */
export interface AudioContent extends ContentBlockBase {
  /** Discriminator. */
  type: 'audio';
  /** Base64 data. */
  data: string;
  /** e.g. `audio/wav`. */
  mimeType: string;
}

/** A link to a resource the client may read. */
export interface ResourceLink extends ContentBlockBase {
  /** Discriminator. */
  type: 'resource_link';
  /** The resource URI. */
  uri: string;
  /** Programmatic name. */
  name: string;
  /** Display name. */
  title?: string;
  /** What the resource is. */
  description?: string;
  /** Its MIME type, if known. */
  mimeType?: string;
  /** Its size in bytes, if known. */
  size?: number;
}

/** A resource's contents embedded in the result: text or base64 `blob`. */
export interface EmbeddedResource extends ContentBlockBase {
  /** Discriminator. */
  type: 'resource';
  /** The contents. */
  resource:
    | {
        /** The resource's URI. */
        uri: string;
        /** Its MIME type, when known. */
        mimeType?: string;
        /** Its contents, as text. */
        text: string;
        /** Protocol-level metadata. */
        _meta?: Record<string, unknown>;
      }
    | {
        /** The resource's URI. */
        uri: string;
        /** Its MIME type, when known. */
        mimeType?: string;
        /** Its contents, base64-encoded binary. */
        blob: string;
        /** Protocol-level metadata. */
        _meta?: Record<string, unknown>;
      };
}

/** One block of a tool result's `content`. */
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

/** What a tool call returns over MCP. */
export interface CallToolResult {
  /** What the model reads. */
  content: ContentBlock[];
  /** Machine-readable result; matches the tool's output schema when it has one. */
  structuredContent?: Record<string, unknown>;
  /** A tool-level failure the model should see and react to. */
  isError?: boolean;
  /** Protocol-level metadata. */
  _meta?: Record<string, unknown>;
}

/** MCP behaviour hints of a tool. Hints only: nothing enforces them. */
export interface ToolAnnotations {
  /** Display name. */
  title?: string;
  /** The tool does not change its environment. */
  readOnlyHint?: boolean;
  /** The tool may destroy data (meaningful only when not read-only). */
  destructiveHint?: boolean;
  /** Calling it twice with the same arguments has no further effect. */
  idempotentHint?: boolean;
  /** The tool talks to an open world (e.g. the web) rather than a closed domain. */
  openWorldHint?: boolean;
}

/** One entry of `tools/list`, as the agent's tool server shows it to agy. */
export interface McpToolListing {
  /** The served (provider-safe) name. */
  name: string;
  /** Display name. */
  title?: string;
  /** What the tool does. */
  description?: string;
  /** JSON Schema of the arguments (an object schema). */
  inputSchema: {
    /** Always `object`: MCP tools take and give named fields. */
    type: 'object';
    /** The JSON Schema of each field, by name. */
    properties?: Record<string, unknown>;
    /** The fields that must be present. */
    required?: string[];
    [key: string]: unknown;
  };
  /** JSON Schema of the structured result, if any. */
  outputSchema?: {
    /** Always `object`: MCP tools take and give named fields. */
    type: 'object';
    /** The JSON Schema of each field, by name. */
    properties?: Record<string, unknown>;
    /** The fields that must be present. */
    required?: string[];
    [key: string]: unknown;
  };
  /** Behaviour hints. */
  annotations?: ToolAnnotations;
}
