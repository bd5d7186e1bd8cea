// Writes config/token-list.json from a fresh devnet core deploy (addresses are deterministic).
// The service lists every devnet token but SCAM, which plays an unverified look-alike.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startChain } from "./chain.js";
import { compileContracts } from "./compile.js";
import { deployContext } from "./deploy/context.js";
import { deployCore } from "./deploy/core.js";
import { CHAIN_ID } from "../domain/chain.js";

export const UNLISTED = new Set(["SCAM"]);

const chain = await startChain({ genesisTime: Math.floor(Date.now() / 1000) - 86400 });
const core = await deployCore(deployContext(chain, compileContracts({ only: ["core"] })));
const tokens = core.tokens.filter((t) => !UNLISTED.has(t.symbol)).map((t) => ({ address: t.address, symbol: t.symbol, category: t.category }));
const file = join(import.meta.dirname, "..", "config", "token-list.json");
writeFileSync(
  file,
  `${JSON.stringify({ chainId: CHAIN_ID, note: "The service's own token list: listed (verified) tokens by address, with their category. Tokens not here are unverified; their symbols are their own.", tokens }, null, 2)}\n`,
);
console.log(`wrote ${tokens.length} tokens to ${file}`);
process.exit(0);
