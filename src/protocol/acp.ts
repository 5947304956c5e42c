/**
 * The Agent Client Protocol's wire shapes (JSON-RPC over stdio, camelCase JSON), as the official SDK
 * (`@agentclientprotocol/sdk`, protocol v1 stable) generates them from the ACP JSON Schema, plus the one
 * agent-specific extension the SDK reads: Gemini CLI's token counts in `_meta.quota` of a prompt result
 * (docs/reference/acp.md#usage). `connection/acp/normalize.ts` is the one place these become model types.
 */
import { z } from 'zod/v4';

export type {
  AgentCapabilities as AcpAgentCapabilities,
  ClientCapabilities as AcpClientCapabilities,
  ContentBlock as AcpContentBlock,
  InitializeResponse as AcpInitializeResponse,
  McpServer as AcpMcpServer,
  NewSessionResponse as AcpNewSessionResponse,
  PermissionOption as AcpPermissionOption,
  PlanEntry as AcpPlanEntry,
  PromptResponse as AcpPromptResponse,
  ReadTextFileRequest as AcpReadTextFileRequest,
  ReadTextFileResponse as AcpReadTextFileResponse,
  RequestPermissionRequest as AcpRequestPermissionRequest,
  RequestPermissionResponse as AcpRequestPermissionResponse,
  SessionNotification as AcpSessionNotification,
  SessionUpdate as AcpSessionUpdate,
  StopReason as AcpStopReason,
  ToolCallContent as AcpToolCallContent,
  ToolCallStatus as AcpToolCallStatus,
  WriteTextFileRequest as AcpWriteTextFileRequest,
  WriteTextFileResponse as AcpWriteTextFileResponse,
} from '@agentclientprotocol/sdk';

const count = z.number().int().nonnegative();

/**
 * Gemini CLI's `_meta.quota` on a `session/prompt` result: input and output tokens of the turn's model calls
 * (thinking and cache counts are absent; side calls are not counted), plus a per-model list. Loose: other
 * agents may add fields.
 */
export const GeminiQuotaMetaSchema = z.looseObject({
  quota: z.looseObject({
    token_count: z.looseObject({ input_tokens: count, output_tokens: count }),
    model_usage: z
      .array(
        z.looseObject({
          model: z.string(),
          token_count: z.looseObject({ input_tokens: count, output_tokens: count }),
        }),
      )
      .optional(),
  }),
});

/** The parsed shape of {@link GeminiQuotaMetaSchema}. */
export type GeminiQuotaMeta = z.infer<typeof GeminiQuotaMetaSchema>;
