// The API's read connection to chain 4663: a viem public client over HTTP. Reads made in the same
// tick go out as one JSON-RPC batch; a dead RPC fails within `timeoutMs` instead of hanging a route.
import { createPublicClient, defineChain, http, type PublicClient } from "viem";
import { CHAIN_ID } from "../../domain/chain.js";

/** Chain 4663 as viem sees it (the RPC URL is the one given to `createChainClient`). */
export const chain4663 = defineChain({
  id: CHAIN_ID,
  name: `Chain ${CHAIN_ID}`,
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: [] } },
});

export type CreateChainClientOptions = {
  /** Per request, in milliseconds (default 5000). */
  timeoutMs?: number;
  /** Retries of a failed request (default 1). */
  retryCount?: number;
};

/** A public client on `rpcUrl` (use `rpcUrl(config)`), batching the reads of one tick. */
export function createChainClient(rpcUrl: string, { timeoutMs = 5000, retryCount = 1 }: CreateChainClientOptions = {}): PublicClient {
  return createPublicClient({
    chain: chain4663,
    transport: http(rpcUrl, { batch: { wait: 0 }, timeout: timeoutMs, retryCount, retryDelay: 100 }),
  });
}
