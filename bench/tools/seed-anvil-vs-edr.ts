// Seeding time on the in-process EDR chain against anvil over HTTP (CHAIN=edr|anvil, DAYS default 2):
// whether a devnet on anvil (DEVNET_STATE_FILE) starts as fast as today's the first time.
// ANVIL_ARGS adds anvil flags (e.g. "--prune-history 64"); ANVIL_LOG=1 prints its output.
import { startAnvil } from "../../devnet/anvil.js";
import { startChain, type ChainClients } from "../../devnet/chain.js";
import { compileContracts } from "../../devnet/compile.js";
import { deployAll } from "../../devnet/deploy/all.js";
import { deployContext } from "../../devnet/deploy/context.js";
import { keeperSources } from "../../devnet/keeper/all.js";
import { MarketSimulator } from "../../devnet/market.js";
import { seedActivity } from "../../devnet/seed/activity.js";
import { seedHistory } from "../../devnet/seed/history.js";

const days = Number(process.env.DAYS ?? 2);
const kind = process.env.CHAIN ?? "edr";
const DAY = 86400;
const artifacts = compileContracts();
const now = Math.floor(Date.now() / 1000);
const genesisTime = now - days * DAY - 3 * 3600;
const t0 = performance.now();
const chain: ChainClients & { close?: () => Promise<unknown> } =
  kind === "anvil"
    ? await startAnvil({
        genesisTime,
        accounts: 20,
        extraArgs: process.env.ANVIL_ARGS?.split(" ").filter(Boolean),
        onLine: process.env.ANVIL_LOG ? (l) => console.log(`anvil| ${l}`) : undefined,
      })
    : await startChain({ genesisTime });
const ctx = deployContext(chain, artifacts);
const d = await deployAll(ctx);
const t1 = performance.now();
const market = new MarketSimulator(ctx, d.contracts.marketMaker!, d.tokens);
const steps = await seedHistory(ctx, d, market, { from: now - days * DAY, to: now, keeper: keeperSources(ctx, d), activity: seedActivity(ctx, d, market) });
const t2 = performance.now();
console.log(`${kind}: ${days} days, ${steps} steps: boot+deploy ${((t1 - t0) / 1000).toFixed(1)} s, seed ${((t2 - t1) / 1000).toFixed(1)} s`);
await chain.close?.();
process.exit(0);
