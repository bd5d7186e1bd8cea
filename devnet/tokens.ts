// The devnet's token universe: what is deployed, its market's starting price and liquidity, and
// how the simulator moves it. Whether the service lists a token is in adapters/chain/token-list.ts.
export type TokenCategory = "stock" | "crypto" | "utility" | "meme" | "unclassified";

export type DevnetToken = {
  symbol: string;
  name: string;
  decimals: number;
  category: TokenCategory;
  /** USD price at the start of the seeded history. */
  startPrice: number;
  /** Hourly volatility of the simulated walk (fraction). */
  volatility: number;
  /** USDG on each side of its pool at the start (pool TVL is twice this). */
  liquidityUsd: number;
};

export const devnetTokens: DevnetToken[] = [
  { symbol: "WETH", name: "Wrapped Ether", decimals: 18, category: "crypto", startPrice: 3000, volatility: 0.006, liquidityUsd: 20_000_000 },
  { symbol: "WBTC", name: "Wrapped Bitcoin", decimals: 8, category: "crypto", startPrice: 65000, volatility: 0.005, liquidityUsd: 20_000_000 },
  { symbol: "SOLX", name: "Solx", decimals: 18, category: "crypto", startPrice: 150, volatility: 0.009, liquidityUsd: 5_000_000 },
  { symbol: "LINK", name: "Chainlink Token", decimals: 18, category: "crypto", startPrice: 15, volatility: 0.008, liquidityUsd: 3_000_000 },
  { symbol: "GAS", name: "Gas Credit", decimals: 18, category: "utility", startPrice: 2.5, volatility: 0.007, liquidityUsd: 1_000_000 },
  { symbol: "ORCL", name: "Oracle Points", decimals: 18, category: "utility", startPrice: 12, volatility: 0.007, liquidityUsd: 1_000_000 },
  { symbol: "DOGE2", name: "Doge Two", decimals: 18, category: "meme", startPrice: 0.12, volatility: 0.015, liquidityUsd: 800_000 },
  { symbol: "PEPE2", name: "Pepe Two", decimals: 18, category: "meme", startPrice: 0.0000085, volatility: 0.02, liquidityUsd: 500_000 },
  { symbol: "WIF2", name: "Wif Two", decimals: 18, category: "meme", startPrice: 1.8, volatility: 0.018, liquidityUsd: 400_000 },
  { symbol: "tsAAPL", name: "Apple Stock Token", decimals: 18, category: "stock", startPrice: 190, volatility: 0.004, liquidityUsd: 4_000_000 },
  { symbol: "tsTSLA", name: "Tesla Stock Token", decimals: 18, category: "stock", startPrice: 240, volatility: 0.008, liquidityUsd: 3_000_000 },
  { symbol: "tsNVDA", name: "Nvidia Stock Token", decimals: 18, category: "stock", startPrice: 120, volatility: 0.007, liquidityUsd: 3_000_000 },
  { symbol: "tsSPY", name: "S&P 500 Stock Token", decimals: 18, category: "stock", startPrice: 520, volatility: 0.003, liquidityUsd: 6_000_000 },
  // Unlisted: on chain and charted, but not on the service's list. SCAM copies a listed symbol's look.
  { symbol: "SCAM", name: "Totally Legit USD", decimals: 18, category: "unclassified", startPrice: 0.5, volatility: 0.01, liquidityUsd: 200_000 },
  // A thin market: a 1,000 USDG buy moves it by several percent.
  { symbol: "THIN", name: "Thin Market Token", decimals: 18, category: "meme", startPrice: 3, volatility: 0.012, liquidityUsd: 20_000 },
];
