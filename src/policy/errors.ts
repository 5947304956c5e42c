/** Typed errors of the policy system. */

/** A policy set that cannot be enforced safely (missing handler, unknown MCP server, malformed target…). */
export class PolicyConfigError extends Error {
  override name = 'PolicyConfigError';

  /**
   * @param message What is wrong and how to fix it.
   * @param policyName The offending policy's name (or its tool target when it has no name).
   */
  constructor(
    message: string,
    readonly policyName?: string,
  ) {
    super(message);
  }
}
