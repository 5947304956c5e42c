/**
 * A request's `tools[]`, normalized: function declarations with safe names and canonical schemas, `googleSearch`
 * accepted, every other Google built-in tool refused by name
 * (docs/reference/gemini-clients.md#built-in-google-tools).
 */
import { invalidArgument } from './errors.js';
import type { GenerateContentRequest } from './gemini-types.js';
import type { NormalizedTool } from './normalized.js';
import { canonicalizeSchema } from './schema/canonicalize.js';
import type { ToolNamer } from './tool-names.js';

const UNSUPPORTED_TOOLS: [string, string][] = [
  ['urlContext', 'urlContext is not supported by this gateway; fetch the URL locally instead'],
  ['codeExecution', 'codeExecution is not supported by this gateway'],
  ['googleMaps', 'googleMaps is not supported by this gateway'],
  ['fileSearch', 'fileSearch is not supported by this gateway'],
  ['computerUse', 'computerUse is not supported by this gateway'],
  ['googleSearchRetrieval', 'googleSearchRetrieval is not supported by this gateway; use googleSearch'],
];

/** The declared functions and whether web search was asked for. Throws `GatewayError` (400) for a refused tool. */
export function normalizeTools(
  tools: GenerateContentRequest['tools'],
  nameFor: ToolNamer,
): { tools: NormalizedTool[]; webSearch: boolean } {
  let webSearch = false;
  const out: NormalizedTool[] = [];
  for (const [ti, tool] of (tools ?? []).entries()) {
    for (const [key, message] of UNSUPPORTED_TOOLS) {
      if (tool[key] !== undefined) throw invalidArgument(`tools[${ti}].${key}`, message);
    }
    if (tool.googleSearch !== undefined) webSearch = true;
    for (const decl of tool.functionDeclarations ?? []) {
      const schema = decl.parametersJsonSchema ?? decl.parameters ?? { type: 'object', properties: {} };
      out.push({
        name: nameFor(decl.name),
        description: decl.description,
        parameters: canonicalizeSchema(schema),
      });
    }
  }
  return { tools: out, webSearch };
}
