// Bodies of POST /v1/agent/prepare/{kind} (contract/prepare-kinds.ts names each kind's) and the PrepareResult answer. Every body takes the common
// fields (owner, slippageBps, agentTag) and allows additional properties (the spec's rule); a receiver or
// recipient field that is not `owner` is refused 422 RECEIVER_NOT_OWNER by the pipeline. A body's schema is named by
// `title`, not as a component, so its defaults leave fields optional in generated types (contract/openapi.ts).
import { z } from "@hono/zod-openapi";
import { Address, AgentTag, Amount, Timestamp } from "./fields.js";
import { WalletSendCalls } from "./sign-request.js";

const Id = z
  .string()
  .regex(/^\d{1,78}$/, { error: "must be an integer id (digits)" })
  .openapi({ description: "An id on chain, as decimal digits", example: "12" });

const common = {
  owner: Address.openapi({ description: "The signing wallet. Every receiver, recipient and owner argument of the bundle is this address." }),
  slippageBps: z.number().int().min(0).max(500).default(100).openapi({ description: "Slippage allowed on the minimums, 0-500 basis points (default 100)" }),
  agentTag: AgentTag.optional(),
};

const Side = z.enum(["buy", "sell"]).openapi({ description: "buy: pay USDG for the token; sell: pay the token for USDG" });
const Price = Amount.openapi({ description: "USDG per whole token, decimal", example: "2450.5" });

export const VaultDepositBody = z
  .looseObject({
    ...common,
    vault: Address.openapi({ description: "An agent vault (404 NOT_AGENT_VAULT otherwise)" }),
    amount: Amount.openapi({ description: "USDG to deposit, in whole USDG (6 decimals)", example: "250" }),
  })
  .openapi({
    title: "VaultDepositBody",
    description:
      "merged: approve USDG to the vault, then requestDeposit(assets, owner, minShares). up (bundle kind up-vault-deposit): approve USDG to the deposit queue, then requestDeposit(assets, owner, minimumSharesOut). minShares is the vault's convertToShares now less slippageBps. stock-token (bundle kind stock-vault-deposit): approve USDG to the stock vault router, then deposit({vault, usdgIn, minShares, receiver: owner, aggregator, swapData}) with an aggregator leg USDG to the stock token (minShares: previewDeposit of the leg's quote less slippageBps). Refusals with the vault's reason: 422 DEPOSITS_CLOSED, DEPOSITS_PAUSED, VAULT_FULL, CAPACITY (the message gives the room left under the cap now); AMOUNT_TOO_SMALL under the vault's minimum.",
  });

export const VaultCancelDepositBody = z.looseObject({ ...common, vault: Address, id: Id.openapi({ description: "The deposit request's id" }) }).openapi({
  title: "VaultCancelDepositBody",
  description:
    "merged: cancelDeposit(id) on the vault; up (bundle kind up-vault-cancel): cancel(id) on the deposit queue. The request must be the owner's and pending.",
});

export const VaultWithdrawBody = z
  .looseObject({
    ...common,
    vault: Address,
    shares: Amount.openapi({ description: "Shares to withdraw, in whole shares (12 decimals; stock-token 18)", example: "100" }),
    mode: z.enum(["usdg", "in-kind", "queue"]).openapi({
      description:
        "in-kind: merged redeemInKind, up redeemEmergencyInKind, stock-token redeem (minimums: previewRedeemInKind less slippageBps). queue: approve the shares to the vault's redeem queue (merged) or withdrawal queue (up), then its request / requestRedeem (minimum: previewRedeem less slippageBps). usdg: merged redeem(shares, owner, minUsdgOut, route) with the token part sold through an aggregator route; stock-token: approve the shares to the router, then withdrawUSDG(vault, shares, minUsdgOut, owner, aggregator, route) (up vaults: not offered). minUsdgOut: the USDG part plus the route's quote, less slippageBps.",
    }),
  })
  .openapi({ title: "VaultWithdrawBody", description: "Shares of an agent vault out, in kind or through its queue." });

