/**
 * The tools the simulator declares to a model endpoint and runs for it: the built-in tools it really
 * implements (`list_dir`, `view_file`, with agy's parameter names) and `call_mcp_tool` for the MCP tools it
 * loaded (agy calls MCP tools through that one built-in; docs/reference/mcp.md#calling-mcp-tools). Each call
 * becomes the same tool step a scenario's `tool`/`mcpTool` action writes, with PreToolUse/PostToolUse hooks
 * around it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { TurnContext } from './actions.js';
import type { ToolOutcome } from './mcp-hub.js';
import { CALL_MCP_TOOL, runMcpTool, toolStep } from './tool-steps.js';

/** How many entries `list_dir` returns at most. */
const MAX_ENTRIES = 200;
/** How many bytes `view_file` returns at most. */
const MAX_FILE_BYTES = 64 * 1024;

/** A Gemini `functionDeclarations` entry (plain JSON Schema in `parametersJsonSchema`). */
export interface FunctionDeclaration {
  name: string;
  description: string;
  parametersJsonSchema: Record<string, unknown>;
}

/** The declarations for this turn: the built-ins, plus `call_mcp_tool` when MCP tools are loaded. */
export function toolDeclarations(ctx: TurnContext): FunctionDeclaration[] {
  const declarations: FunctionDeclaration[] = [
    {
      name: 'list_dir',
      description: 'Lists the entries of a directory, one name per line (directories end with /).',
      parametersJsonSchema: {
        type: 'object',
        properties: { DirectoryPath: { type: 'string', description: 'Absolute path of the directory.' } },
        required: ['DirectoryPath'],
      },
    },
    {
      name: 'view_file',
      description: 'Returns the text of a file.',
      parametersJsonSchema: {
        type: 'object',
        properties: { AbsolutePath: { type: 'string', description: 'Absolute path of the file.' } },
        required: ['AbsolutePath'],
      },
    },
  ];
  const tools = ctx.runtime.mcp?.toolList() ?? [];
  if (tools.length > 0) {
    const listing = tools.map(({ server, tools: names }) => `${server}: ${names.join(', ')}`).join('; ');
    declarations.push({
      name: CALL_MCP_TOOL,
      description: `Calls a tool of a connected MCP server. Available: ${listing}.`,
      parametersJsonSchema: {
        type: 'object',
        properties: {
          ServerName: { type: 'string', enum: tools.map((t) => t.server) },
          ToolName: { type: 'string' },
          Arguments: { type: 'object' },
        },
        required: ['ServerName', 'ToolName'],
      },
    });
  }
  return declarations;
}

function failure(message: string): ToolOutcome {
  return { error: { type: 'TOOL_ERROR', message } };
}

function listDir(args: Record<string, unknown>): ToolOutcome {
  const dir = args.DirectoryPath;
  if (typeof dir !== 'string' || !isAbsolute(dir)) return failure('DirectoryPath must be an absolute path');
  try {
    const entries = readdirSync(dir, { withFileTypes: true })
      .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
      .sort()
      .slice(0, MAX_ENTRIES);
    return { output: entries.join('\n') };
  } catch (err) {
    return failure((err as Error).message);
  }
}

function viewFile(args: Record<string, unknown>): ToolOutcome {
  const file = args.AbsolutePath;
  if (typeof file !== 'string' || !isAbsolute(file)) return failure('AbsolutePath must be an absolute path');
  try {
    if (statSync(file).size > MAX_FILE_BYTES) return failure(`file is larger than ${MAX_FILE_BYTES} bytes`);
    return { output: readFileSync(file, 'utf8') };
  } catch (err) {
    return failure((err as Error).message);
  }
}

/** Runs one function call as a tool step and returns its outcome (a denial or unknown tool is an error). */
export async function runFunctionCall(
  ctx: TurnContext,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolOutcome> {
  if (name === CALL_MCP_TOOL) {
    const inner = args.Arguments;
    await runMcpTool(ctx, {
      mcpTool: {
        server: String(args.ServerName ?? ''),
        tool: String(args.ToolName ?? ''),
        arguments:
          typeof inner === 'object' && inner !== null && !Array.isArray(inner)
            ? (inner as Record<string, unknown>)
            : {},
      },
    });
    return ctx.lastTool ?? failure('no outcome');
  }
  const run = name === 'list_dir' ? listDir : name === 'view_file' ? viewFile : undefined;
  return toolStep(ctx, name, args, async (final) => run?.(final) ?? failure(`unknown tool "${name}"`));
}
