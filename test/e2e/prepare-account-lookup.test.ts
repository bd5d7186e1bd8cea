// ladder-strategy via account without `account`: the agent key's account is found in the index
// (agent_account), then confirmed on the chain, so the lookup costs the same few eth_calls however many
// accounts the factory has. Every eth_call of the resolver is counted through a counting transport.
// Keys of their own (random, funded here by the admin, wallet 10): the other files' accounts are not touched.
import type { Kysely } from "kysely";
import { createPublicClient, createWalletClient, custom, formatUnits, http, parseEther, type Address, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { testAccount } from "../helpers/wallets.js";
import { agentAccountFactoryAbi, marketRegistryAbi } from "../../abis/index.js";
import { chain4663 } from "../../adapters/chain/client.js";
import { loadDeployments, type Deployments } from "../../adapters/chain/deployments.js";
import type { Database } from "../../adapters/db/api-schema.js";
import { createProjectionsDb, createProjectionsPostgres, type Projections } from "../../adapters/db/projections.js";
import { ApiError } from "../../domain/errors.js";
import { createLogger } from "../../adapters/logger.js";
import { resolveLadderStrategy } from "../../usecases/prepare/resolve/ladder-strategy.js";
import type { LadderStrategyBody, PrepareContext } from "../../usecases/prepare/types.js";
import { prepareContext } from "../../usecases/prepare/pipeline.js";

const stack = inject("stack");
const admin = testAccount(10);
const fresh = () => privateKeyToAccount(generatePrivateKey());
/** Owner 1's account is traded by `agent`; owners 2 and 3 both give theirs to `busy`; `nobody` has none. */
const [owner1, owner2, owner3, owner4] = [fresh(), fresh(), fresh(), fresh()];
const [agent, busy, nobody] = [fresh(), fresh(), fresh()];

let d: Deployments;
let chain: PublicClient;
let reads: Kysely<Projections>;
/** The `to` of every eth_call the counting client sent. */
const calls: Address[] = [];

const walletOf = (from: PrivateKeyAccount) =>
  createWalletClient({ account: from, chain: { ...chain4663, rpcUrls: { default: { http: [stack.rpcUrl] } } }, transport: http(stack.rpcUrl) });
async function send(
  from: PrivateKeyAccount | typeof admin,
  request: Parameters<ReturnType<typeof walletOf>["writeContract"]>[0] | { to: Address; value: bigint },
) {
  const wallet = walletOf(from as PrivateKeyAccount);
  const hash = "to" in request ? await wallet.sendTransaction(request) : await wallet.writeContract(request);
  expect((await chain.waitForTransactionReceipt({ hash })).status).toBe("success");
}

async function until<T>(what: string, read: () => Promise<T | undefined | null | false>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not seen within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Creates `owner`'s account traded by `by`, with limits around WIF2's price, and waits until it is indexed. */
async function createAccount(owner: PrivateKeyAccount, by: Address, spot: bigint): Promise<Address> {
  const factory = d.contracts.agentAccountFactory!;
  const limits = { floorX18: spot / 2n, ceilingX18: spot * 2n, budgetUsdg: 100_000_000n, feeCapBps: 100, minSpreadBps: 500 };
  await send(owner, { address: factory, abi: agentAccountFactoryAbi, functionName: "create", args: [by, limits] } as never);
  const account = await chain.readContract({ address: factory, abi: agentAccountFactoryAbi, functionName: "accountOf", args: [owner.address] });
  await until("the indexed account", () =>
    reads
      .selectFrom("agentAccount")
      .select("address")
      .where("address", "=", account.toLowerCase() as Address)
      .executeTakeFirst(),
  );
  return account;
}

/** The resolver with a client that counts eth_calls; it writes nothing (no API database needed). */
async function resolve(body: Omit<LadderStrategyBody, "owner">, owner: Address) {
  const inner = http(stack.rpcUrl)({ chain: chain4663 });
  const client = createPublicClient({
    chain: chain4663,
    transport: custom({
      async request({ method, params }) {
        if (method === "eth_call") calls.push((params as [{ to: Address }])[0].to);
        return inner.request({ method, params } as never);
      },
    }),
  });
  const ctx: PrepareContext = prepareContext({
    db: {} as Kysely<Database>,
    reads,
    deployments: d,
    client,
    now: () => new Date(),
    baseUrl: "http://127.0.0.1",
    logger: createLogger({ level: "fatal" }),
    agentAccounts: true,
  });
  calls.length = 0;
  try {
    return { result: await resolveLadderStrategy(ctx, { owner, ...body } as LadderStrategyBody, owner), calls: [...calls] };
  } catch (error) {
    if (error instanceof ApiError) return { error, calls: [...calls] };
    throw error;
  }
}

let spot: bigint;
let openBody: Omit<LadderStrategyBody, "owner">;
let account1: Address;

beforeAll(async () => {
  d = loadDeployments(stack.deploymentsFile);
  chain = createPublicClient({ chain: chain4663, transport: http(stack.rpcUrl) });
  reads = createProjectionsDb({ sql: createProjectionsPostgres({ url: stack.databaseUrl }), viewsSchema: stack.viewsSchema });
  for (const w of [owner1, owner2, owner3, owner4]) await send(admin, { to: w.address, value: parseEther("1") });
  const wif2 = d.tokens.find((t) => t.symbol === "WIF2")!.address;
  spot = await chain.readContract({ address: d.contracts.markets!, abi: marketRegistryAbi, functionName: "priceX18", args: [wif2] });
  const at = (factor: bigint) => formatUnits((spot * factor) / 10n, 18);
  openBody = { action: "open", token: "WIF2", legs: [{ buyPrice: at(8n), sellPrice: at(9n), amount: "20" }], via: "account" };
  account1 = await createAccount(owner1, agent.address, spot);
  await createAccount(owner2, busy.address, spot);
  await createAccount(owner3, busy.address, spot);
}, 120_000);

afterAll(async () => {
  await reads?.destroy();
});

describe("ladder-strategy via account: the account lookup", () => {
  it("the agent key's account comes from the index: four lookup reads, whatever the number of accounts", async () => {
    const factory = d.contracts.agentAccountFactory!;
    const accountsBefore = (await chain.readContract({ address: factory, abi: agentAccountFactoryAbi, functionName: "accounts" })).length;
    expect(accountsBefore).toBeGreaterThanOrEqual(3);
    const first = await resolve(openBody, agent.address);
    expect(first.error).toBeUndefined();
    expect(first.result!.bundle.steps.map((s) => s.to)).toEqual([account1]);
    // The factory: enabled, accountOf(key), accountOf(the indexed owner); the account: agent, then its limits
    // and committedUsdg for the open. No other account is read.
    const lookup = first.calls.filter((to) => to === factory || to === account1);
    expect(lookup.filter((to) => to === factory)).toHaveLength(3);
    expect(lookup.filter((to) => to === account1)).toHaveLength(3);
    const others = first.calls.filter((to) => to !== factory && to !== account1);
    expect(others.every((to) => to === d.contracts.ladderStrategy || to === d.contracts.markets)).toBe(true);

    // One more account on the factory: the same reads.
    await createAccount(owner4, fresh().address, spot);
    const again = await resolve(openBody, agent.address);
    expect(again.result!.bundle.steps.map((s) => s.to)).toEqual([account1]);
    expect(again.calls).toHaveLength(first.calls.length);
  });

  it("the owner's own account: enabled and accountOf only, no index read needed", async () => {
    const { result, calls: made } = await resolve({ ...openBody }, owner1.address);
    expect(result!.bundle.steps.map((s) => s.to)).toEqual([account1]);
    expect(made.filter((to) => to === d.contracts.agentAccountFactory)).toHaveLength(2);
  });

  it("a key that is the agent of two accounts must name one (400 INVALID_REQUEST on account); a key of none gets 422 NO_AGENT_ACCOUNT", async () => {
    const two = await resolve(openBody, busy.address);
    expect(two.error?.code).toBe("INVALID_REQUEST");
    expect(two.error?.message).toContain("is the agent of 2 accounts");
    expect(two.calls).toHaveLength(2);
    const none = await resolve(openBody, nobody.address);
    expect(none.error?.code).toBe("NO_AGENT_ACCOUNT");
    expect(none.calls).toHaveLength(2);
  });
});
