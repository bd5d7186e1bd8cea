// Sends a PrepareResult from the owner's wallet, as the sign page does: wallet_sendCalls (EIP-5792,
// the answer's `walletSendCalls` as is, `atomicRequired` included: a wallet that honours it sends one
// batch, e.g. an EIP-7702 account's ERC-7821 call or an ERC-4337 operation) when the wallet has it, else
// eth_sendTransaction one step at a time in the answer's order (approvals first), waiting for each receipt
// before the next.
// The service never signs: this runs in the agent's process, with the agent's wallet. Before anything
// goes to the wallet, the bundle is checked against the caller's allow-list (./bundle-check.ts), and the
// wallet's chain against the bundle's, before the batch and before every step sent one by one: a wallet
// (or, for a local account, the RPC it signs by) on another chain is refused with WrongChainError, never
// asked to sign (issue 51: a fallback signed a chain-4663 bundle with chain id 1).
import type { Account, Chain, Hex, PublicClient, TransactionReceipt, Transport, WalletClient } from "viem";
import { isAddressEqual } from "viem";
import type { PrepareResult } from "./agent-client.js";
import { checkPreparedResult, type BundleAllowList, type SigningExpectations } from "./bundle-check.js";

export type SendPreparedReturnType = {
  /** How the bundle went out. */
  method: "wallet_sendCalls" | "eth_sendTransaction";
  /** The wallet's batch id (wallet_sendCalls only). */
  callsId?: string;
  /** Whether the wallet ran the calls atomically, as its wallet_getCallsStatus says (wallet_sendCalls only). */
  atomic?: boolean;
  /** One per mined transaction, in order (a wallet may batch several steps into one). */
  receipts: TransactionReceipt[];
};

export type SendPreparedOptions = {
  /**
   * The service's contracts and tokens the caller trusts: a pinned deployments file (or allowListOf of it).
   * Every step, every walletSendCalls call, spender and address argument is checked against it;
   * a violation throws BundleCheckError and nothing is sent.
   */
  allow: BundleAllowList;
  /** Give up waiting for the batch or a receipt after this long (default 120 s). */
  timeoutMs?: number;
  /** Skip wallet_sendCalls (e.g. a wallet known to lack it). */
  fallbackOnly?: boolean;
  /** What the caller asked for and was shown (amount, quote and slippage; its clock): the figures signed must match. */
  expect?: SigningExpectations;
};

/**
 * A transaction's gas limit from its estimate, with the headroom wallets give: a zap routes through pools
 * that the market moves between the estimate and the block, and at the estimate alone it can run out of gas.
 */
export const withGasHeadroom = (estimate: bigint) => (estimate * 13n) / 10n;

export class SendPreparedError extends Error {
  override name = "SendPreparedError";
}

/** The wallet is not on the bundle's chain: nothing more was sent (steps already mined are in `sent`). */
export class WrongChainError extends SendPreparedError {
  override name = "WrongChainError";
  constructor(
    /** The bundle's chain id. */
    readonly expected: number,
    /** The wallet's (its client's configured chain, or what its transport answers to eth_chainId). */
    readonly actual: number,
    /** Steps mined before the wallet left the chain (one by one only). */
    readonly sent: number = 0,
  ) {
    super(`the wallet is on chain ${actual}, the bundle is for chain ${expected}: switch the wallet to chain ${expected} (${sent} step(s) were sent before)`);
  }
}

/** Throws WrongChainError unless the wallet client's chain, configured and answered, is `expected`. */
async function requireChain(walletClient: WalletClient<Transport, Chain | undefined, Account | undefined>, expected: number, sent: number): Promise<void> {
  // A local account signs with the client's configured chain when it has one, else with what its RPC answers.
  const configured = walletClient.chain?.id;
  if (configured !== undefined && configured !== expected) throw new WrongChainError(expected, configured, sent);
  const answered = await walletClient.getChainId();
  if (answered !== expected) throw new WrongChainError(expected, answered, sent);
}

/** Error codes that mean "this wallet cannot do wallet_sendCalls (here)": fall back to one by one. */
const UNSUPPORTED_CODES = new Set([
  -32601, // method not found
  -32004, // method not supported
  4200, // EIP-1193 unsupported method
  5700, // EIP-5792 unsupported non-optional capability (e.g. atomic)
  5710, // EIP-5792 unsupported chain id
  5750, // EIP-5792 the user rejected the upgrade to an atomic-ready account (the wallet may still send one by one)
  5760, // EIP-5792 atomicity not supported, and the bundle requires it (atomicRequired: an approval before its action)
]);

