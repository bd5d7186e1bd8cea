// Deterministic simulated prices: a mean-reverting geometric random walk per token, seeded, so that
// every devnet run has the same history (and the same test expectations).

/** mulberry32: a tiny seeded PRNG, good enough for simulated markets. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal draw (Box-Muller). */
export function normal(random: () => number): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

export type WalkParams = { startPrice: number; hourlyVolatility: number };

/**
 * Next price after `hours` (fraction allowed) of a walk that drifts back towards its start price
 * (so 90 days of history stay in a plausible band).
 */
export function nextPrice(price: number, params: WalkParams, hours: number, random: () => number): number {
  const sigma = params.hourlyVolatility * Math.sqrt(hours);
  const pull = 0.002 * hours * Math.log(params.startPrice / price);
  return price * Math.exp(pull + sigma * normal(random));
}

/** Seeded history timestamps: hourly until 7 days before `end`, then every 10 minutes. */
export function historySteps(start: number, end: number): number[] {
  const steps: number[] = [];
  const fine = end - 7 * 86400;
  let t = Math.ceil(start / 3600) * 3600;
  for (; t < fine; t += 3600) steps.push(t);
  for (t = Math.ceil(Math.max(t, fine) / 600) * 600; t <= end - 60; t += 600) steps.push(t);
  return steps;
}
