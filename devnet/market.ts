// The market simulator: keeps a simulated price per token and trades the pools towards it.
import type { Address, Hex } from "viem";
import { marketMakerAbi } from "../abis/index.js";
import { priceToX18 } from "../src/domain/price.js";
import type { DeployedToken } from "../src/chain/deployments.js";
import type { DeployContext } from "./deploy/context.js";
import { nextPrice, seededRandom } from "./seed/price-paths.js";
import { devnetTokens, type DevnetToken } from "./tokens.js";

export class MarketSimulator {
  private readonly random: () => number;
  private readonly prices = new Map<string, number>();
  private readonly specs: { spec: DevnetToken; pool: Address }[];

  constructor(private readonly ctx: DeployContext, private readonly marketMaker: Address, tokens: DeployedToken[], seed = 4663) {
    this.random = seededRandom(seed);
    this.specs = devnetTokens.map((spec) => ({ spec, pool: tokens.find((t) => t.symbol === spec.symbol)!.pool! }));
    for (const { spec } of this.specs) this.prices.set(spec.symbol, spec.startPrice);
  }

  price(symbol: string): number {
    return this.prices.get(symbol)!;
  }

  /** Advances every simulated price by `hours` and trades all pools there in one transaction. */
  async step(hours: number): Promise<Hex> {
    const targets = this.specs.map(({ spec }) => {
      const p = nextPrice(this.price(spec.symbol), { startPrice: spec.startPrice, hourlyVolatility: spec.volatility }, hours, this.random);
      this.prices.set(spec.symbol, p);
      return priceToX18(p);
    });
    return this.ctx.send(this.marketMaker, marketMakerAbi, "moveTo", [this.specs.map((s) => s.pool), targets], this.ctx.keeper);
  }
}