function unsupported(error: unknown): boolean {
  for (let e = error as { code?: number; message?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.code === 4001) return false; // the user said no: never retry another way
    if (e.code !== undefined && UNSUPPORTED_CODES.has(e.code)) return true;
    if (/not supported|unsupported|does not exist|not found|not available/i.test(e.message ?? "")) return true;
  }
  return false;
}

type CallsStatus = { status: number; atomic?: boolean; receipts?: { transactionHash: Hex }[] };

/**
 * Sends `result` from `walletClient` (whose account must be the bundle's owner) and waits until every
 * step is mined; throws BundleCheckError (before sending) when the bundle breaks the money-safety rules
 * against `options.allow`, WrongChainError when the wallet is not on the bundle's chain, SendPreparedError
 * when a step reverts, the batch fails, or time runs out.
 */
export async function sendPrepared(
  walletClient: WalletClient<Transport, Chain | undefined, Account | undefined>,
  publicClient: PublicClient,
  result: PrepareResult,
  options: SendPreparedOptions,
): Promise<SendPreparedReturnType> {
  const account = walletClient.account;
  if (!account) throw new SendPreparedError("the wallet client has no account");
  if (!isAddressEqual(account.address, result.owner as Hex)) throw new SendPreparedError(`the bundle is for ${result.owner}, not ${account.address}`);
  if (Date.parse(result.expiresAt) <= Date.now()) throw new SendPreparedError("the bundle expired: prepare again");
  checkPreparedResult(result, options.allow, options.expect);
  const timeout = options.timeoutMs ?? 120_000;
  // The bundle's chain (its walletSendCalls' chainId, which the check above holds to this service's chain).
  const chainId = Number(result.walletSendCalls.chainId);

  if (!options.fallbackOnly) {
    await requireChain(walletClient, chainId, 0);
    let id: string | undefined;
    try {
      const answer = (await walletClient.request({ method: "wallet_sendCalls", params: [result.walletSendCalls] } as never)) as { id: string } | string;
      id = typeof answer === "string" ? answer : answer.id;
    } catch (error) {
      if (!unsupported(error)) throw error;
    }
    if (id !== undefined) return { method: "wallet_sendCalls", callsId: id, ...(await waitForCalls(walletClient, publicClient, id, timeout)) };
  }

  const receipts: TransactionReceipt[] = [];
  for (const [i, step] of result.steps.entries()) {
    // Before every step: the wallet may have switched chains since the batch was refused or the last step mined.
    await requireChain(walletClient, chainId, i);
    const tx = { to: step.to as Hex, data: step.data as Hex, value: BigInt(step.value) };
    // A wallet (a JSON-RPC account) estimates with its own headroom; viem signing for a local account uses the bare estimate.
    const gas = account.type === "local" ? withGasHeadroom(await publicClient.estimateGas({ account, ...tx })) : undefined;
    const hash = await walletClient.sendTransaction({ account, chain: walletClient.chain ?? null, ...tx, gas });
    const receipt = await publicClient.waitForTransactionReceipt({ hash, timeout });
    if (receipt.status !== "success") throw new SendPreparedError(`step ${i + 1} of ${result.steps.length} reverted (${hash})`);
    receipts.push(receipt);
  }
  return { method: "eth_sendTransaction", receipts };
}

/** Polls wallet_getCallsStatus until the batch is final; answers the mined receipts. */
async function waitForCalls(
  walletClient: WalletClient<Transport, Chain | undefined, Account | undefined>,
  publicClient: PublicClient,
  id: string,
  timeout: number,
): Promise<{ receipts: TransactionReceipt[]; atomic?: boolean }> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const status = (await walletClient.request({ method: "wallet_getCallsStatus", params: [id] } as never)) as CallsStatus;
    // EIP-5792 v2: 1xx pending, 200 confirmed, 4xx failed off chain, 5xx reverted, 6xx partly reverted.
    if (status.status === 200) {
      const hashes = [...new Set((status.receipts ?? []).map((r) => r.transactionHash))];
      const receipts = await Promise.all(hashes.map((hash) => publicClient.getTransactionReceipt({ hash })));
      const reverted = receipts.find((r) => r.status !== "success");
      if (reverted) throw new SendPreparedError(`transaction ${reverted.transactionHash} reverted`);
      return { receipts, ...(typeof status.atomic === "boolean" ? { atomic: status.atomic } : {}) };
    }
    if (status.status >= 400) throw new SendPreparedError(`the wallet's batch ${id} failed (status ${status.status})`);
    if (Date.now() > deadline) throw new SendPreparedError(`the wallet's batch ${id} is still pending after ${timeout / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
