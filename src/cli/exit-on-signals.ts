/**
 * Ctrl-C and SIGTERM for the commands that run short-lived probes (`doctor`, `doctor --conformance`): the
 * command exits at once (130 / 143, as a shell reports it), through `process.exit`, so the `exit` hook of
 * `platform/bounded-command.ts` SIGKILLs the probe groups still running. Those groups are detached (their own
 * process group, for the bounded end), so a terminal's Ctrl-C no longer reaches them by itself. Agents the
 * command started are supervised and go with the host.
 */

/** Exit codes of the signals handled: 128 plus the signal number. */
const EXIT_ON: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143 };

/** Installs the handlers; the returned function removes them. */
export function exitOnSignals(): () => void {
  const handlers = Object.entries(EXIT_ON).map(([signal, code]) => {
    const handler = (): void => {
      process.stderr.write(`agy-sdk: ${signal}: stopping\n`);
      process.exit(code);
    };
    process.on(signal, handler);
    return () => process.off(signal, handler);
  });
  return () => {
    for (const off of handlers) off();
  };
}
