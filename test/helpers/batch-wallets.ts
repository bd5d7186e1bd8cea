// Wallets that honour `atomicRequired` the way modern wallets do, for tests on a running devnet: each
// answers EIP-5792 wallet_sendCalls with one transaction and passes every other request to the RPC.
// - an EIP-7702 account delegated to the devnet's ERC-7821 BatchExecutor: the calls go out as one
//   `execute(batch mode, calls)` transaction from the account to itself;
// - an ERC-4337 SmartAccount: the calls go out as one user operation (`executeBatch`), signed by the
//   account's owner and sent by a bundler EOA through the EntryPoint's `handleOps`.
import {
  createWalletClient,
  custom,
  decodeEventLog,
  encodeFunctionData,
  http,
  isAddressEqual,
  pad,
  type Address,
  type EIP1193RequestFn,
  type Hex,
  type LocalAccount,
  type PublicClient,
} from "viem";
import { entryPointAbi, smartAccountAbi, smartAccountFactoryAbi } from "../../abis/index.js";
import type { Deployments } from "../../adapters/chain/deployments.js";
import { devnetAt, walletAt } from "./wallets.js";
import { encodeBatchExecute } from "./erc7821.js";

type SendCalls = { version: string; chainId: Hex; from?: Address; atomicRequired: boolean; calls: { to: Address; data?: Hex; value?: Hex }[] };

/** The wallet_sendCalls requests each wallet got, for the tests' assertions. */
export type BatchWallet = { requests: SendCalls[] };

function batchProvider(rpcUrl: string, send: (req: SendCalls) => Promise<Hex>, status: (hash: Hex) => Promise<number>, requests: SendCalls[]) {
  const rpc = http(rpcUrl)({ chain: devnetAt(rpcUrl) }).request as EIP1193RequestFn;
  return custom({
    request: async ({ method, params }: { method: string; params?: unknown }) => {
      if (method === "wallet_sendCalls") {
        const [req] = params as [SendCalls];
        requests.push(req);
        return { id: await send(req) };
      }
      if (method === "wallet_getCallsStatus") {
        const [id] = params as [Hex];
        const code = await status(id);
        return { version: "2.0.0", id, chainId: "0x1237", atomic: true, status: code, receipts: [{ transactionHash: id }] };
      }
      return rpc({ method, params } as never);
    },
  });
}

/**
 * Delegates `account` (EIP-7702, a type-4 transaction it signs for itself) to the devnet's BatchExecutor (or
 * to `executor`, a delegate of the test's) and answers a wallet client whose wallet_sendCalls sends one
 * ERC-7821 batch.
 */
export async function delegatedWallet(
  rpcUrl: string,
  chain: PublicClient,
  account: LocalAccount,
  d: Deployments,
  executor: Address = d.contracts.batchExecutor!,
) {
  const plain = walletAt(rpcUrl, account);
  const authorization = await plain.signAuthorization({ account, contractAddress: executor, executor: "self" });
  const hash = await plain.sendTransaction({ to: account.address, data: "0x", authorizationList: [authorization] });
  if ((await chain.waitForTransactionReceipt({ hash })).status !== "success") throw new Error("the 7702 delegation reverted");
  const requests: SendCalls[] = [];
  const send = (req: SendCalls) =>
    plain.sendTransaction({
      to: account.address,
      data: encodeBatchExecute(req.calls.map((c) => ({ to: c.to, value: BigInt(c.value ?? "0x0"), data: c.data ?? "0x" }))),
    });
  const status = async (hash: Hex) => ((await chain.waitForTransactionReceipt({ hash })).status === "success" ? 200 : 500);
  const wallet = createWalletClient({ account, chain: devnetAt(rpcUrl), transport: batchProvider(rpcUrl, send, status, requests) });
  return { wallet, requests, code: await chain.getCode({ address: account.address }) };
}

/**
 * Makes `owner`'s SmartAccount (salt 0) with the devnet's factory and answers a wallet client for it (a
 * json-rpc account at the smart account's address) whose wallet_sendCalls sends one user operation.
 */
export async function smartAccountWallet(rpcUrl: string, chain: PublicClient, owner: LocalAccount, bundler: LocalAccount, d: Deployments) {
  const factory = d.contracts.smartAccountFactory!;
  const entryPoint = d.contracts.entryPoint!;
  const bundlerWallet = walletAt(rpcUrl, bundler);
  const made = await bundlerWallet.writeContract({ address: factory, abi: smartAccountFactoryAbi, functionName: "createAccount", args: [owner.address, 0n] });
  if ((await chain.waitForTransactionReceipt({ hash: made })).status !== "success") throw new Error("createAccount reverted");
  const sender = await chain.readContract({ address: factory, abi: smartAccountFactoryAbi, functionName: "getAddress", args: [owner.address, 0n] });
  const requests: SendCalls[] = [];
  /** The revert data of failed operations. */
  const failures: Hex[] = [];
  const send = async (req: SendCalls) => {
    const callData = encodeFunctionData({
      abi: smartAccountAbi,
      functionName: "executeBatch",
      args: [req.calls.map((c) => ({ target: c.to, value: BigInt(c.value ?? "0x0"), data: c.data ?? "0x" }))],
    });
    const nonce = await chain.readContract({ address: entryPoint, abi: entryPointAbi, functionName: "getNonce", args: [sender, 0n] });
    const op = {
      sender,
      nonce,
      initCode: "0x" as Hex,
      callData,
      accountGasLimits: pad("0x", { size: 32 }),
      preVerificationGas: 0n,
      gasFees: pad("0x", { size: 32 }),
      paymasterAndData: "0x" as Hex,
      signature: "0x" as Hex,
    };
    const opHash = await chain.readContract({ address: entryPoint, abi: entryPointAbi, functionName: "getUserOpHash", args: [op] });
    const signature = await owner.signMessage({ message: { raw: opHash } });
    // An explicit gas limit: handleOps succeeds when the operation fails, so an estimate can starve the operation.
    return bundlerWallet.writeContract({
      address: entryPoint,
      abi: entryPointAbi,
      functionName: "handleOps",
      args: [[{ ...op, signature }], bundler.address],
      gas: 5_000_000n,
    });
  };
  // The operation's own outcome, from the EntryPoint's UserOperationEvent (handleOps itself succeeds either way).
  const status = async (hash: Hex) => {
    const receipt = await chain.waitForTransactionReceipt({ hash });
    for (const log of receipt.logs) {
      if (!isAddressEqual(log.address, entryPoint)) continue;
      const event = decodeEventLog({ abi: entryPointAbi, data: log.data, topics: log.topics, strict: false });
      if (event.eventName === "UserOperationRevertReason" && isAddressEqual(event.args.sender!, sender)) failures.push(event.args.revertReason!);
      if (event.eventName === "UserOperationEvent" && isAddressEqual(event.args.sender!, sender)) return event.args.success ? 200 : 500;
    }
    return 500;
  };
  const wallet = createWalletClient({ account: sender, chain: devnetAt(rpcUrl), transport: batchProvider(rpcUrl, send, status, requests) });
  return { wallet, requests, failures, address: sender };
}
