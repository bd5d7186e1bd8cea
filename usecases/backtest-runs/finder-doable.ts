// Which strategy-finder results an agent can act on now: the board recommends only what its run body
// prepares for a funded owner. A vault must take the deposit (open, with room for the budget and a
// minimum under it); a grid needs the grid strategy unpaused; a dip ladder needs the ladder strategy
// unpaused and the token's market listed and open. Read at answer time, so a result that stopped being
// doable since the scan (a vault paused, a market closed) is never answered.
import type { Kysely } from "kysely";
import { parseUnits } from "viem";
import type { ServiceChainStateReader } from "../../adapters/chain/service-state.js";
import type { Projections } from "../../adapters/db/projections.js";
import { readAgentVaults, type VaultRow } from "../../adapters/db/reads/vaults.js";
import { sameAddress } from "../../domain/address.js";
import { USDG_DECIMALS, usdgToToken } from "../../domain/price.js";
import type { FinderStyle } from "../../domain/strategy-finder/board.js";
import { vaultRoom } from "../../domain/vault-figures.js";

export type DoableDeps = { reads: Kysely<Projections>; chainState: ServiceChainStateReader };

/** True when a result of `style` on `key` (a token, or a vault) can be prepared now with `budgetUsd`. */
export type Doable = (key: string, style: FinderStyle, budgetUsd: number) => boolean;

export async function doableNow(deps: DoableDeps): Promise<Doable> {
  const [vaults, read] = await Promise.all([readAgentVaults(deps.reads), deps.chainState()]);
  const state = read.ok ? read.state : read.lastGood;
  const byVault = new Map(vaults.map((v) => [v.address.toLowerCase(), v]));
  return (key, style, budgetUsd) => {
    if (style === "vault") {
      const vault = byVault.get(key.toLowerCase());
      return vault !== undefined && takesDeposit(vault, budgetUsd);
    }
    // Without a read of the strategies (the RPC down since start), nothing says they are open.
    if (!state) return false;
    if (style === "grid") return state.gridStrategy !== null && !state.gridStrategy.paused;
    const ladder = state.ladderStrategy;
    const market = ladder?.markets.find((m) => sameAddress(m.token, key));
    return ladder !== null && !ladder.paused && market?.listed === true && market.open;
  };
}

/** The vault takes a deposit of `budgetUsd` now: open, the budget within its room and above its minimum. */
function takesDeposit(vault: VaultRow, budgetUsd: number): boolean {
  const room = vaultRoom(vault);
  if (room === 0n) return false;
  const usdg = parseUnits(budgetUsd.toFixed(USDG_DECIMALS), USDG_DECIMALS);
  if (vault.family === "stock-token") {
    // Room and minimum are in stock tokens: what the budget buys at the token's latest price.
    const price = vault.tokenPriceX18;
    if (!price || price <= 0n) return false;
    const tokens = usdgToToken(usdg, 18, price);
    return (room === null || tokens <= room) && tokens >= vault.minDeposit;
  }
  return (room === null || usdg <= room) && usdg >= vault.minDeposit;
}
