/*
 * Latency figures of a run: nearest-rank percentiles.
 */
/** Latency figures of a set of samples, in ms rounded to 0.1 (nearest-rank percentiles). */
export interface Spread {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

function rank(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const tenth = (value: number) => Math.round(value * 10) / 10;

export function spread(samples: number[]): Spread {
  if (samples.length === 0) return { count: 0, p50: NaN, p99: NaN, max: NaN };
  const sorted = [...samples].sort((a, b) => a - b);
  return { count: sorted.length, p50: tenth(rank(sorted, 50)), p99: tenth(rank(sorted, 99)), max: tenth(sorted.at(-1)!) };
}

/**
 * The median of the samples taken in each second of the load (by the time each request was due):
 * a queue that grows shows as medians that climb from one second to the next.
 */
export function mediansBySecond(samples: { at: number; value: number }[]): number[] {
  if (samples.length === 0) return [];
  const start = Math.min(...samples.map((s) => s.at));
  const seconds: number[][] = [];
  for (const sample of samples) {
    const second = Math.floor((sample.at - start) / 1000);
    seconds[second] = [...(seconds[second] ?? []), sample.value];
  }
  return Array.from(seconds, (values) => (values ? spread(values).p50 : NaN));
}
