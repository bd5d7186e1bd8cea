// The soak's Redis census (bench/soak/redis-census.ts) names what holds the memory: keys by kind, with bytes.
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { redisCensus } from "../../bench/soak/redis-census.js";
import { REDIS_URL } from "../api/support.js";

// A database of its own (no other test uses 9): the census scans every key of it.
const redis = new Redis(REDIS_URL, { db: 9 });
const prefix = `census_${randomBytes(4).toString("hex")}:`;

afterAll(async () => {
  await redis.flushdb();
  redis.disconnect();
});

describe("the soak's Redis census", () => {
  it("groups keys by kind (numbers and hex read as *) and orders the kinds by bytes", async () => {
    await redis.flushdb();
    for (let i = 0; i < 20; i++) await redis.set(`${prefix}bull:prepare:${1000 + i}`, "x".repeat(2000));
    await redis.set(`${prefix}rl:0xabcdef0123`, "1");
    const line = await redisCensus(redis, prefix);
    expect(line).toMatch(/^used \d+ KiB \(dataset \d+ KiB, overhead \d+ KiB, scripts \d+ KiB, \d+ clients\); keys by kind: /);
    const kinds = line.split("keys by kind: ")[1]!.split(", ");
    expect(kinds[0]).toMatch(/^bull:prepare:\* ×20 \d+ KiB$/);
    expect(kinds[1]).toMatch(/^rl:\* ×1 0 KiB$/);
  });
});
