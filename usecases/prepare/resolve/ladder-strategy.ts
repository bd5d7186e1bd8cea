// ladder-strategy: open 1-16 parts on a listed, open market (422 UNKNOWN_TOKEN, NOT_LISTED, MARKET_NOT_OPEN;
// the builder's part-naming refusals NO_REFERENCE, WRONG_SIDE, FIRST_TOO_SMALL, FOLLOW_UP_TOO_SMALL,
// NO_TRIP_HEADROOM with {part, minimum, unit} from the chain's numbers now), or close, setRepeat, collect
// the ladder's owner's own ladder (404 NOT_FOUND, 422 NOT_YOUR_LADDER, LADDER_CLOSED, NOTHING_TO_COLLECT).
// From the wallet, or via account: `owner` is the agent key (or the account's owner), the answer is the
// agent account's LADDER call (bundle kind account-agent-call) and the ladder belongs to the account
// (404 ACCOUNTS_DISABLED, 422 NO_AGENT_ACCOUNT, and an open is first checked against the account's own
// limits: ACCOUNT_FLOOR, ACCOUNT_CEILING, ACCOUNT_BUDGET, ACCOUNT_FEE_CAP, ACCOUNT_SPREAD).
import { agentAccountsOf, ladderById } from "../../../adapters/db/reads/positions.js";
import { getAddress, isAddressEqual, zeroAddress, type Address } from "viem";
import { agentAccountAbi, agentAccountFactoryAbi, ladderStrategyAbi } from "../../../abis/index.js";
import { accountLimitRefusal, buildLadderStrategy } from "../../../domain/bundles/index.js";
import { ApiError } from "../../../domain/errors.js";
import type { LadderStrategyBody, PrepareContext, Resolver } from "../types.js";
import { build, invalid } from "./build.js";
import { toBaseUnits, toId, toPriceX18 } from "./numbers.js";
import { contract, usdgOf } from "./contracts.js";
import { marketTokenOf, priceNow } from "./tokens.js";
import { sameAddress } from "../../../domain/address.js";

export const resolveLadderStrategy: Resolver<"ladder-strategy"> = async (ctx, body, owner) => {
  const ladder = contract(ctx, "ladderStrategy");
  const read = <T>(functionName: string, args: readonly unknown[] = []) =>
    ctx.client.readContract({ address: ladder, abi: ladderStrategyAbi, functionName: functionName as never, args: args as never }) as Promise<T>;
  const via = body.via ?? "wallet";
  // Via account, the account is the ladder's owner and the agent key signs.
  const account = via === "account" ? await agentAccountOf(ctx, body, owner) : undefined;
  const ladderOwner = account ?? owner;
  const { action } = body;
  if (action === "open") {
    if (body.token === undefined) throw invalid("token", "is required for action open");
    if (body.legs === undefined) throw invalid("legs", "is required for action open");
    const token = await marketTokenOf(ctx, body.token);
    const [listed, open] = await Promise.all([read<boolean>("isListed", [token.address]), read<boolean>("marketOpen", [token.address])]);
    if (!listed) throw new ApiError("NOT_LISTED", `${token.symbol} is not listed for ladder strategies`, { token: token.address });
    if (!open) throw new ApiError("MARKET_NOT_OPEN", `${token.symbol}'s ladder market is not open`, { token: token.address });
    const sellFirst = body.sellFirst ?? false;
    const legs = body.legs.map((l, i) => ({
      buyPriceX18: toPriceX18(`legs[${i}].buyPrice`, l.buyPrice),
      sellPriceX18: toPriceX18(`legs[${i}].sellPrice`, l.sellPrice),
      amount: toBaseUnits(`legs[${i}].amount`, l.amount, sellFirst ? token.decimals : 6),
    }));
    const [priceX18, minFirstLegUsdg, minFollowUpUsdg, feeBps] = await Promise.all([
      priceNow(ctx, token.address),
      read<bigint>("minFirstLegUsdg"),
      read<bigint>("minFollowUpUsdg"),
      read<number>("feeBps"),
    ]);
    const parameters = {
      owner,
      ladder,
      action,
      token: token.address,
      legs,
      sellFirst,
      repeat: body.repeat ?? false,
      oneWay: body.oneWay ?? false,
      market: { priceX18, decimals: token.decimals, minFirstLegUsdg, minFollowUpUsdg, feeBps },
    };
    const params: Record<string, unknown> = { priceNowX18: priceX18.toString() };
    // Through an account, its own limits first (the account checks them before the strategy sees the open),
    // then the strategy's part-naming refusals (the builder).
    if (account) {
      const [limits, committedUsdg] = await Promise.all([
        ctx.client.readContract({ address: account, abi: agentAccountAbi, functionName: "limits" }),
        ctx.client.readContract({ address: account, abi: agentAccountAbi, functionName: "committedUsdg" }),
      ]);
      const refusal = accountLimitRefusal(legs, sellFirst, { ...limits, committedUsdg, feeBps: Number(feeBps), decimals: token.decimals });
      if (refusal) throw new ApiError(refusal.code, refusal.message, refusal.details);
      params.accountLimits = {
        floorX18: limits.floorX18.toString(),
        ceilingX18: limits.ceilingX18.toString(),
        budgetUsdg: limits.budgetUsdg.toString(),
        committedUsdg: committedUsdg.toString(),
        feeCapBps: limits.feeCapBps,
        minSpreadBps: limits.minSpreadBps,
      };
    }
    const bundle = build("ladder-strategy", () =>
      buildLadderStrategy(account ? { ...parameters, via: "account", account } : { ...parameters, via: "wallet", usdg: usdgOf(ctx) }),
    );
    // The account pays the open's total itself (its own approval): a shortfall is the account's.
    const spends = account ? [{ holder: account, token: sellFirst ? token.address : usdgOf(ctx), amount: legs.reduce((sum, l) => sum + l.amount, 0n) }] : [];
    return { bundle, priceToken: token.address, params, spends, allow: { tokens: [token.address], ...(account ? { contracts: [account] } : {}) } };
  }

  if (body.id === undefined) throw invalid("id", `is required for action ${action}`);
  if (body.mask === undefined) throw invalid("mask", `is required for action ${action}`);
  const id = toId("id", body.id);
  const row = await ladderById(ctx.reads, id);
  if (!row) throw new ApiError("NOT_FOUND", `no ladder ${id}`);
  if (!sameAddress(row.owner, ladderOwner))
    throw new ApiError("NOT_YOUR_LADDER", `ladder ${id} belongs to another ${account ? "owner than the account" : "wallet"}`);
  // A closed ladder (close with mask 0 leaves its funds) may still be collected; nothing else.
  if (row.state === "closed" && action !== "collect") throw new ApiError("LADDER_CLOSED", `ladder ${id} is closed`);
  // Built before the collectable read: a mask outside the action's range (0 for collect) is the request's field first.
  const bundle = build("ladder-strategy", () =>
    buildLadderStrategy(
      account ? { owner, ladder, action, via: "account", account, id, mask: body.mask } : { owner, ladder, action, via: "wallet", id, mask: body.mask },
    ),
  );
  if (action === "collect") {
    const [tokenOut, usdgOut] = await read<readonly [bigint, bigint]>("collectable", [id]);
    const wanted = (body.mask & 1 ? tokenOut : 0n) + (body.mask & 2 ? usdgOut : 0n);
    if (wanted === 0n) throw new ApiError("NOTHING_TO_COLLECT", `ladder ${id} has nothing to collect on the sides of mask ${body.mask}`);
  }
  return { bundle, priceToken: row.token as Address, params: { state: row.state }, ...(account ? { allow: { contracts: [account] } } : {}) };
};

