// The one chain the service serves, named once: its id, as EIP-5792 writes it, and as CAIP-2 names it.

export const CHAIN_ID = 4663;

/** The chain id as EIP-5792's wallet_sendCalls writes it. */
export const CHAIN_ID_HEX = "0x1237" as const;

/** The chain as CAIP-2 names it (x402 and wallet policies). */
export const CAIP2_NETWORK = `eip155:${CHAIN_ID}` as const;

/** Why prepares answer 503 when the RPC turned out to be on another chain. */
export const WRONG_CHAIN = `The chain RPC is not on chain ${CHAIN_ID}: prepares are stopped`;
