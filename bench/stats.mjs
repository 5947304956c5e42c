// Small statistics helpers for the benchmarks.
export function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

export const fmt = (n, digits = 3) => (Number.isFinite(n) ? n.toFixed(digits) : String(n));

/** The median of the values of several rounds, with their min and max: `{ median, min, max }`. */
export function rounds(values, digits = 3) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  const r = (n) => Number(fmt(n, digits));
  return { median: r(median), min: r(sorted[0]), max: r(sorted.at(-1)) };
}

/** CPU time (user + system) of this process in ms since `start` (a `process.cpuUsage()` value). */
export function cpuMs(start) {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
}
