/**
 * The zod schema shape lives in `model/tool-schema.ts` (the tool server reads it too).
 */
export * from '../model/tool-schema.js';