export const VaultCancelWithdrawBody = z.looseObject({ ...common, vault: Address, id: Id.openapi({ description: "The queued withdrawal's id" }) }).openapi({
  title: "VaultCancelWithdrawBody",
  description:
    "merged: cancel(id) on the redeem queue; up (bundle kind up-vault-cancel): cancel(id) on the withdrawal queue. The request must be the owner's and pending.",
});

export const LimitOrderBody = z
  .looseObject({
    ...common,
    token: z
      .string()
      .min(1)
      .max(64)
      .openapi({ description: "Any token with an open USDG market, by address (see GET /v1/tokens), or a verified token's symbol", example: "WETH" }),
    side: Side,
    amount: Amount.openapi({ description: "The input, in whole units: the token when selling, USDG when buying", example: "600" }),
    price: Price.optional().openapi({ description: "The limit line, USDG per whole token (required unless type is market)" }),
    type: z.enum(["limit", "market"]).default("limit").openapi({
      description:
        "limit (default): create(token, sellToken, amountIn, priceX18); market: createMarketOrder with the pool's quote less the hook's commission and slippageBps",
    }),
  })
  .openapi({
    title: "LimitOrderBody",
    description:
      "Approve exactly the input to the limit-order hook, then create or createMarketOrder. Each order must be worth the hook's minimum (422 AMOUNT_TOO_SMALL).",
  });

export const LadderBody = z
  .looseObject({
    ...common,
    token: z.string().min(1).max(64).openapi({ description: "Any token with an open USDG market, by address, or a verified token's symbol" }),
    side: Side,
    orders: z
      .array(z.object({ amount: Amount.openapi({ description: "Input of this order, whole units (token when selling, USDG when buying)" }), price: Price }))
      .min(2)
      .max(20)
      .openapi({ description: "2-20 orders on one side" }),
  })
  .openapi({ title: "LadderBody", description: "One approval of the orders' total to the hook, then one create per order." });

export const OrderActionBody = z
  .looseObject({
    ...common,
    id: Id.openapi({ description: "The order's id" }),
    action: z.enum(["cancel", "claim0", "claim1", "claimBoth", "realize"]).openapi({ description: "The hook function called with the id" }),
  })
  .openapi({
    title: "OrderActionBody",
    description: "One step on the hook. Refusals: 404 NOT_FOUND (unknown order), 422 NOT_YOUR_ORDER, ORDER_CLOSED, NOTHING_FILLED (realize), NOTHING_TO_CLAIM.",
  });

export const GridBody = z
  .looseObject({
    ...common,
    action: z.enum(["open", "openWithMarket", "close", "setRepeat", "collect"]),
    token: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .openapi({ description: "open, openWithMarket: any token with an open USDG market, by address, or a verified token's symbol" }),
    buyPrice: Price.optional().openapi({ description: "open, openWithMarket: the buy line" }),
    sellPrice: Price.optional().openapi({ description: "open, openWithMarket: the sell line, above the buy line" }),
    amountUsdg: Amount.optional().openapi({ description: "open, openWithMarket: USDG the grid starts with, whole USDG (as grid-tokens lines give it)" }),
    amount: Amount.optional().openapi({ description: "The older name of amountUsdg, still taken (both given must agree)" }),
    repeat: z.boolean().optional().openapi({ description: "open (default true), setRepeat (required)" }),
    id: Id.optional().openapi({ description: "close, setRepeat, collect: the grid's id" }),
  })
  .openapi({
    title: "GridBody",
    description:
      "open/openWithMarket: approve exactly the USDG to the grid strategy, then open(params) or openWithMarket(params, minTokenOut). close, setRepeat, collect: one step on the owner's grid (404 NOT_FOUND, 422 NOT_YOUR_GRID, GRID_CLOSED, NOTHING_TO_COLLECT).",
  });

