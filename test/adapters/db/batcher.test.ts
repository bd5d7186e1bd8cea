// Group commit: who waits for whom, and what one batch's failure costs the others.
import { describe, expect, it } from "vitest";
import { Batcher } from "../../../adapters/db/batcher.js";

/** A batcher whose statements are held open until released, recording each batch it was given. */
function held(options: { maxBatch: number; maxInFlight: number }) {
  const batches: number[][] = [];
  const release: (() => void)[] = [];
  const batcher = new Batcher<number, number>(async (items) => {
    batches.push(items);
    await new Promise<void>((resolve) => release.push(resolve));
    if (items.includes(-1)) throw new Error("a failing item");
    return items.map((x) => x * 10);
  }, options);
  return { batcher, batches, release };
}
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("Batcher", () => {
  it("sends what arrives in one turn together, and what arrives while the statements run in the next batch", async () => {
    const { batcher, batches, release } = held({ maxBatch: 100, maxInFlight: 1 });
    const first = [1, 2, 3].map((x) => batcher.load(x));
    await turn();
    expect(batches).toEqual([[1, 2, 3]]);
    const second = [4, 5].map((x) => batcher.load(x));
    await turn();
    // Still one in flight: 4 and 5 wait.
    expect(batches).toHaveLength(1);
    release.shift()!();
    expect(await Promise.all(first)).toEqual([10, 20, 30]);
    await turn();
    expect(batches).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    release.shift()!();
    expect(await Promise.all(second)).toEqual([40, 50]);
  });

  it("runs up to maxInFlight statements at once, each at most maxBatch items", async () => {
    const { batcher, batches, release } = held({ maxBatch: 2, maxInFlight: 2 });
    const all = [1, 2, 3, 4, 5].map((x) => batcher.load(x));
    await turn();
    expect(batches).toEqual([
      [1, 2],
      [3, 4],
    ]);
    release.shift()!();
    await turn();
    await turn();
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
    for (const r of release.splice(0)) r();
    expect(await Promise.all(all)).toEqual([10, 20, 30, 40, 50]);
  });

  it("fails every item of a failed batch and no other, and goes on", async () => {
    const { batcher, release } = held({ maxBatch: 2, maxInFlight: 2 });
    const all = [1, -1, 3].map((x) => batcher.load(x));
    await turn();
    for (const r of release.splice(0)) r();
    const settled = await Promise.allSettled(all);
    expect(settled.map((s) => s.status)).toEqual(["rejected", "rejected", "fulfilled"]);
    const next = batcher.load(7);
    await turn();
    release.shift()!();
    expect(await next).toBe(70);
  });

  it("fails a batch whose statement answers a result too few", async () => {
    const batcher = new Batcher<number, number>(async (items) => items.slice(1), { maxBatch: 10, maxInFlight: 1 });
    const settled = await Promise.allSettled([batcher.load(1), batcher.load(2)]);
    expect(settled.map((s) => s.status)).toEqual(["rejected", "rejected"]);
  });
});
