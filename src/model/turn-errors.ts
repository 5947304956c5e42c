/**
 * The errors that carry a turn's outcome. They live beside the model types they carry (not in `errors.ts`,
 * which imports nothing of ours) so that the model and the error hierarchy never import each other.
 */
import { AgySdkError, type TurnErrorCode } from '../errors.js';
import type { BudgetName, TurnResult } from './turn-result.js';

/** A turn did not end in `success`. Carries the full, fail-closed `TurnResult`. */
export class TurnError extends AgySdkError {
  /** The turn's outcome, whatever its status. */
  readonly result: TurnResult;
  constructor(result: TurnResult) {
    // Fails to compile if `TurnStatus` gains a status `TurnErrorCode` does not list.
    const code: TurnErrorCode = `turn_${result.status}`;
    super(
      code,
      `turn ended ${result.status}${result.errorMessage ? `: ${result.errorMessage}` : ''}`,
      result.error ? { cause: result.error } : undefined,
    );
    this.result = result;
  }
}

/** A budget was exceeded; the turn was interrupted. */
export class BudgetExceededError extends AgySdkError {
  /** Which budget. */
  readonly budget: BudgetName;
  /** The configured limit. */
  readonly limit: number;
  /** The amount used when the limit was crossed. */
  readonly used: number;
  constructor(budget: BudgetName, limit: number, used: number) {
    // An infinite use is a cost that could not be counted (no price for the model): the budget fails closed.
    const shown = Number.isFinite(used) ? String(used) : 'unknown (no price for the model)';
    super('budget_exceeded', `${budget} exceeded: ${shown} > ${limit}`);
    this.budget = budget;
    this.limit = limit;
    this.used = used;
  }
}
