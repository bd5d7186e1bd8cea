// devnet/anvil.ts, and which chain has call traces: anvil answers debug_traceBlockByNumber with the callTracer
// (the trace path runs on it, test/e2e/report-card-traces.test.ts); the devnet's EDR does not, so the indexer
// refuses CALL_TRACES=on there, in one line, and the devnet runs the events path.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { callTracerProblem } from "../../adapters/services.js";
import { startAnvil } from "../../devnet/anvil.js";
import { accountAddress, startChain } from "../../devnet/chain.js";
import { freePort, spawnTs } from "../helpers/stack.js";

const dir = mkdtempSync(join(tmpdir(), "anvil-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const to = "0x0000000000000000000000000000000000000bad";

describe("anvil beside EDR", () => {
  it("runs chain 4663 with the callTracer, the role accounts unlocked, and keeps its state in a file only when asked", async () => {
    const state = join(dir, "state.json");
    const first = await startAnvil({ dumpState: state });
    try {
      expect(await first.publicClient.getChainId()).toBe(4663);
      expect(await callTracerProblem(first.url)).toBeNull();
      // The deployer (mnemonic index 10) signs on the node, as devnet/deploy/ sends.
      const hash = await first.walletFor(10).sendTransaction({ to, value: 7n, chain: null, account: accountAddress(10) });
      expect((await first.publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
      const trace = (await first.provider.request({ method: "debug_traceTransaction" as never, params: [hash, { tracer: "callTracer" }] as never })) as {
        type: string;
        to: string;
      };
      expect([trace.type, trace.to]).toEqual(["CALL", to]);
    } finally {
      await first.close();
    }
    expect(existsSync(state)).toBe(true);
    const second = await startAnvil({ loadState: state });
    try {
      expect(await second.publicClient.getBalance({ address: to })).toBe(7n);
    } finally {
      await second.close();
    }
    // Without the option nothing is kept.
    const fresh = await startAnvil();
    try {
      expect(await fresh.publicClient.getBalance({ address: to })).toBe(0n);
    } finally {
      await fresh.close();
    }
  });

  it("the devnet's EDR has no callTracer: the indexer refuses CALL_TRACES=on on it, in one line, and exits 1", async () => {
    const chain = await startChain({ genesisTime: Math.floor(Date.now() / 1000) });
    const port = await freePort();
    const server = await chain.serve("127.0.0.1", port);
    try {
      const url = `http://127.0.0.1:${port}`;
      expect(await callTracerProblem(url)).toMatch(/debug_traceBlockByNumber is not supported/);
      const log: string[] = [];
      const indexer = spawnTs("scripts/indexer.ts", { RPC_URL: url, CALL_TRACES: "on", DEPLOYMENTS_FILE: join(dir, "none.json") }, "indexer", log);
      const code = await new Promise<number | null>((resolve) => indexer.once("exit", (c) => resolve(c)));
      expect(code).toBe(1);
      expect(log.filter((l) => l.includes("CALL_TRACES=on"))).toHaveLength(1);
      expect(log.join("\n")).toMatch(/has no callTracer for debug_traceBlockByNumber .* set CALL_TRACES=off/);
    } finally {
      await server.close();
    }
  });
});
