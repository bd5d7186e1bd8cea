// The devnet's wallets for tests on a running stack: the chain of devnet/chain.ts at the stack's RPC URL,
// the test mnemonic's accounts, public and wallet clients, deployed tokens by symbol, balances and funding.
import { createPublicClient, createWalletClient, erc20Abi, http, type Account, type Address, type Hex, type PublicClient, type TransactionReceipt } from "viem";
import { mnemonicToAccount, type HDAccount } from "viem/accounts";
import { expect } from "vitest";
import { testTokenAbi } from "../../abis/index.js";
import { withGasHeadroom } from "../../client/send-prepared.js";
import type { Deployments } from "../../adapters/chain/deployments.js";
import { devnetChain, TEST_MNEMONIC } from "../../devnet/chain.js";

// Deriving a key costs ~20 ms, so each index is derived once.
const accounts = new Map<number, HDAccount>();

/** Account `index` of the test mnemonic (0-9 are funded test wallets; 10, the admin, may mint every TestToken). */
export function testAccount(index: number): HDAccount {
  let account = accounts.get(index);
  if (!account) accounts.set(index, (account = mnemonicToAccount(TEST_MNEMONIC, { addressIndex: index })));
  return account;
}

/** The devnet's chain (id 4663, from domain/chain.ts) with its RPC at `rpcUrl`. */
export const devnetAt = (rpcUrl: string) => ({ ...devnetChain, rpcUrls: { default: { http: [rpcUrl] } } });

/** A public client on the devnet at `rpcUrl`. */
export const publicClientAt = (rpcUrl: string, options: { pollingInterval?: number } = {}): PublicClient =>
  createPublicClient({ chain: devnetAt(rpcUrl), transport: http(rpcUrl), ...options });

/** A wallet client of `account` on the devnet at `rpcUrl`. */
export const walletAt = <A extends Account>(rpcUrl: string, account: A) => createWalletClient({ account, chain: devnetAt(rpcUrl), transport: http(rpcUrl) });

/** The listed token of `symbol` (its address and decimals). */
export const tokenIn = (d: Deployments, symbol: string) => d.tokens.find((t) => t.symbol === symbol)!;

/** The address of the basket of `symbol`. */
export const basketIn = (d: Deployments, symbol: string) => d.baskets.find((b) => b.symbol === symbol)!.address;

/** `who`'s balance of the ERC-20 `token`. */
export const balanceAt = (chain: PublicClient, token: Address, who: Address) =>
  chain.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [who] });

type Call = { address: Address; abi: any; functionName: string; args?: readonly unknown[]; value?: bigint };

/**
 * Sends one contract call from `account` with a wallet's headroom over the gas estimate, and expects a
 * successful receipt (the message names the call). The shared devnet's keeper writes between estimate and
 * send (a settlement that empties a queue makes the next request's stores cost more): CI once saw a
 * requestDeposit run out of gas at the bare estimate.
 */
export async function writeAt(rpcUrl: string, chain: PublicClient, account: Account, call: Call): Promise<TransactionReceipt> {
  const gas = await chain.estimateContractGas({ ...call, account } as never);
  const hash = await walletAt(rpcUrl, account).writeContract({ ...call, gas: withGasHeadroom(gas) } as never);
  const receipt = await chain.waitForTransactionReceipt({ hash });
  expect(receipt.status, `${call.functionName} on ${call.address}`).toBe("success");
  return receipt;
}

/** The admin (wallet 10, which may mint every TestToken) mints `amount` of `token` to `to`. */
export const mintAt = (rpcUrl: string, chain: PublicClient, token: Address, to: Address, amount: bigint) =>
  writeAt(rpcUrl, chain, testAccount(10), { address: token, abi: testTokenAbi, functionName: "mint", args: [to, amount] });

/** The admin sends `value` wei to `to` (gas for a wallet the devnet did not fund). */
export async function sendEthAt(rpcUrl: string, chain: PublicClient, to: Address, value: bigint): Promise<void> {
  const hash = await walletAt(rpcUrl, testAccount(10)).sendTransaction({ to, value });
  expect((await chain.waitForTransactionReceipt({ hash })).status).toBe("success");
}

/**
 * Sends one bundle step (or any transaction) from `account` with headroom over the gas estimate, as wallets
 * give (withGasHeadroom, the typed client's), and expects a successful receipt: at the estimate alone CI once
 * saw a zap run out of gas.
 */
export async function sendStepAt(
  rpcUrl: string,
  chain: PublicClient,
  account: Account,
  tx: { to: Address; data?: Hex; value?: bigint },
  what = `step to ${tx.to}`,
) {
  const value = tx.value ?? 0n;
  const gas = await chain.estimateGas({ account, to: tx.to, data: tx.data, value });
  const hash = await walletAt(rpcUrl, account).sendTransaction({ to: tx.to, data: tx.data, value, gas: withGasHeadroom(gas) });
  const receipt = await chain.waitForTransactionReceipt({ hash });
  expect(receipt.status, what).toBe("success");
  return receipt;
}

/**
 * Signs and sends a prepared bundle's steps in order from `account` (sendStepAt each), as the owner's wallet
 * would, after checking that none asks for value (the contract's steps carry "0"). Answers the receipts.
 */
export async function sendStepsAt(
  rpcUrl: string,
  chain: PublicClient,
  account: Account,
  steps: readonly { to: Address; data: Hex; value: string }[],
  label?: string,
) {
  const receipts: TransactionReceipt[] = [];
  for (const step of steps) {
    const what = label ? `${label}: step to ${step.to}` : `step to ${step.to}`;
    expect(step.value, what).toBe("0");
    receipts.push(await sendStepAt(rpcUrl, chain, account, { to: step.to, data: step.data }, what));
  }
  return receipts;
}
