// The devnet's EVM: Hardhat's EDR engine, in this process, with chain id 4663. Clients talk to it
// in-process (fast, for seeding and tests) and, once served, over JSON-RPC on 127.0.0.1:8545.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createPublicClient, createTestClient, createWalletClient, custom, defineChain, getContractAddress, type Address, type EIP1193Provider } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { CHAIN_ID } from "../domain/chain.js";

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));

export const TEST_MNEMONIC = "test test test test test test test test test test test junk";

/** Accounts 0-9 are the test wallets; the service's own roles use higher indexes (12: the x402 facilitator, 19: the
 * faucet's ETH, never the service). Hardhat unlocks indexes 0-19 (hardhat.config.cjs). */
export const roles = { deployer: 10, keeper: 11, facilitator: 12, faucet: 19 } as const;

/** Multicall3 is the deployer's first contract, so its address is known before anything is deployed. */
export const multicall3Address = getContractAddress({ from: mnemonicToAccount(TEST_MNEMONIC, { addressIndex: roles.deployer }).address, nonce: 0n });

export const devnetChain = defineChain({
  id: CHAIN_ID,
  name: `Devnet ${CHAIN_ID}`,
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: ["http://127.0.0.1:8545"] } },
  contracts: { multicall3: { address: multicall3Address } },
});

// Deriving a key costs ~20 ms, so each index is derived once.
const addresses = new Map<number, Address>();
export function accountAddress(index: number): Address {
  let address = addresses.get(index);
  if (!address) addresses.set(index, (address = mnemonicToAccount(TEST_MNEMONIC, { addressIndex: index }).address));
  return address;
}

/** A chain's provider and clients: the in-process EDR chain's, or a node's over HTTP (devnet/anvil.ts). */
export type ChainClients = ReturnType<typeof clientsFor> & { provider: EIP1193Provider };

export type Chain = ChainClients & {
  /** Serves JSON-RPC over HTTP; resolves once listening. */
  serve(host: string, port: number): Promise<{ close(): Promise<void> }>;
};

export function clientsFor(provider: EIP1193Provider, mode: "hardhat" | "anvil" = "hardhat") {
  const transport = custom(provider);
  // Concurrent reads of one tick go to the chain as one Multicall3 eth_call.
  const publicClient = createPublicClient({ chain: devnetChain, transport, pollingInterval: 50 });
  const testClient = createTestClient({ chain: devnetChain, transport, mode });
  const wallets = new Map<number, ReturnType<typeof wallet>>();
  const wallet = (index: number) => createWalletClient({ chain: devnetChain, transport, account: accountAddress(index) });
  const walletFor = (index: number) => {
    if (!wallets.has(index)) wallets.set(index, wallet(index));
    return wallets.get(index)!;
  };
  return { publicClient, testClient, walletFor, node: mode };
}

/** Boots an in-process chain whose genesis is at `genesisTime` (unix seconds). One per process. */
export async function startChain({ genesisTime }: { genesisTime: number }): Promise<Chain> {
  process.env.HARDHAT_CONFIG = join(here, "hardhat.config.cjs");
  process.env.DEVNET_GENESIS_TIME = String(genesisTime);
  const hre = require("hardhat");
  const provider = hre.network.provider as EIP1193Provider;
  return {
    provider,
    ...clientsFor(provider),
    async serve(hostname: string, port: number) {
      const server = await hre.run("node:create-server", { hostname, port, provider });
      await server.listen();
      return { close: () => server.close() };
    },
  };
}
