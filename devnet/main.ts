// `npm run devnet`: an EVM with chain id 4663 on 127.0.0.1:8545, every product deployed at deterministic
// addresses, 90 days of seeded history, then a live market simulator and keeper; and an x402 facilitator
// (devnet/facilitator.ts) on X402_FACILITATOR_PORT that settles payments in USDG with its own key, and a
// faucet (devnet/faucet.ts) on DEVNET_FAUCET_PORT that funds new wallets.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { dirname } from "node:path";
import { config, devnetReadyFile } from "../adapters/config.js";
import type { Deployments } from "../adapters/chain/deployments.js";
import { anvilBinary, startAnvil } from "./anvil.js";
import { accountAddress, multicall3Address, startChain, type ChainClients } from "./chain.js";
import { compileContracts, type Artifacts } from "./compile.js";
import { deployAll } from "./deploy/all.js";
import { deployContext, type DeployContext } from "./deploy/context.js";
import { CANONICAL_MULTICALL3, startFacilitator } from "./facilitator.js";
import { startFaucet } from "./faucet.js";
import { keeperSources } from "./keeper/all.js";
import { runKeeper } from "./keeper/run.js";
import { MarketSimulator } from "./market.js";
import { seedActivity } from "./seed/activity.js";
import { seedHistory } from "./seed/history.js";

const DAY = 86400;
const readyFile = devnetReadyFile(config.DEPLOYMENTS_FILE);
const log = (msg: string) => console.log(`[devnet] ${msg}`);

/** `close` resolves true when the chain was written to DEVNET_STATE_FILE. */
type DevnetChain = ChainClients & { close(): Promise<boolean>; reused?: { deployments: Deployments; block: bigint } };

/** Written beside DEVNET_STATE_FILE once anvil has written the file at the stop of a devnet that got ready. */
const stoppedMark = (stateFile: string) => `${stateFile}.stopped`;

/** What a chain is made from: a saved chain made from other contracts or another history length is not reused. */
type Made = { contracts: string; days: number };
const madeFrom = (artifacts: Artifacts): Made => ({
  contracts: createHash("sha256")
    .update(JSON.stringify(Object.entries(artifacts).map(([name, artifact]) => [name, artifact.bytecode])))
    .digest("hex"),
  days: config.DEVNET_HISTORY_DAYS,
});

function readMark(file: string): Made | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Made;
  } catch {
    return undefined; // none, or not ours
  }
}

/** The in-process EDR chain, new at every start (DEVNET_STATE_FILE unset). */
async function edrChain(genesisTime: number): Promise<DevnetChain> {
  const chain = await startChain({ genesisTime });
  const server = await chain.serve(config.DEVNET_HOST, config.DEVNET_PORT);
  return {
    ...chain,
    close: async () => {
      await server.close();
      return false;
    },
  };
}

/**
 * Anvil keeping its chain in DEVNET_STATE_FILE. Anvil writes the file when it stops; a devnet that got ready
 * then marks it (`<file>.stopped`). Only a marked file is reused, with the deployments file whose contracts have
 * code on it. A devnet killed before the write leaves an older chain than the indexer has seen, and anvil
 * reloads no past states to build an index again from; one stopped while seeding leaves a part of the history:
 * either way the next start is a new chain (and a new index).
 */
