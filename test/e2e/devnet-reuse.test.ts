// DEVNET_STATE_FILE (issue 54): the devnet on anvil keeps its chain in a file, and its next start reuses
// that chain (no deploy, no seeding), so the blocks before the stop keep their hashes and new ones follow.
// A devnet killed (not stopped) leaves a file that is not marked as written at a stop: the next start is a
// new chain, since the saved one may be older than what the indexer has seen; so is one saved by a devnet of
// other contracts or another history length.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPublicClient, http } from "viem";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, spawnTs, stopProcess, waitFor } from "../helpers/stack.js";

const dir = mkdtempSync(join(tmpdir(), "agent-devnet-reuse-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A devnet of its own: its state file, its deployments (and ready.json) in `folder`, its ports. */
async function devnetEnv(folder: string, stateFile: string) {
  const [port, facilitatorPort, faucetPort] = [await freePort(), await freePort(), await freePort()];
  return {
    DEVNET_STATE_FILE: stateFile,
    DEPLOYMENTS_FILE: join(folder, "deployments.json"),
    DEVNET_PORT: String(port),
    X402_FACILITATOR_PORT: String(facilitatorPort),
    DEVNET_FAUCET_PORT: String(faucetPort),
  };
}

describe("a devnet with DEVNET_STATE_FILE", () => {
  it("reuses its saved chain on the next start: same deployments, same blocks, new blocks on top", async () => {
    const env = { ...(await devnetEnv(dir, join(dir, "state", "devnet.json"))), DEVNET_HISTORY_DAYS: "1", DEVNET_SIM_INTERVAL_MS: "500" };
    const client = createPublicClient({ transport: http(`http://127.0.0.1:${env.DEVNET_PORT}`) });
    const start = async (extraEnv: Record<string, string> = {}) => {
      const log: string[] = [];
      const t0 = Date.now();
      const devnet = spawnTs("devnet/main.ts", { ...env, ...extraEnv }, "devnet", log);
      await waitFor("devnet", () => existsSync(join(dir, "ready.json")), 120_000, log).catch(async (error) => {
        await stopProcess(devnet);
        throw error;
      });
      return { devnet, log, seconds: (Date.now() - t0) / 1000 };
    };

    const first = await start();
    const deployments = readFileSync(env.DEPLOYMENTS_FILE, "utf8");
    expect(first.log.join("\n")).not.toContain("reusing the devnet");
    // Let the simulator add live blocks, then stop as npm start does.
    const seeded = await client.getBlockNumber();
    await waitFor("live blocks", async () => (await client.getBlockNumber()) > seeded + 2n, 30_000, first.log);
    const sample = [1n, seeded / 2n, seeded];
    const hashes = await Promise.all(sample.map(async (blockNumber) => (await client.getBlock({ blockNumber })).hash));
    await stopProcess(first.devnet);
    expect(existsSync(env.DEVNET_STATE_FILE)).toBe(true);

    const second = await start();
    try {
      const log = second.log.join("\n");
      expect(log).toMatch(/reusing the devnet saved in .*devnet\.json \(block \d+\): deploy and seeding skipped/);
      expect(log).not.toContain("seeding history");
      expect(readFileSync(env.DEPLOYMENTS_FILE, "utf8")).toBe(deployments);
      expect(second.seconds).toBeLessThan(first.seconds);
      console.log(`first start ${first.seconds.toFixed(1)} s, second (reused) ${second.seconds.toFixed(1)} s`);
      // The reused head is at least the seeded block; the blocks before the stop are the same blocks.
      const reusedHead = Number(/\(block (\d+)\)/.exec(log)![1]);
      expect(reusedHead).toBeGreaterThan(Number(seeded));
      expect(await Promise.all(sample.map(async (blockNumber) => (await client.getBlock({ blockNumber })).hash))).toEqual(hashes);
      // New blocks follow: one at now on start, then the simulator's.
      await waitFor("new blocks", async () => (await client.getBlockNumber()) > BigInt(reusedHead) + 2n, 30_000, second.log);
      const head = await client.getBlock();
      expect(Math.abs(Number(head.timestamp) - Date.now() / 1000)).toBeLessThan(60);
    } finally {
      // Killed, not stopped: anvil (in the devnet's process group) gets no chance to write its file.
      await stopProcess(second.devnet, "SIGKILL");
    }
    expect(existsSync(`${env.DEVNET_STATE_FILE}.stopped`)).toBe(false);
    rmSync(join(dir, "ready.json"), { force: true }); // the killed devnet's, as npm start removes it

    let thirdBlock: string | undefined;
    const third = await start();
    try {
      const log = third.log.join("\n");
      expect(log).toContain("was not written at the stop of a ready devnet (killed, or stopped while seeding?): starting a new chain");
      expect(log).not.toContain("reusing the devnet");
      expect(log).toContain("seeding history");
      thirdBlock = (await client.getBlock({ blockNumber: 1n })).hash;
      expect(thirdBlock).not.toBe(hashes[0]);
    } finally {
      await stopProcess(third.devnet);
    }
    expect(existsSync(`${env.DEVNET_STATE_FILE}.stopped`)).toBe(true);

    // Another history length (as other contracts would): the saved chain is not what this start would make.
    const fourth = await start({ DEVNET_HISTORY_DAYS: "2" });
    try {
      const log = fourth.log.join("\n");
      expect(log).toContain("holds a chain of other contracts or another DEVNET_HISTORY_DAYS: starting a new chain");
      expect(log).toContain("seeding history");
      expect((await client.getBlock({ blockNumber: 1n })).hash).not.toBe(thirdBlock);
    } finally {
      await stopProcess(fourth.devnet);
    }
  }, 300_000);

  it("a devnet stopped while seeding leaves no mark: its part of the history is not reused", async () => {
    const own = mkdtempSync(join(dir, "seeding-"));
    const env = { ...(await devnetEnv(own, join(own, "devnet.json"))), DEVNET_HISTORY_DAYS: "5" };
    const log: string[] = [];
    const seeding = spawnTs("devnet/main.ts", env, "devnet", log);
    try {
      await waitFor("seeding", () => log.some((line) => line.includes("seeding history")), 120_000, log);
    } finally {
      await stopProcess(seeding); // SIGTERM, as npm start stops it: anvil writes its file, the devnet marks nothing
    }
    expect(log.join("\n")).not.toContain("ready in");
    expect(existsSync(env.DEVNET_STATE_FILE)).toBe(true);
    expect(existsSync(`${env.DEVNET_STATE_FILE}.stopped`)).toBe(false);

    const next: string[] = [];
    const devnet = spawnTs("devnet/main.ts", env, "devnet", next);
    try {
      await waitFor("devnet", () => existsSync(join(own, "ready.json")), 180_000, next);
      const out = next.join("\n");
      expect(out).toContain("was not written at the stop of a ready devnet (killed, or stopped while seeding?): starting a new chain");
      expect(out).toContain("seeding history");
      expect(out).not.toContain("reusing the devnet");
    } finally {
      await stopProcess(devnet);
    }
  }, 300_000);
});
