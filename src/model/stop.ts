/** What the SDK's `stop` decision sees: the backend's stop request, in the SDK's vocabulary. */
import type { AgyHookInfo } from './tool-call.js';

/** What `stop` hooks see when the agent is about to stop. */
export interface StopEvent {
  /**
   * The turn's latest response text (Python's `StopArgs.response_text`): the backend's when it sends one, else
   * the text the SDK saw the turn's latest response step stream (agy's Stop payload carries none).
   */
  responseText?: string;
  /** agy's reason for stopping, e.g. `NO_TOOL_CALL` (Python's `StopArgs.stop_reason`). */
  terminationReason?: string;
  /** How many times stop hooks already made this turn continue; use it to avoid endless loops. */
  continuationCount?: number;
  /** The error that ended the turn, if any (agy's Stop `error`, when not empty). */
  errorMessage?: string;
  /** agy's execution counter for the conversation (Stop `executionNum`). */
  executionNum?: number;
  /** Whether agy has nothing left running (Stop `fullyIdle`). */
  fullyIdle?: boolean;
  /** Where the call came from, when it arrived through agy's Stop hook. */
  agy?: AgyHookInfo;
}
