// What the products, tokens and baskets answers read from the chain: the strategy contracts' fees and
// pause flags, the ladder strategy's markets, the basket zap's aggregator and the service's admin.
// Cached in memory (10 s by default) per client, so agents that poll all day do not reach the RPC;
// concurrent callers share one read. A failed read is cached as a failure for the same time, and
// the last good state is kept beside it (fees and addresses are immutable; callers decide what of
// it still holds).
import type { Address, PublicClient } from "viem";
import { basketRegistryAbi, basketZapAbi, gridStrategyAbi, ladderStrategyAbi, limitOrderHookAbi } from "../../abis/index.js";
import type { Deployments } from "./deployments.js";

export type StrategyContractState = { address: Address; feeBps: number; paused: boolean };

export type LadderMarketState = {
  token: Address;
  /** Listed on the ladder strategy (a market it ever listed may be delisted). */
  listed: boolean;
  /** Open now (a pausable market keeps market hours). */
  open: boolean;
  pausable: boolean;
};

export type ServiceChainState = {
  /** When it was read (ms since the epoch, from the reader's clock). */
  readAt: number;
  /** Null where the deployments file has no such contract. */
  limitOrderHook: StrategyContractState | null;
  gridStrategy: StrategyContractState | null;
  ladderStrategy: (StrategyContractState & { maxLegs: number; markets: LadderMarketState[] }) | null;
  basketZap: { address: Address; aggregator: Address } | null;
  /** Owner of the basket registry: the wallet that makes the service's own baskets. */
  serviceAdmin: Address | null;
};

export type ServiceChainRead =
  | { ok: true; state: ServiceChainState }
  | { ok: false; error: string /** The last state read successfully, if any. */; lastGood: ServiceChainState | null };

/** Reads the state of the service's contracts in `contracts` (one JSON-RPC batch per round). */
export async function readServiceChainState(client: PublicClient, contracts: Deployments["contracts"], now = Date.now()): Promise<ServiceChainState> {
  const strategy = async (address: Address | undefined, abi: typeof limitOrderHookAbi | typeof gridStrategyAbi): Promise<StrategyContractState | null> => {
    if (!address) return null;
    const [feeBps, paused] = await Promise.all([
      client.readContract({ address, abi: abi as typeof limitOrderHookAbi, functionName: "feeBps" }),
      client.readContract({ address, abi: abi as typeof limitOrderHookAbi, functionName: "paused" }),
    ]);
    return { address, feeBps: Number(feeBps), paused };
  };

  const ladder = async (): Promise<ServiceChainState["ladderStrategy"]> => {
    const address = contracts.ladderStrategy;
    if (!address) return null;
    const read = <F extends "feeBps" | "paused" | "maxLegs" | "markets">(functionName: F) =>
      client.readContract({ address, abi: ladderStrategyAbi, functionName });
    const [feeBps, paused, maxLegs, tokens] = await Promise.all([read("feeBps"), read("paused"), read("maxLegs"), read("markets")]);
    const markets = await Promise.all(
      tokens.map(async (token): Promise<LadderMarketState> => {
        const [listed, open, pausable] = await Promise.all(
          (["isListed", "marketOpen", "pausable"] as const).map((functionName) =>
            client.readContract({ address, abi: ladderStrategyAbi, functionName, args: [token] }),
          ),
        );
        return { token, listed: listed!, open: open!, pausable: pausable! };
      }),
    );
    return { address, feeBps: Number(feeBps), paused, maxLegs: Number(maxLegs), markets };
  };

  const zap = async (): Promise<ServiceChainState["basketZap"]> => {
    const address = contracts.basketZap;
    if (!address) return null;
    return { address, aggregator: await client.readContract({ address, abi: basketZapAbi, functionName: "aggregator" }) };
  };

  const admin = async (): Promise<Address | null> =>
    contracts.basketRegistry ? client.readContract({ address: contracts.basketRegistry, abi: basketRegistryAbi, functionName: "owner" }) : null;

  const [limitOrderHook, gridStrategy, ladderStrategy, basketZap, serviceAdmin] = await Promise.all([
    strategy(contracts.limitOrderHook, limitOrderHookAbi),
    strategy(contracts.gridStrategy, gridStrategyAbi),
    ladder(),
    zap(),
    admin(),
  ]);
  return { readAt: now, limitOrderHook, gridStrategy, ladderStrategy, basketZap, serviceAdmin };
}

export type ServiceChainStateReader = () => Promise<ServiceChainRead>;

export type ServiceChainStateOptions = {
  /** How long a read (or a failure) is reused, in ms (default 10 s). */
  ttlMs?: number;
  /** A read that takes longer fails (ms, default 3 s): a route never waits on a hanging RPC. */
  deadlineMs?: number;
  now?: () => number;
};

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from the chain RPC within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** A cached reader of `readServiceChainState`; without a client every read fails with a reason. */
export function serviceChainStateReader(
  client: PublicClient | undefined,
  deployments: Deployments,
  { ttlMs = 10_000, deadlineMs = 3_000, now = Date.now }: ServiceChainStateOptions = {},
): ServiceChainStateReader {
  let cached: { at: number; read: Promise<ServiceChainRead> } | undefined;
  let lastGood: ServiceChainState | null = null;
  return () => {
    const t = now();
    if (cached && t - cached.at < ttlMs) return cached.read;
    const read: Promise<ServiceChainRead> = !client
      ? Promise.resolve({ ok: false, error: "no chain RPC is configured", lastGood: null })
      : withDeadline(readServiceChainState(client, deployments.contracts, t), deadlineMs).then(
          (state): ServiceChainRead => {
            lastGood = state;
            return { ok: true, state };
          },
          // No detail of the failure: an RPC URL (and any key in it) must never reach an answer.
          (): ServiceChainRead => ({ ok: false, error: "the chain RPC is unreachable", lastGood }),
        );
    cached = { at: t, read };
    return read;
  };
}