export const LadderStrategyBody = z
  .looseObject({
    ...common,
    action: z.enum(["open", "close", "setRepeat", "collect"]),
    token: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .openapi({ description: "open: a token with an open market listed on the ladder strategy, by address, or a verified token's symbol" }),
    legs: z
      .array(z.object({ buyPrice: Price, sellPrice: Price, amount: Amount.openapi({ description: "USDG (or the token for sellFirst), whole units" }) }))
      .min(1)
      .max(16)
      .optional()
      .openapi({ description: "open: 1-16 parts" }),
    sellFirst: z.boolean().optional(),
    repeat: z.boolean().optional(),
    oneWay: z.boolean().optional(),
    id: Id.optional().openapi({ description: "close, setRepeat, collect: the ladder's id" }),
    mask: z.number().int().min(0).max(3).optional().openapi({ description: "close 0-3; setRepeat, collect 1-3 (bit 0 the token side, bit 1 the USDG side)" }),
    via: z.enum(["wallet", "account"]).default("wallet").openapi({
      description:
        "wallet (default): the owner's wallet calls the strategy. account: `owner` is the agent key (or the account's owner) and the answer is the agent account's LADDER call ladder(data) (bundle kind account-agent-call); the account makes its own exact approval, owns the ladder and receives its payouts.",
    }),
    account: Address.optional().openapi({
      description: "via account: the agent account (default: the owner's own account, else the one account whose agent is `owner`)",
    }),
  })
  .openapi({
    title: "LadderStrategyBody",
    description:
      "open: one exact approval of the parts' total (USDG, or the token for sellFirst) to the strategy, then open(token, legs, sellFirst, repeat, oneWay). Refusals name the part and its exact minimum: NOT_LISTED, MARKET_NOT_OPEN, WRONG_SIDE, NO_REFERENCE, FIRST_TOO_SMALL, FOLLOW_UP_TOO_SMALL, NO_TRIP_HEADROOM. close/setRepeat/collect(id, mask) on the owner's own ladder (collect also after a close with mask 0). Via account: 404 ACCOUNTS_DISABLED while agent accounts are off, 422 NO_AGENT_ACCOUNT when no account lets `owner` trade, and an open is refused first with the account's own numbers: ACCOUNT_FLOOR, ACCOUNT_CEILING (required), ACCOUNT_BUDGET, ACCOUNT_FEE_CAP, ACCOUNT_SPREAD.",
  });

// Swap and basket kinds: slippageBps 1-500 (the spec's basket and swap routes), tokens as listed symbols or addresses.
const routeSlippage = z
  .number()
  .int()
  .min(1)
  .max(500)
  .default(100)
  .openapi({ description: "Slippage allowed on the minimums, 1-500 basis points (default 100)" });
const TokenRef = z.string().min(1).max(64);

export const SwapBody = z
  .looseObject({
    ...common,
    slippageBps: routeSlippage,
    tokenIn: TokenRef.openapi({ description: "A listed symbol or an address (native ETH is refused: use WETH)", example: "USDG" }),
    tokenOut: TokenRef.openapi({ description: "A listed symbol or an address; ETH means native ETH (the router unwraps WETH)", example: "WETH" }),
    amount: Amount.openapi({ description: "tokenIn to pay, in whole tokenIn units", example: "100" }),
  })
  .openapi({
    title: "SwapBody",
    description:
      "Approve exactly `amount` of tokenIn to the swap router, then the router's swap(SwapRequest) with recipient = owner and the aggregator's route. The minimum (params.quote.minimumOut) is the aggregator's quote less the router's 0.1% fee and slippageBps. Unlisted tokens are shown by address, with a warning in params.quote.warnings. Refusals: 422 UNKNOWN_TOKEN, NOT_A_TOKEN, SAME_TOKEN, NATIVE_ETH_IN, SWAP_NO_ROUTE, SWAP_PAUSED; 409 SWAP_CONTRACTS_CHANGED (the router's aggregator changed); 503 SWAP_UNAVAILABLE. Aggregator calls share the route budget (429 BUSY past it).",
  });