async function anvilChain(stateFile: string, genesisTime: number, made: Made): Promise<DevnetChain> {
  mkdirSync(dirname(stateFile), { recursive: true });
  const mark = readMark(stoppedMark(stateFile));
  const same = mark?.contracts === made.contracts && mark.days === made.days;
  const stopped = existsSync(stateFile) && same && existsSync(config.DEPLOYMENTS_FILE);
  if (existsSync(stateFile) && !mark)
    log(`${stateFile} was not written at the stop of a ready devnet (killed, or stopped while seeding?): starting a new chain`);
  else if (existsSync(stateFile) && !same) log(`${stateFile} holds a chain of other contracts or another DEVNET_HISTORY_DAYS: starting a new chain`);
  if (!stopped) rmSync(stateFile, { force: true });
  rmSync(stoppedMark(stateFile), { force: true }); // from here on, only this run's own stop marks the file
  // Past states stay in memory (about 0.5 MB each) for the indexer's reads at past blocks: all of a 90-day seed's
  // 4,200 blocks, which it reads on its first backfill, then the latest 5,000 (about 3 hours of live blocks).
  // Anvil also writes the file every minute by default, which stalls its RPC for about a second per 330 MB; only
  // the stop's write is ever reused (the mark), so the interval is set past any run.
  const extraArgs = ["--prune-history", "5000", "--state-interval", String(365 * DAY)];
  const start = () => startAnvil({ host: config.DEVNET_HOST, port: config.DEVNET_PORT, genesisTime, accounts: 20, state: stateFile, extraArgs });
  let anvil = await start();
  if (stopped) {
    const deployments = JSON.parse(readFileSync(config.DEPLOYMENTS_FILE, "utf8")) as Deployments;
    const addresses = Object.values(deployments.contracts).filter((a): a is `0x${string}` => typeof a === "string");
    const codes = await Promise.all(addresses.map((address) => anvil.publicClient.getCode({ address })));
    const block = await anvil.publicClient.getBlockNumber();
    if (deployments.chainId === 4663 && addresses.length > 0 && codes.every((c) => c && c !== "0x")) return { ...anvil, reused: { deployments, block } };
    log(`the chain saved in ${stateFile} does not hold ${config.DEPLOYMENTS_FILE}'s contracts: starting a new one`);
    await anvil.close();
    rmSync(stateFile, { force: true });
    anvil = await start();
  }
  return anvil;
}

/** DEVNET_STATE_FILE where this platform has anvil (its npm packages: Linux and macOS, x64 and arm64). */
function anvilStateFile(): string | undefined {
  if (!config.DEVNET_STATE_FILE) return undefined;
  try {
    anvilBinary();
    return config.DEVNET_STATE_FILE;
  } catch (error) {
    log(`${(error as Error).message}: the in-process chain instead, new every start (DEVNET_STATE_FILE ignored)`);
    return undefined;
  }
}

/**
 * The next whole second: the chain keeps the offset from the wall clock that its next block sets, and the
 * floor would leave its blocks up to a second behind it, so a call sent just after its filing could carry
 * a time before the filing's and never match it (usecases/report-card/run-grading.ts).
 */
const wallSecondUp = () => Math.ceil(Date.now() / 1000);

/** A reused chain: only brought to now (one block at now); everything else is as it was saved. */
async function bringToNow(chain: ChainClients) {
  const latest = await chain.publicClient.getBlock();
  await chain.testClient.setNextBlockTimestamp({ timestamp: BigInt(Math.max(wallSecondUp(), Number(latest.timestamp) + 1)) });
  await chain.testClient.mine({ blocks: 1 });
}

