/**
 * Go `time.Duration` strings, as agy's `--print-timeout` takes and prints them (`5m0s`, `300ms`, `1h2m3.5s`).
 */

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Parses a Go duration into milliseconds. Like Go, a bare number needs a unit unless it is `0`.
 *
 * @returns the duration in ms, or `undefined` when the text is not a Go duration.
 */
export function parseGoDuration(text: string): number | undefined {
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') return undefined;
  let total = 0;
  const part = /^(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;
  while (rest.length > 0) {
    const match = part.exec(rest);
    if (!match) return undefined;
    total += Number(match[1]) * (UNIT_MS[match[2] as string] as number);
    rest = rest.slice(match[0].length);
  }
  return sign * total;
}

/** Formats milliseconds the way Go's `Duration.String` does, so stderr markers read like agy's (`5m0s`). */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(ms);
  if (abs < 1000) return `${sign}${trimNumber(abs)}ms`;
  const hours = Math.floor(abs / 3_600_000);
  const minutes = Math.floor((abs % 3_600_000) / 60_000);
  const seconds = (abs % 60_000) / 1000;
  const secondsText = `${trimNumber(seconds)}s`;
  if (hours > 0) return `${sign}${hours}h${minutes}m${secondsText}`;
  if (minutes > 0) return `${sign}${minutes}m${secondsText}`;
  return `${sign}${secondsText}`;
}

function trimNumber(value: number): string {
  // Go prints up to nanosecond precision without trailing zeros.
  return Number(value.toFixed(9)).toString();
}
