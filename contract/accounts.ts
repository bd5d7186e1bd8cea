// Answers of GET /v1/agent/accounts/{owner} (Account) and GET /v1/agent/accounts/{owner}/activity
// (Activity). Amounts come in pairs: `x` in whole units of its token, `xUnits` in base units.
import { z } from "@hono/zod-openapi";
import { Address, Timestamp } from "./fields.js";
import { activityKindsInShort } from "../domain/activity-kinds.js";
import { DAY_MS } from "../domain/price.js";

/** Days of ended items an account answer lists, by default (`closedDays`). */
export const DEFAULT_CLOSED_DAYS = 7;

/** Activity cursor validity (spec Limits). */
export const CURSOR_TTL_MS = 14 * DAY_MS;

/** Most changes one activity answer carries; `more: true` means call again at once with the new cursor. */
export const MAX_CHANGES_PER_CALL = 500;

/** The longest a long poll waits (`waitMs`). */
export const MAX_WAIT_MS = 30_000;

const units = (what: string) => z.string().openapi({ description: `${what}, in whole units (decimal string)`, example: "1.5" });
const baseUnits = (what: string) => z.string().openapi({ description: `${what}, in base units (decimal string)`, example: "1500000" });

/** `{[name]: whole units, [name + "Units"]: base units}` for the zod shape. */
function pair<N extends string>(name: N, what: string) {
  return { [name]: units(what), [`${name}Units`]: baseUnits(what) } as Record<N | `${N}Units`, z.ZodString>;
}
function nullablePair<N extends string>(name: N, what: string) {
  return { [name]: units(what).nullable(), [`${name}Units`]: baseUnits(what).nullable() } as Record<N | `${N}Units`, z.ZodNullable<z.ZodString>>;
}

const price = (what: string) => ({
  number: z.number().openapi({ description: `${what} in USDG per whole token` }),
  x18: z.string().openapi({ description: `${what} in USDG per whole token, 18-decimal fixed point (decimal string)` }),
});

export const TokenRef = z
  .object({
    address: Address,
    symbol: z.string().nullable().openapi({ description: "The token's symbol, or null when it is not charted" }),
    decimals: z.number().int(),
  })
  .openapi("TokenRef");

export const VaultShares = z
  .object({
    vault: Address,
    name: z.string().nullable(),
    family: z.enum(["merged", "up", "stock-token"]),
    agent: z.boolean().openapi({ description: "Agents may use the vault (others answer 404 NOT_AGENT_VAULT on vault and prepare routes)" }),
    status: z.string().openapi({ description: "open, closed or paused as the vault sets it" }),
    asset: TokenRef.openapi({ description: "What the shares are worth in: USDG (merged, up) or the stock token (stock-token)" }),
    ...pair("shares", "Shares held (12 decimals; stock-token vaults 18)"),
    ...nullablePair("value", "Value of the shares in the vault's asset now: the vault's convertToAssets of them, its holdings at the token's latest price"),
    valueUsd: z.number().nullable().openapi({ description: "The value in USD (null when the asset's price is unknown)" }),
    valuedAt: Timestamp.nullable().openapi({
      description:
        "On the chain's clock: the time of the block that last moved the figures behind the value (the vault's holdings or its token's price); never after the answer's asOf, and the value holds at asOf",
    }),
    updatedAt: Timestamp,
  })
  .openapi("VaultShares");