/** Accounts named in the refusal of a key that is the agent of several. */
const LISTED_ACCOUNTS = 10;

/**
 * The agent account that lets `owner` trade: the one named in the body (it must be the factory's account
 * of its owner, with `owner` its agent or owner), else the owner's own account, else the one account whose
 * agent is `owner`. 404 ACCOUNTS_DISABLED while accounts are off; 422 NO_AGENT_ACCOUNT when none fits.
 * At most four chain reads, however many accounts the factory has: the agent's account is found in the
 * index (agent_account), then confirmed on the chain.
 */
async function agentAccountOf(ctx: PrepareContext, body: LadderStrategyBody, owner: Address): Promise<Address> {
  if (ctx.agentAccounts === false) throw new ApiError("ACCOUNTS_DISABLED", "Agent accounts are off on this service: use via wallet");
  const factory = contract(ctx, "agentAccountFactory");
  const readFactory = <T>(functionName: string, args: readonly unknown[] = []) =>
    ctx.client.readContract({ address: factory, abi: agentAccountFactoryAbi, functionName: functionName as never, args: args as never }) as Promise<T>;
  const readAccount = (account: Address, functionName: "agent" | "owner") => ctx.client.readContract({ address: account, abi: agentAccountAbi, functionName });
  if (!(await readFactory<boolean>("enabled"))) throw new ApiError("ACCOUNTS_DISABLED", "Agent accounts are switched off on this chain: use via wallet");

  if (body.account !== undefined) {
    const account = getAddress(body.account);
    const roles = await Promise.all([readAccount(account, "agent"), readAccount(account, "owner")]).catch(() => undefined); // no code, or another contract
    const genuine = roles && isAddressEqual(await readFactory<Address>("accountOf", [roles[1]]), account);
    if (!roles || !genuine) throw new ApiError("NO_AGENT_ACCOUNT", `${account} is not an agent account of this service's factory`);
    if (!isAddressEqual(roles[0], owner) && !isAddressEqual(roles[1], owner)) {
      throw new ApiError("NO_AGENT_ACCOUNT", `${account} lets ${roles[0]} trade, not ${owner}`);
    }
    return account;
  }
  const own = await readFactory<Address>("accountOf", [owner]);
  if (!isAddressEqual(own, zeroAddress)) return own;
  // Owner and agent are immutable in an account: the index can be late (a block or two), never wrong.
  const rows = await agentAccountsOf(ctx.reads, owner, LISTED_ACCOUNTS);
  if (rows.length === 0) {
    throw new ApiError(
      "NO_AGENT_ACCOUNT",
      `${owner} is the agent of no agent account, and owns none: create one with the account factory first (one created seconds ago may not be indexed yet: name it with account)`,
    );
  }
  if (rows.length > 1) {
    const listed = rows.map((r) => getAddress(r.address)).join(", ");
    throw invalid("account", `${owner} is the agent of ${rows.length === LISTED_ACCOUNTS ? "at least " : ""}${rows.length} accounts (${listed}): name one`);
  }
  // Confirmed on the chain (one batch): the factory's account of that owner, traded by this key.
  const account = getAddress(rows[0]!.address);
  const [ofOwner, agent] = await Promise.all([readFactory<Address>("accountOf", [rows[0]!.owner]), readAccount(account, "agent")]);
  if (!isAddressEqual(ofOwner, account) || !isAddressEqual(agent, owner)) {
    throw new ApiError("NO_AGENT_ACCOUNT", `${owner} is the agent of no agent account of this service's factory on the chain now`);
  }
  return account;
}
