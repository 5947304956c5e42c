/**
 * The MCP result and content types live in `model/mcp-types.ts` (the tool server reads them too).
 */
export * from '../model/mcp-types.js';
