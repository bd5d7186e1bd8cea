// The scans' schedule against the machine's Redis (issue 21, item 2): a failed scan is tried again
// within a minute (not at the next 10-minute tick), the scans started when the index becomes ready are
// added once however many workers see it, and a scan refuses to read an index that is not ready.
import { randomBytes } from "node:crypto";
import { Queue, Worker, type Job } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { runScansNow, scheduleScans } from "../../../usecases/backtest-runs/schedule.js";
import { SCAN_RETRY_SECONDS, scanChain, scanKinds, type ScanContext } from "../../../usecases/backtest-runs/scans.js";

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const prefix = `test:${randomBytes(4).toString("hex")}:bull`;
const connection = () => new Redis(REDIS_URL, { maxRetriesPerRequest: null });
const closers: (() => Promise<unknown>)[] = [];

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

describe("scan schedule", () => {
  it("retries a failed scheduled scan after SCAN_RETRY_SECONDS (within a minute)", async () => {
    const queue = new Queue("scan-a", { connection: connection(), prefix });
    closers.push(() => queue.close());
    const failed: Job[] = [];
    const worker = new Worker(
      "scan-a",
      async () => {
        throw new Error("the index is not ready: the scan waits for it");
      },
      { connection: connection(), prefix },
    );
    closers.push(() => worker.close());
    worker.on("failed", (job) => job && failed.push(job));
    const before = Date.now();
    await scheduleScans(queue, 3_600_000); // the first run of each kind at once
    const deadline = Date.now() + 20_000;
    while (failed.length < scanKinds.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(failed.map((j) => j.name).sort()).toEqual([...scanKinds].sort());
    expect(SCAN_RETRY_SECONDS).toBeLessThanOrEqual(60);
    for (const job of failed) {
      const fresh = (await queue.getJob(job.id!))!;
      expect(await fresh.getState()).toBe("delayed"); // to be tried again, not failed for good
      expect(fresh.attemptsMade).toBe(1);
      // Due SCAN_RETRY_SECONDS after the failure, far before the next tick an hour away.
      const due = fresh.timestamp + fresh.delay;
      expect(due).toBeGreaterThanOrEqual(before + SCAN_RETRY_SECONDS * 1000 - 1000);
      expect(due).toBeLessThanOrEqual(Date.now() + SCAN_RETRY_SECONDS * 1000 + 1000);
    }
  });

  it("adds the scans of a newly ready index once, however many workers call it", async () => {
    const queue = new Queue("scan-b", { connection: connection(), prefix });
    closers.push(() => queue.close());
    await Promise.all([runScansNow(queue, "1234-0xabc"), runScansNow(queue, "1234-0xabc")]);
    expect((await queue.getWaiting()).map((j) => j.name).sort()).toEqual([...scanKinds].sort());
    await runScansNow(queue, "5678-0xdef"); // another index: every scan again
    expect(await queue.getWaitingCount()).toBe(2 * scanKinds.length);
  });
});

describe("scanChain", () => {
  const ctx = (indexReady: boolean) => ({ indexReady: () => indexReady, chain: async () => "0xABCD" }) as unknown as ScanContext;

  it("refuses an index that is not ready, and names the chain otherwise", async () => {
    await expect(scanChain(ctx(false))).rejects.toThrow(/not ready/);
    await expect(scanChain(ctx(true))).resolves.toBe("0xabcd");
    await expect(scanChain({} as ScanContext)).resolves.toBeNull();
  });
});
