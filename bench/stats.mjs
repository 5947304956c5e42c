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
