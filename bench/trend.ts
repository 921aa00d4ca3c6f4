/*
 * Whether a series sampled through a run grows: a queue's backlog, a process's memory.
 */
const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** The mean of the last quarter of the samples minus that of the first quarter; undefined below two samples. */
export function rise(samples: readonly number[]): number | undefined {
  if (samples.length < 2) return undefined;
  const quarter = Math.max(1, Math.floor(samples.length / 4));
  return mean(samples.slice(-quarter)) - mean(samples.slice(0, quarter));
}

/**
 * The mean of the last third of the samples over that of the middle third; undefined below three
 * samples. The first third is left out: a process fills its code space, pools and caches there.
 */
export function lateGrowth(samples: readonly number[]): number | undefined {
  if (samples.length < 3) return undefined;
  const third = Math.floor(samples.length / 3);
  return mean(samples.slice(-third)) / mean(samples.slice(third, samples.length - third));
}
