// A stack on anvil for the call-trace path: anvil (devnet/anvil.ts) with every service contract deployed by
// the devnet's own deploy code, and the indexer over it as a user starts it (`npm run indexer`, RPC_URL set)
// with CALL_TRACES=on. No seeded history and no simulator: the chain moves only when a test sends.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startAnvil, type Anvil } from "../../devnet/anvil.js";
import { compileContracts } from "../../devnet/compile.js";
import { deployAll } from "../../devnet/deploy/all.js";
import { deployContext } from "../../devnet/deploy/context.js";
import { createTestDatabase } from "../api/support.js";
import { freePort, ponderReady, spawnTs, stopProcess, waitFor, type Stack } from "./stack.js";

export type AnvilStack = Stack & { anvil: Anvil; log: string[]; stop(): Promise<void> };

export async function startAnvilStack(): Promise<AnvilStack> {
  const log: string[] = [];
  const t0 = Date.now();
  const seconds = () => ((Date.now() - t0) / 1000).toFixed(1);
  const dir = mkdtempSync(join(tmpdir(), "agent-anvil-"));
  const database = await createTestDatabase();
  const anvil = await startAnvil({
    onLine: (line) => {
      log.push(`anvil| ${line}`);
      if (log.length > 4000) log.splice(0, log.length - 4000);
    },
  });
  const stopAll = async (indexer?: Parameters<typeof stopProcess>[0]) => {
    await stopProcess(indexer);
    await anvil.close();
    await database.drop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const deployments = await deployAll(deployContext(anvil, compileContracts()));
    const deploymentsFile = join(dir, "deployments.json");
    writeFileSync(deploymentsFile, JSON.stringify(deployments, null, 2));
    console.log(`anvil: contracts deployed at ${seconds()} s (block ${await anvil.publicClient.getBlockNumber()})`);
    const ponderPort = await freePort();
    const env = {
      RPC_URL: anvil.url,
      CALL_TRACES: "on",
      // Anvil has no rate limit: as many lanes as the devnet gets (one lane starts at 20 requests/s).
      INDEXER_RPC_LANES: "8",
      DEPLOYMENTS_FILE: deploymentsFile,
      DATABASE_URL: database.url,
      DATABASE_SCHEMA: "ponder",
      VIEWS_SCHEMA: "agent_views",
      PONDER_PORT: String(ponderPort),
    };
    const ponderUrl = `http://127.0.0.1:${ponderPort}`;
    const indexer = spawnTs("scripts/indexer.ts", env, "indexer", log);
    await waitFor("indexer", () => ponderReady(ponderUrl), 180_000, log).catch(async (error) => {
      await stopProcess(indexer);
      throw error;
    });
    console.log(`anvil: the indexer ready at ${seconds()} s`);
    return {
      rpcUrl: anvil.url,
      databaseUrl: database.url,
      schema: "ponder",
      viewsSchema: "agent_views",
      deploymentsFile,
      ponderUrl,
      facilitatorUrl: "",
      faucetUrl: "", // no devnet here, so no faucet
      env,
      anvil,
      log,
      stop: () => stopAll(indexer),
    };
  } catch (error) {
    await stopAll();
    throw new Error(`${(error as Error).message}\nLast output:\n${log.slice(-40).join("\n")}`, { cause: error });
  }
}
