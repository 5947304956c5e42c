/** Typed errors of the policy system. */
import { AgySdkError } from '../errors.js';

/** A policy set that cannot be enforced safely (missing handler, unknown MCP server, malformed target…). */
export class PolicyConfigError extends AgySdkError {
  /** The offending policy's name (or its tool target when it has no name). */
  readonly policyName: string | undefined;

  /**
   * @param message What is wrong and how to fix it.
   * @param policyName The offending policy's name (or its tool target when it has no name).
   */
  constructor(message: string, policyName?: string) {
    super('policy_config_invalid', message);
    this.policyName = policyName;
  }
}
