// What every family's deploy function gets: the chain, the compiled artifacts and a deployer.
import {
  createPublicClient,
  custom,
  decodeFunctionResult,
  encodeDeployData,
  encodeFunctionData,
  formatTransactionReceipt,
  getAddress,
  multicall3Abi,
  type Abi,
  type Address,
  type EIP1193Provider,
  type Hex,
  type RpcTransactionReceipt,
  toHex,
  type TransactionReceipt,
} from "viem";
import type { ChainClients } from "../chain.js";
import { roles, accountAddress, devnetChain, multicall3Address } from "../chain.js";
import type { Artifacts } from "../compile.js";

// The devnet's EVM (EDR) allocates with mimalloc and records a trace of every executed opcode; by default
// mimalloc hands freed pages back to the OS at once, so every transaction faults them in again (a third of
// the EVM's time went to the kernel zeroing pages). Keep them: set before the chain's engine loads (it
// loads on the first request, after every module of a devnet entry point, this one included, is evaluated).
process.env.MIMALLOC_PURGE_DELAY ??= "-1";

export type DeployContext = {
  chain: ChainClients;
  artifacts: Artifacts;
  /** The service's admin and deployer (mnemonic index 10). */
  admin: Address;
  /** The keeper (mnemonic index 11): fills, settles, harvests. */
  keeper: Address;
  deploy(name: string, args?: readonly unknown[]): Promise<Address>;
  /** Sends a transaction from `from` (default: admin) and waits for a successful receipt. */
  send(to: Address, abi: Abi, functionName: string, args?: readonly unknown[], from?: Address): Promise<Hex>;
  /** Calls `listener` with the receipt of every transaction sent through this context; returns the unsubscribe. */
  onReceipt(listener: (receipt: TransactionReceipt) => void): () => void;
  /** The block of the next transaction sent through this context gets this time (unix seconds); undefined: none.
   * Set on the chain only when that transaction is sent, so a time that no transaction follows costs no request. */
  setNextTimestamp(timestamp: number | undefined): void;
};