export const BasketBuyBody = z
  .looseObject({
    ...common,
    slippageBps: routeSlippage,
    basket: TokenRef.openapi({ description: "The basket: its pool address or a listed basket's symbol", example: "BLUE" }),
    amount: Amount.openapi({ description: "The paid token, in its whole units", example: "250" }),
    payWith: TokenRef.optional().openapi({ description: "USDG (default), WETH, or one of the basket's tokens by symbol or address" }),
  })
  .openapi({
    title: "BasketBuyBody",
    description:
      "Approve exactly `amount` of the paid token to the basket zap, then buy(pool, tokenIn, amountIn, legs, minBptOut, recipient = owner, deadline): the zap buys each basket token through the aggregator (one leg per token, split by weight) and joins in proportion; leftovers go to the owner. Deadline 10 minutes; no service fee (the aggregator's price impact is in params.quote). params: side, pool, zap, token, amount, minOut, expectedOut, recipient, deadline, legs, slippageBps, quote {block, valueUsd, costUsd, priceImpactPct}, approvals. 404 UNKNOWN_BASKET for a symbol no listed basket has or a contract that is no basket; 404 NOT_FOUND for an address with no contract at all.",
  });

export const BasketSellBody = z
  .looseObject({
    ...common,
    slippageBps: routeSlippage,
    basket: TokenRef.openapi({ description: "The basket: its pool address or a listed basket's symbol" }),
    amount: Amount.optional().openapi({ description: "Basket tokens to sell (18 decimals), whole units; or all: true" }),
    all: z.boolean().optional().openapi({ description: "true: sell every basket token the owner holds" }),
    receive: TokenRef.optional().openapi({ description: "USDG (default), WETH, or one of the basket's tokens" }),
  })
  .openapi({
    title: "BasketSellBody",
    description:
      "Approve exactly the basket tokens to the zap, then sell(pool, bptIn, tokenOut, legs, minOut, recipient = owner, deadline): a proportional exit, each token sold through the aggregator; what a leg leaves is paid in kind. params as basket-buy (token is the output token, amount the basket tokens in) plus exits [{token, amount}]. Sell-only baskets sell.",
  });

export const BasketMakeBody = z
  .looseObject({
    ...common,
    slippageBps: routeSlippage,
    name: z.string().max(200).openapi({ description: "1-64 plain characters; permanent", example: "Blue Mix" }),
    symbol: z
      .string()
      .max(64)
      .openapi({ description: "1-20 letters, digits, '.', '-' or '+'; not starting with ts; not another basket's; permanent", example: "BMIX" }),
    tokens: z
      .array(
        z.object({
          token: TokenRef.openapi({ description: "A listed symbol or an address on the trade list" }),
          weightPct: z.number().openapi({ description: "Percent, at least 1; all weights sum to 100" }),
        }),
      )
      .max(16)
      .openapi({ description: "2-8 tokens, USDG or WETH among them (422 TOKEN_COUNT otherwise)" }),
    swapFeePct: z.number().optional().openapi({ description: "0.3 or 1 (default 1): the basket's swap fee, permanent (422 MAKE_FEE otherwise)" }),
    amount: Amount.openapi({ description: "The first deposit in whole units of payWith, worth at least 25 USD", example: "100" }),
    payWith: TokenRef.optional().openapi({ description: "USDG (default) or WETH" }),
  })
  .openapi({
    title: "BasketMakeBody",
    description:
      "Approve exactly the first deposit to the basket maker, then make(basket, tokenIn, amountIn, legs, minBptOut, recipient = owner, deadline): the maker creates the basket (the service's admin in its pool roles), buys each token through the aggregator and puts everything in as the first deposit; the first 100 basket tokens go to the owner. The name, symbol, tokens, weights and fee are permanent and the basket is unverified until the service lists it: plan first with POST /v1/agent/baskets/plan. params: maker, basket {name, symbol, tokens (sorted), normalizedWeights, swapFeePercentage, salt}, decimals, pool, token, amount, legs, minOut, expectedOut, recipient, deadline, slippageBps, quote, approvals.",
  });

