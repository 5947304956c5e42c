/**
 * Errors that stop a command before or outside a turn → one clear line (with a hint where there is one) and an
 * exit code. Anything unexpected is printed with its stack, never swallowed.
 */
import { AgyNotFoundError, AgySdkError, ConfigError, ContentError, StartError } from '../index.js';
import { EXIT_START_FAILED, EXIT_USAGE } from './exit-codes.js';

/** Prints `error` on `err` and returns the exit code for it. */
export function reportFailure(error: unknown, err: NodeJS.WritableStream): number {
  if (error instanceof ConfigError || error instanceof ContentError) {
    err.write(`agy-sdk: ${error.message}\n`);
    return EXIT_USAGE;
  }
  if (error instanceof AgyNotFoundError) {
    err.write(
      `agy-sdk: ${error.message}\n` +
        'hint: install agy and sign in (agy), or try the simulator with --offline; `agy-sdk doctor` checks the setup.\n',
    );
    return EXIT_START_FAILED;
  }
  if (error instanceof StartError) {
    // The message already carries agy's stderr tail.
    err.write(`agy-sdk: ${error.message}\nhint: run \`agy-sdk doctor\`.\n`);
    return EXIT_START_FAILED;
  }
  if (error instanceof AgySdkError) {
    err.write(`agy-sdk: ${error.message} (${error.code})\n`);
    return 1;
  }
  err.write(
    `agy-sdk: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  return 1;
}