export function deployContext(chain: ChainClients, artifacts: Artifacts): DeployContext {
  const admin = accountAddress(roles.deployer);
  const keeper = accountAddress(roles.keeper);
  const adminWallet = chain.walletFor(roles.deployer);
  const listeners = new Set<(receipt: TransactionReceipt) => void>();
  let nextTimestamp: number | undefined;
  const timed = async () => {
    if (nextTimestamp === undefined) return;
    await chain.testClient.setNextBlockTimestamp({ timestamp: BigInt(nextTimestamp) });
    nextTimestamp = undefined;
  };
  const wait = async (hash: Hex) => {
    // With automine the receipt exists at once on EDR; a node that mines just after answering the send
    // (anvil, when not asked through sendSync below) is asked again shortly. (viem's waitForTransactionReceipt
    // waits for a next block, which a sequential seed on anvil never makes: it hung there.)
    let receipt: TransactionReceipt | undefined;
    for (const deadline = Date.now() + 60_000; !receipt; ) {
      receipt = await chain.publicClient.getTransactionReceipt({ hash }).catch((error: Error) => {
        if (Date.now() > deadline) throw error;
        return undefined;
      });
      if (!receipt) await new Promise((r) => setTimeout(r, 2));
    }
    return settled(receipt);
  };
  const settled = (receipt: TransactionReceipt) => {
    if (receipt.status !== "success") throw new Error(`transaction ${receipt.transactionHash} reverted`);
    for (const listener of listeners) listener(receipt);
    return receipt;
  };
  // Anvil mines an automined transaction just after answering the send: asking for the receipt in the
  // same request (eth_sendTransactionSync) spares the polls, about four requests per transaction.
  const sendSync = async (from: Address, tx: { to?: Address; data: Hex }) => {
    const request = { from, ...tx, gas: toHex(30_000_000n) };
    const raw = (await chain.provider.request({ method: "eth_sendTransactionSync", params: [request] } as never)) as RpcTransactionReceipt;
    return settled(formatTransactionReceipt(raw));
  };
  // The deployers' and keepers' reads: those issued together (Promise.all) go to the chain as one
  // Multicall3 eth_call, since each eth_call costs the in-process EVM far more than a view's own work.
  const publicClient = createPublicClient({ chain: devnetChain, transport: custom(batchingReads(chain.provider)), pollingInterval: 50 });
  return {
    chain: { ...chain, publicClient },
    artifacts,
    admin,
    keeper,
    async deploy(name, args = []) {
      const artifact = artifacts[name];
      if (!artifact) throw new Error(`no compiled contract named ${name}`);
      await timed();
      const deploy = { abi: artifact.abi, bytecode: artifact.bytecode, args: args as unknown[] };
      const receipt = chain.node === "anvil" ? await sendSync(admin, { data: encodeDeployData(deploy) }) : await wait(await adminWallet.deployContract(deploy));
      return getAddress(receipt.contractAddress!);
    },
    async send(to, abi, functionName, args = [], from = admin) {
      await timed();
      if (chain.node === "anvil")
        return (await sendSync(from, { to, data: encodeFunctionData({ abi, functionName, args: args as unknown[] }) })).transactionHash;
      const wallet = from === admin ? adminWallet : chain.walletFor(indexOf(from));
      // An explicit gas limit spares the node an estimate (a second execution) per transaction, and
      // `chain: null` an eth_chainId per transaction (the wallet is the devnet's own).
      const hash = await wallet.writeContract({ address: to, abi, functionName, args: args as unknown[], chain: null, account: from, gas: 30_000_000n });
      await wait(hash);
      return hash;
    },
    setNextTimestamp(timestamp) {
      nextTimestamp = timestamp;
    },
    onReceipt(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

type Pending = { to: Address; data: Hex; resolve: (result: unknown) => void; reject: (err: unknown) => void };

/**
 * Wraps `provider` so that plain eth_calls at the latest block (a target and data, nothing else) issued
 * in the same turn of the event loop go out as one Multicall3 `aggregate3`. A call that fails in the
 * batch is sent again on its own, so that its caller gets the node's own error. Anything else, and a
 * lone call, goes through as is.
 */
export function batchingReads(provider: EIP1193Provider): EIP1193Provider {
  let queue: Pending[] = [];
  let multicallDeployed = false;
  const direct = (to: Address, data: Hex) => provider.request({ method: "eth_call", params: [{ to, data }, "latest"] });
  const flush = async () => {
    const batch = queue;
    queue = [];
    if (batch.length === 1 || (!multicallDeployed && !(multicallDeployed = await hasCode(provider, multicall3Address)))) {
      for (const c of batch) direct(c.to, c.data).then(c.resolve, c.reject);
      return;
    }
    try {
      const data = encodeFunctionData({
        abi: multicall3Abi,
        functionName: "aggregate3",
        args: [batch.map((c) => ({ target: c.to, allowFailure: true, callData: c.data }))],
      });
      const raw = (await provider.request({ method: "eth_call", params: [{ to: multicall3Address, data }, "latest"] })) as Hex;
      const results = decodeFunctionResult({ abi: multicall3Abi, functionName: "aggregate3", data: raw });
      batch.forEach((c, i) => {
        const r = results[i]!;
        if (r.success) c.resolve(r.returnData);
        else direct(c.to, c.data).then(c.resolve, c.reject);
      });
    } catch (err) {
      for (const c of batch) c.reject(err);
    }
  };
  const request = (async (args: { method: string; params?: unknown }) => {
    const params = args.params as unknown[] | undefined;
    if (args.method === "eth_call" && params && isPlainCall(params[0]) && (params[1] === undefined || params[1] === "latest")) {
      const { to, data } = params[0] as { to: Address; data: Hex };
      return new Promise((resolve, reject) => {
        if (queue.length === 0) setImmediate(() => void flush());
        queue.push({ to, data, resolve: resolve as (result: unknown) => void, reject });
      });
    }
    return provider.request(args as Parameters<EIP1193Provider["request"]>[0]);
  }) as EIP1193Provider["request"];
  return { ...provider, request, on: provider.on?.bind(provider), removeListener: provider.removeListener?.bind(provider) } as EIP1193Provider;
}

function isPlainCall(call: unknown): boolean {
  if (!call || typeof call !== "object") return false;
  const keys = Object.keys(call).filter((k) => (call as Record<string, unknown>)[k] !== undefined);
  return keys.length === 2 && keys.includes("to") && keys.includes("data");
}

async function hasCode(provider: EIP1193Provider, address: Address) {
  const code = await provider.request({ method: "eth_getCode", params: [address, "latest"] });
  return code !== "0x" && code !== "0x0";
}

function indexOf(address: Address): number {
  for (let i = 0; i < 20; i++) if (accountAddress(i) === address) return i;
  throw new Error(`${address} is not a devnet account`);
}