async function main() {
  const t0 = Date.now();
  rmSync(readyFile, { force: true });
  const artifacts = compileContracts();
  const now = Math.floor(Date.now() / 1000);
  const days = config.DEVNET_HISTORY_DAYS;
  const genesisTime = now - days * DAY - 3 * 3600;
  const stateFile = anvilStateFile();
  const made = madeFrom(artifacts);
  const chain = stateFile ? await anvilChain(stateFile, genesisTime, made) : await edrChain(genesisTime);
  const rpcUrl = `http://${config.DEVNET_HOST}:${config.DEVNET_PORT}`;
  log(`chain 4663 listening on ${rpcUrl}${stateFile ? ` (anvil, state in ${stateFile})` : ""}`);

  const ctx = deployContext(chain, artifacts);
  const deployments = chain.reused?.deployments ?? (await deployAll(ctx));
  if (chain.reused) {
    log(`reusing the devnet saved in ${stateFile} (block ${chain.reused.block}): deploy and seeding skipped`);
  } else {
    mkdirSync(dirname(config.DEPLOYMENTS_FILE), { recursive: true });
    writeFileSync(config.DEPLOYMENTS_FILE, JSON.stringify(deployments, null, 2));
    log(
      `deployed ${Object.keys(deployments.contracts).length} contracts, ${deployments.tokens.length} tokens, ${deployments.vaults.length} vaults, ${deployments.baskets.length} baskets (${((Date.now() - t0) / 1000).toFixed(1)} s)`,
    );
    // x402's EVM code reads through Multicall3 at its canonical address: the same code there.
    const multicall = await chain.publicClient.getCode({ address: multicall3Address });
    await chain.testClient.setCode({ address: CANONICAL_MULTICALL3, bytecode: multicall! });
  }
  // A taken port costs the payments, not the chain: a second devnet on one machine (benchmarks) still runs.
  // An undeployed SmartAccount pays by ERC-6492: the facilitator deploys it with the devnet's factory first.
  const allowedFactories = deployments.contracts.smartAccountFactory ? [deployments.contracts.smartAccountFactory] : [];
  const facilitator = await startFacilitator(rpcUrl, config.DEVNET_HOST, config.X402_FACILITATOR_PORT, { allowedFactories }).catch((error: Error) => {
    log(`x402 facilitator not started (${error.message}): paid runs answer 503 until one runs; set X402_FACILITATOR_PORT`);
    return undefined;
  });
  if (facilitator) log(`x402 facilitator listening on http://${config.DEVNET_HOST}:${config.X402_FACILITATOR_PORT} (settles from ${facilitator.address})`);

  const market = new MarketSimulator(ctx, deployments.contracts.marketMaker!, deployments.tokens);
  const keeper = keeperSources(ctx, deployments);
  if (chain.reused) await bringToNow(chain);
  else await seed(ctx, deployments, market, keeper, now);
  const block = await chain.publicClient.getBlockNumber();

  // The faucet gives new wallets what the test wallets hold; a taken port costs only the faucet.
  const faucet = await startFaucet(ctx, deployments, config.DEVNET_HOST, config.DEVNET_FAUCET_PORT).catch((error: Error) => {
    log(`faucet not started (${error.message}): set DEVNET_FAUCET_PORT`);
    return undefined;
  });
  if (faucet) log(`faucet listening on http://${config.DEVNET_HOST}:${config.DEVNET_FAUCET_PORT} (npm run fund -- <address> [USDG amount])`);

  const accounts = Array.from({ length: 10 }, (_, i) => ({ index: i, address: accountAddress(i) }));
  writeFileSync(readyFile, JSON.stringify({ rpcUrl, chainId: 4663, block: Number(block), deploymentsFile: config.DEPLOYMENTS_FILE, accounts }, null, 2));
  log(`ready in ${((Date.now() - t0) / 1000).toFixed(1)} s. Test wallets (mnemonic "test test … junk"):`);
  for (const a of accounts) log(`  #${a.index} ${a.address}`);

  // Live: move the market and run the keeper every interval.
  let busy = false;
  const interval = setInterval(async () => {
    if (busy) return;
    busy = true;
    try {
      await market.step(config.DEVNET_SIM_INTERVAL_MS / 3_600_000);
      await runKeeper(ctx, deployments.contracts.marketMaker!, [...keeper.fills, ...keeper.upkeep]);
    } catch (err) {
      log(`simulator step failed: ${(err as Error).message.split("\n")[0]}`);
    } finally {
      busy = false;
    }
  }, config.DEVNET_SIM_INTERVAL_MS);

  const stop = async () => {
    clearInterval(interval);
    rmSync(readyFile, { force: true });
    await facilitator?.close();
    await faucet?.close();
    if ((await chain.close()) && stateFile) writeFileSync(stoppedMark(stateFile), JSON.stringify({ ...made, stoppedAt: new Date().toISOString() }));
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

async function seed(ctx: DeployContext, deployments: Deployments, market: MarketSimulator, keeper: ReturnType<typeof keeperSources>, now: number) {
  const seedStart = Date.now();
  const end = Math.floor(Date.now() / 1000);
  const steps = await seedHistory(ctx, deployments, market, {
    from: now - config.DEVNET_HISTORY_DAYS * DAY,
    to: end,
    keeper,
    activity: seedActivity(ctx, deployments, market),
    onProgress: (done, total) => log(`seeding history: ${done}/${total} steps`),
  });
  // Seeding ran behind the wall clock: bring the chain to now before going live.
  await ctx.chain.testClient.setNextBlockTimestamp({ timestamp: BigInt(Math.max(wallSecondUp(), end + 1)) });
  await ctx.chain.testClient.mine({ blocks: 1 });
  const block = await ctx.chain.publicClient.getBlockNumber();
  log(`seeded ${steps} steps to block ${block} in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`);
}

main().catch((err) => {
  console.error(`[devnet] failed: ${err instanceof Error ? err.stack : err}`);
  process.exit(1);
});
