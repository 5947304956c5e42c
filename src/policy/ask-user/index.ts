/** Human in the loop: approval handlers and their fail-closed runner. */
export {
  type AskUserOutcome,
  DEFAULT_ASK_USER_TIMEOUT_MS,
  isValidTimeout,
  type RunAskUserOptions,
  runAskUser,
} from './ask.js';
export { type TerminalApprovalOptions, terminalApproval } from './terminal.js';
export type { AskUserAnswer, AskUserContext, AskUserHandler } from './types.js';