export const PrepareStep = z
  .object({
    to: Address,
    data: z.string().openapi({ description: "Calldata, 0x-prefixed hex" }),
    value: z.literal("0").openapi({ description: "Always 0: the service never asks for value" }),
  })
  .openapi("PrepareStep");

const BaseUnits = z.string().regex(/^\d+$/).openapi({ description: "Base units of the token, decimal digits", example: "250000000" });

export const PrepareIssues = z
  .object({
    balance: z
      .object({
        token: Address.openapi({ description: "The token the owner holds too little of" }),
        holder: Address.optional().openapi({
          description:
            "Present when the funds are another address's, not the owner's: the agent account a via-account bundle spends from (fund that account, not the agent key)",
        }),
        actual: BaseUnits.openapi({ description: "What the owner (or `holder`) holds now, in base units (decimal string)" }),
        expected: BaseUnits.openapi({ description: "What the bundle spends of it, in base units (decimal string)" }),
      })
      .nullable()
      .openapi({
        description:
          "Not null when the owner holds less than the bundle spends: fund the owner, then send the bundle (prepare again after 10 minutes). The bundle was simulated as if funded.",
      }),
    allowance: z
      .object({
        spender: Address.openapi({ description: "The contract the bundle approves" }),
        actual: BaseUnits.openapi({ description: "The owner's allowance to it now, in base units (decimal string)" }),
      })
      .nullable()
      .openapi({ description: "Not null when the owner's allowance is below what the bundle spends. Informational: the bundle's own approve step sets it." }),
    simulationIncomplete: z.boolean().openapi({
      description:
        "True when the bundle could not be simulated in full because of the balance shortfall (its balance could not be granted in the simulation): it may still revert for another reason",
    }),
  })
  .openapi("PrepareIssues", {
    description:
      "What stands between the owner and the bundle, in 0x Swap API v2's shape (amounts as decimal strings in base units). A short balance is no refusal: the answer is 200 with the bundle and `balance` set.",
  });

/** Whether and how the prepared action is filed for the owner's report card (issue 30). */
export const PrepareReportCard = z
  .object({
    filed: z.boolean().openapi({
      description: "false: the action will not be on the report card (the owner or this client has 1,000 open unsigned bundles); the bundle itself is as good",
    }),
    ownerSession: z.boolean().openapi({
      description:
        "true: prepared with the owner's report-card session (Authorization: Bearer), so the action is the owner's own and takes the credit whatever else was prepared",
    }),
    note: z.string().openapi({ description: "The same in words" }),
  })
  .openapi("PrepareReportCard", {
    description:
      "The report-card filing of this bundle. Send the owner's session token (Authorization: Bearer) with the prepare: without it, anyone may prepare the same call under another agentTag and the action is then credited to none",
  });

export const PrepareResult = z
  .object({
    id: z.string().openapi({ description: "The sign request's id (the secret of its sign link)" }),
    kind: z.string().openapi({ description: "The bundle kind (vault-deposit, up-vault-deposit, up-vault-cancel, ...)" }),
    owner: Address,
    steps: z.array(PrepareStep).openapi({ description: "Unsigned calls in order, approvals first" }),
    params: z.record(z.string(), z.unknown()).openapi({ description: "The calls' inputs (amounts as decimal strings in base units) and the quote's figures" }),
    signUrl: z.string().openapi({ description: "{base}/sign/{id}: a page that shows the steps in words and sends them" }),
    expiresAt: Timestamp.openapi({ description: "10 minutes after prepare; prepare again after it" }),
    walletSendCalls: WalletSendCalls,
    simulation: z
      .object({ method: z.enum(["eth_simulateV1", "eth_call+stateOverride"]) })
      .openapi({ description: "How the whole bundle was simulated before answering" }),
    issues: PrepareIssues,
    reportCard: PrepareReportCard,
  })
  .openapi("PrepareResult", { description: "An unsigned bundle for the owner's wallet, stored as a SignRequest for 10 minutes" });
