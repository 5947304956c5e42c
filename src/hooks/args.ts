/**
 * The tool-argument helpers live in `model/tool-args.ts`: every backend builds its `ToolInvocation` there,
 * below the hooks. The old names stay for the hooks and policies that import them here.
 */
import { createToolInvocation, type ToolInvocationInit } from '../model/tool-args.js';

export {
  isPlainObject,
  mergeToolArgs,
  normalizeArgKeys,
  normalizeKey,
  setOwn,
  withArgs,
} from '../model/tool-args.js';

/** Input for {@link createHookToolCall}. */
export type HookToolCallInit = ToolInvocationInit;

/** Builds a `ToolInvocation`, deriving `normalizedArgs` from `args` (the same as `createToolInvocation`). */
export const createHookToolCall = createToolInvocation;
