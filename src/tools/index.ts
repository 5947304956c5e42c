/** In-process tools: `tool()`, their context and state, results, and provider-safe names. */

export { BUILTIN_TOOL_CLASSES, type BuiltinToolClass, builtinToolClass } from '../model/builtin-classes.js';
export {
  type AgentBehavior,
  type BuiltinToolName,
  BuiltinTools,
  type CapabilitiesConfig,
  KNOWN_BUILTIN_TOOLS,
  type ThinkingLevel,
} from '../model/builtin-tools.js';
export type {
  AudioContent,
  EmbeddedResource,
  ImageContent,
  McpContentAnnotations,
  McpToolListing,
  ResourceLink,
  TextContent,
} from './mcp-types.js';
export {
  isProviderSafeToolName,
  MAX_TOOL_NAME_LENGTH,
  type NormalizedToolName,
  normalizeToolName,
  QUALIFIED_NAME_SEPARATOR,
  sanitizeToolNamePart,
  servedToolNames,
  type ToolNameOptions,
  ToolNameRegistry,
  type ToolNameSource,
  toolNameHash,
  withHashSuffix,
} from './names.js';
export {
  type SchemaInput,
  type SchemaIssue,
  type SchemaOutput,
  type SchemaParseResult,
  type ToolAnnotations,
  type ToolDefinition,
  type ToolHandler,
  type ToolHandlerResult,
  type ToolInputSchema,
  type ToolOutputSchema,
  type ToolSpec,
  tool,
  type ZodObjectSchema,
} from './tool.js';
export { createToolContext, StateStore, type ToolContext, type ToolContextHost } from './tool-context.js';
export {
  type CallToolResult,
  type ContentBlock,
  isCallToolResult,
  type ToolResultOptions,
  toolError,
  toolResult,
} from './tool-result.js';