export const DepositRequest = z
  .object({
    vault: Address,
    queue: Address.openapi({ description: "The contract holding the queue (the merged vault itself, or an up vault's deposit queue)" }),
    id: z.string().openapi({ description: "The queue entry id (what vault-cancel-deposit takes)" }),
    state: z.enum(["pending", "settled", "refunded", "cancelled"]),
    owner: Address,
    receiver: Address,
    ...pair("assets", "USDG deposited"),
    ...pair("minShares", "Fewest shares accepted"),
    ...nullablePair("shares", "Shares received once settled"),
    requestedAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi("DepositRequest");

export const WithdrawalRequest = z
  .object({
    vault: Address,
    queue: Address.openapi({ description: "The redeem queue (merged) or withdrawal queue (up)" }),
    id: z.string().openapi({ description: "The queue entry id (what vault-cancel-withdraw takes)" }),
    state: z.enum(["pending", "completed", "cancelled"]),
    owner: Address,
    receiver: Address,
    ...pair("shares", "Shares queued"),
    ...pair("minAssetsOut", "Least USDG accepted"),
    ...nullablePair("assets", "USDG paid once completed"),
    requestedAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi("WithdrawalRequest");

const limitPrice = price("Limit price");
export const LimitOrder = z
  .object({
    id: z.string().openapi({ description: "The order id on the limit-order hook (what order-action takes)" }),
    token: TokenRef,
    side: z.enum(["buy", "sell"]).openapi({ description: "sell: the token for USDG; buy: the token with USDG" }),
    market: z.boolean().openapi({ description: "Placed as a market order" }),
    state: z.enum(["open", "filled", "claimable", "closed"]),
    closeReason: z.enum(["filled", "cancelled", "realized"]).nullable(),
    price: limitPrice.number,
    priceX18: limitPrice.x18,
    tokenIn: TokenRef.openapi({ description: "The input token: the token for a sell, USDG for a buy" }),
    tokenOut: TokenRef.openapi({ description: "The output token" }),
    ...pair("amountIn", "Input placed (tokenIn)"),
    ...pair("filledIn", "Input filled (tokenIn)"),
    ...pair("filledOut", "Output credited after commission (tokenOut)"),
    ...pair("remaining", "Input not filled yet (tokenIn)"),
    ...pair("commission", "Commission taken (tokenOut)"),
    ...pair("owedUsdg", "USDG claimable now"),
    ...pair("owedToken", "Token claimable now"),
    ...pair("claimedUsdg", "USDG claimed"),
    ...pair("claimedToken", "Token claimed"),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi("AccountLimitOrder");

const buy = price("Buy line");
const sell = price("Sell line");
export const Grid = z
  .object({
    id: z.string().openapi({ description: "The grid id on the grid strategy" }),
    token: TokenRef,
    buyPrice: buy.number,
    buyPriceX18: buy.x18,
    sellPrice: sell.number,
    sellPriceX18: sell.x18,
    ...pair("amountUsdg", "USDG the grid trades with"),
    repeat: z.boolean(),
    state: z.enum(["open", "stopped", "closed"]).openapi({ description: "stopped: a sell finished a round trip without repeat" }),
    trades: z.number().int(),
    roundTrips: z.number().int(),
    ...pair("fees", "Strategy fees paid (USDG)"),
    ...pair("collected", "Profit collected (USDG)"),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi("AccountGrid");

export const LadderPart = z
  .object({
    part: z.number().int().min(1),
    buyPrice: buy.number,
    buyPriceX18: buy.x18,
    sellPrice: sell.number,
    sellPriceX18: sell.x18,
    ...pair("amount", "The part's stake (in the ladder's stake token)"),
    trades: z.number().int(),
    finished: z.boolean(),
  })
  .openapi("LadderPart");

export const LadderStrategy = z
  .object({
    id: z.string().openapi({ description: "The ladder id on the ladder strategy (what ladder-strategy close/setRepeat/collect take)" }),
    token: TokenRef,
    stake: TokenRef.openapi({ description: "The side the stake starts on: USDG, or the token for sell-first" }),
    sellFirst: z.boolean(),
    repeat: z.boolean(),
    repeatMask: z.number().int().openapi({ description: "Bit 0: buy lines repeat; bit 1: sell lines repeat" }),
    oneWay: z.boolean(),
    state: z.enum(["open", "closed"]),
    trades: z.number().int(),
    ...pair("total", "Stake pulled at open (stake token)"),
    ...pair("fees", "Strategy fees paid (USDG)"),
    ...pair("collectedToken", "Token collected"),
    ...pair("collectedUsdg", "USDG collected"),
    parts: z.array(LadderPart),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi("AccountLadderStrategy");

export const BasketHolding = z
  .object({
    basket: Address.openapi({ description: "The basket pool (its token)" }),
    name: z.string(),
    symbol: z.string(),
    listed: z.boolean().openapi({ description: "Verified: on the service's list" }),
    ...pair("balance", "Basket tokens held (18 decimals)"),
    valueUsd: z.number().nullable().openapi({ description: "The holding at the pool's balances and the tokens' last prices (null when a price is unknown)" }),
    updatedAt: Timestamp,
  })
  .openapi("BasketHolding");

export const Account = z
  .object({
    owner: Address,
    asOf: Timestamp.openapi({
      description:
        "The answer's time: the server's clock, or the chain's (a block time) when a figure's valuedAt is later, as on a chain whose clock runs ahead; no figure is from after it",
    }),
    closedSince: Timestamp.openapi({ description: "Ended items (queue entries, orders, grids, ladders) are listed from this time on" }),
    vaults: z.array(VaultShares).openapi({ description: "Vault shares above zero, per vault" }),
    depositRequests: z
      .array(DepositRequest)
      .openapi({ description: "Queued deposits: every pending one, and those settled, refunded or cancelled since closedSince (newest first)" }),
    withdrawalRequests: z
      .array(WithdrawalRequest)
      .openapi({ description: "Queued withdrawals: every pending one, and those completed or cancelled since closedSince (newest first)" }),
    limitOrders: z.array(LimitOrder).openapi({ description: "Every order not closed, and those closed since closedSince (newest first)" }),
    grids: z.array(Grid).openapi({ description: "Every grid not closed, and those closed since closedSince (newest first)" }),
    ladderStrategies: z.array(LadderStrategy).openapi({ description: "Every ladder strategy not closed, with its parts, and those closed since closedSince" }),
    baskets: z.array(BasketHolding).openapi({ description: "Basket token balances above zero" }),
  })
  .openapi("Account");

// ---------------------------------------------------------------- activity

export const ActivityChange = z
  .object({
    id: z.string().openapi({
      description:
        "The change's position in the activity log (a decimal integer that increases along the chain: compare as integers). Stable: the same change always has the same id, so a retried poll can be de-duplicated by id.",
      example: "52000010",
    }),
    kind: z.string().openapi({
      description: activityKindsInShort(),
      example: "vault.deposit.settled",
    }),
    subject: z.string().openapi({ description: "What changed: a vault, basket or token address (checksummed), or an order, grid or ladder id" }),
    contract: Address.openapi({ description: "The contract that emitted the change" }),
    data: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
      .openapi({ description: "The figures of the change: amounts in base units as decimal strings, addresses checksummed" }),
    txHash: z.string(),
    block: z.number().int(),
    blockHash: z.string(),
    logIndex: z.number().int(),
    time: Timestamp.openapi({ description: "The block's time" }),
  })
  .openapi("ActivityChange");

export const Activity = z
  .object({
    cursor: z.string().openapi({ description: "Pass it as `cursor` on the next call. Valid 14 days; every answer issues one." }),
    since: Timestamp.openapi({ description: "When the cursor passed in was issued (the baseline: now)" }),
    now: Timestamp.openapi({ description: "Server time of the answer" }),
    after: z.string().openapi({
      description:
        "The changes are the owner's changes with id greater than this. Normally the position of the cursor passed in; after a reorg, at or before the last common point.",
    }),
    changes: z.array(ActivityChange).openapi({ description: "In order of id, at most 500 (or `limit`)" }),
    more: z.boolean().openapi({ description: "More changes wait: call again at once with the new cursor" }),
    reorged: z.boolean().openapi({
      description: "A reorg removed changes already given: drop every change you hold with id greater than `after`, then apply `changes`",
    }),
  })
  .openapi("Activity");
