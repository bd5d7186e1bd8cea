// Candle series with a point every step: buckets with no trade carry the previous close forward.
// Pure: no I/O.

export type CandleIn = { start: number; open: bigint; high: bigint; low: bigint; close: bigint; volumeUsdg: bigint; trades: number };

/**
 * One candle per `step` seconds from `from` to `to` (both bucket starts, inclusive). A bucket with no
 * candle repeats the previous close (open = high = low = close, no volume, 0 trades). Before the first
 * candle, `carryIn` (the last candle before `from`) supplies the close; without it the series starts
 * at the first candle.
 */
export function fillCandles(candles: CandleIn[], { from, to, step, carryIn }: { from: number; to: number; step: number; carryIn?: CandleIn }): CandleIn[] {
  const byStart = new Map(candles.map((c) => [c.start, c]));
  const out: CandleIn[] = [];
  let last: bigint | undefined = carryIn?.close;
  for (let t = from; t <= to; t += step) {
    const c = byStart.get(t);
    if (c) {
      out.push(c);
      last = c.close;
    } else if (last !== undefined) {
      out.push({ start: t, open: last, high: last, low: last, close: last, volumeUsdg: 0n, trades: 0 });
    }
  }
  return out;
}
