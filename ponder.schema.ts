// Projections of chain 4663, written only by the indexing functions in src/. Every row can be
// rebuilt from the chain. Amounts are base units (bigint); prices are priceX18 (USDG per whole token,
// 18 decimals); times are unix seconds.
import { index, onchainTable, primaryKey, relations, type PgColumnsBuilders } from "ponder";

// ---------------------------------------------------------------- tokens and markets

/** Every charted token (one with a USDG market), and USDG itself. */
export const token = onchainTable(
  "token",
  (t) => ({
    address: t.hex().primaryKey(),
    symbol: t.text().notNull(),
    name: t.text().notNull(),
    decimals: t.integer().notNull(),
    /** stock, crypto, utility, meme or unclassified (from the service's list; unlisted: unclassified). */
    category: t.text().notNull(),
    /** On the service's own list (config/token-list.json). An unverified token's symbol is its own. */
    verified: t.boolean().notNull(),
    pool: t.hex(),
    priceX18: t.bigint().notNull(),
    /** USDG on the USDG side of its pool (base units); liquidity is twice this. */
    reserveUsdg: t.bigint().notNull(),
    reserveToken: t.bigint().notNull(),
    swaps: t.integer().notNull(),
    updatedAt: t.integer().notNull(),
  }),
  (table) => ({ symbolIdx: index().on(table.symbol), poolIdx: index().on(table.pool) }),
);

/** The USDG market of each token. */
export const market = onchainTable("market", (t) => ({
  pool: t.hex().primaryKey(),
  token: t.hex().notNull(),
  /** Whether USDG is the pool's token0 (tokens sorted by address). */
  quoteIs0: t.boolean().notNull(),
  createdAt: t.integer().notNull(),
}));

/** Every swap on a USDG pool. */
export const poolSwap = onchainTable(
  "pool_swap",
  (t) => ({
    id: t.text().primaryKey(), // txHash-logIndex
    pool: t.hex().notNull(),
    token: t.hex().notNull(),
    sender: t.hex().notNull(),
    recipient: t.hex().notNull(),
    /** true when the token was sold for USDG. */
    sellToken: t.boolean().notNull(),
    amountIn: t.bigint().notNull(),
    amountOut: t.bigint().notNull(),
    /** The USDG side of the trade (base units). */
    volumeUsdg: t.bigint().notNull(),
    priceX18: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.integer().notNull(),
    txHash: t.hex().notNull(),
  }),
  (table) => ({ tokenTimeIdx: index().on(table.token, table.timestamp) }),
);

const candleColumns = (t: PgColumnsBuilders) => ({
  token: t.hex().notNull(),
  /** Start of the candle (unix seconds, aligned to its period). */
  start: t.integer().notNull(),
  open: t.bigint().notNull(),
  high: t.bigint().notNull(),
  low: t.bigint().notNull(),
  close: t.bigint().notNull(),
  volumeUsdg: t.bigint().notNull(),
  trades: t.integer().notNull(),
});

/** 10-minute candles per token, kept as swaps arrive. */
export const candle10m = onchainTable("candle10m", candleColumns, (table) => ({
  pk: primaryKey({ columns: [table.token, table.start] }),
}));

/** 1-hour candles per token, kept as swaps arrive. */
export const candle1h = onchainTable("candle1h", candleColumns, (table) => ({
  pk: primaryKey({ columns: [table.token, table.start] }),
}));

/** Swaps through the service's swap router. */
export const routerSwap = onchainTable(
  "router_swap",
  (t) => ({
    id: t.text().primaryKey(),
    sender: t.hex().notNull(),
    recipient: t.hex().notNull(),
    tokenIn: t.hex().notNull(),
    tokenOut: t.hex().notNull(),
    amountIn: t.bigint().notNull(),
    amountOut: t.bigint().notNull(),
    fee: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.integer().notNull(),
    txHash: t.hex().notNull(),
  }),
  (table) => ({ recipientIdx: index().on(table.recipient) }),
);

// ---------------------------------------------------------------- executed calls and activity

/**
 * Every call an owner made to a service contract: what the report card matches filings against. A
 * transaction sent to a service contract is one row (id: its hash); an atomic batch's inner calls are one
 * row each (id: hash:index), `from` the account that made it, `via` "account" (an EIP-7702 or smart
 * account's own batch) or "entry-point" (ERC-4337), recorded only when an event of its transaction confirms
 * it (domain/executed-calls.ts).
 */
export const executedCall = onchainTable(
  "executed_call",
  (t) => ({
    id: t.text().primaryKey(),
    txHash: t.hex().notNull(),
    from: t.hex().notNull(),
    to: t.hex().notNull(),
    input: t.hex().notNull(),
    selector: t.hex().notNull(),
    success: t.boolean().notNull(),
    blockNumber: t.bigint().notNull(),
    // The call's place in the chain: its transaction's index in the block, then its index in the batch (0 for
    // the transaction itself), so that the filings of one batch are matched in call order.
    transactionIndex: t.integer().notNull(),
    callIndex: t.integer().notNull(),
    timestamp: t.integer().notNull(),
    via: t.text(),
  }),
  // timestamp: a grading pass reads the calls mined since its oldest matchable filing (usecases/report-card/run-grading.ts).
  (table) => ({ fromToIdx: index().on(table.from, table.to), txHashIdx: index().on(table.txHash), timestampIdx: index().on(table.timestamp) }),
);

/**
 * Every EIP-3009 authorization USDG carried out (AuthorizationUsed): the x402 payments settled on chain,
 * each with its payer, payee and amount (from the transferWithAuthorization or receiveWithAuthorization
 * call the transaction made; null when a contract made it).
 */
export const usdgPayment = onchainTable(
  "usdg_payment",
  (t) => ({
    id: t.text().primaryKey(),
    payer: t.hex().notNull(),
    nonce: t.hex().notNull(),
    payee: t.hex(),
    /** USDG base units. */
    amount: t.bigint(),
    /** The account that sent the settlement (an x402 facilitator). */
    sender: t.hex().notNull(),
    txHash: t.hex().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.integer().notNull(),
  }),
  (table) => ({ payerIdx: index().on(table.payer), payeeIdx: index().on(table.payee) }),
);

/**
 * The append-only activity log: one row per change per owner. `position` strictly increases along the
 * chain (block, log index, row within the log) and is what activity cursors point at.
 */
export const activity = onchainTable(
  "activity",
  (t) => ({
    owner: t.hex().notNull(),
    position: t.bigint().notNull(),
    /** e.g. vault.shares, vault.deposit.settled, order.filled, grid.traded, ladder.closed, basket.balance */
    kind: t.text().notNull(),
    /** What changed: a vault, order id, grid id, ladder id or basket, as a string. */
    subject: t.text().notNull(),
    /** The contract that emitted the change. */
    contract: t.hex().notNull(),
    /** Amounts and other figures of the change (decimal strings of base units). */
    data: t.json().$type<Record<string, string | number | boolean | null>>().notNull(),
    txHash: t.hex().notNull(),
    blockNumber: t.bigint().notNull(),
    blockHash: t.hex().notNull(),
    logIndex: t.integer().notNull(),
    timestamp: t.integer().notNull(),
  }),
  (table) => ({ pk: primaryKey({ columns: [table.owner, table.position] }), positionIdx: index().on(table.position) }),
);

// ---------------------------------------------------------------- vaults

/** Every vault of the three families, with its latest figures. */
export const vault = onchainTable("vault", (t) => ({
  address: t.hex().primaryKey(),
  /** merged, up or stock-token */
  family: t.text().notNull(),
  /** The token paired with USDG (merged, up) or held (stock-token). */
  token: t.hex().notNull(),
  /** Listed for agents in the vault registry; others answer 404 NOT_AGENT_VAULT. */
  agent: t.boolean().notNull(),
  listed: t.boolean().notNull(),
  /** open, closed or paused as the vault sets it; "full" is derived from the cap by readers. */
  status: t.text().notNull(),
  reason: t.text().notNull(),
  depositCap: t.bigint().notNull(),
  minDeposit: t.bigint().notNull(),
  feeBps: t.integer().notNull(),
  rangeLowerX18: t.bigint().notNull(),
  rangeUpperX18: t.bigint().notNull(),
  /**
   * In the vault's asset: USDG base units (merged, up) or stock-token base units (stock-token). A pair
   * vault's is its books valued at the price of its last book change: readers value usdgAssets and
   * tokenAssets at the price now (domain/vault-figures.ts, vaultTotalAssets).
   */
  totalAssets: t.bigint().notNull(),
  /** A pair vault's books (PairVault.usdgAssets, tokenAssets); 0 for stock-token vaults. */
  usdgAssets: t.bigint().notNull(),
  tokenAssets: t.bigint().notNull(),
  /**
   * The block whose end state the books were last read at (a burn or a settled deposit reads them), or
   * 0 when an event's own figures set them since. A harvest in that same block is then already in them.
   */
  booksBlock: t.bigint().notNull(),
  totalSupply: t.bigint().notNull(),
  /** Deposits waiting in its queue (asset base units). */
  pendingAssets: t.bigint().notNull(),
  harvestedGross: t.bigint().notNull(),
  harvestedFees: t.bigint().notNull(),
  updatedAt: t.integer().notNull(),
}));

/** A vault's figures at each harvest (hourly over the seeded history, every 10 minutes recently). */
export const vaultSnapshot = onchainTable(
  "vault_snapshot",
  (t) => ({
    vault: t.hex().notNull(),
    timestamp: t.integer().notNull(),
    totalAssets: t.bigint().notNull(),
    totalSupply: t.bigint().notNull(),
    /** Fee income of this harvest, before and after the vault's fee (asset base units). */
    gross: t.bigint().notNull(),
    fee: t.bigint().notNull(),
  }),
  (table) => ({ pk: primaryKey({ columns: [table.vault, table.timestamp] }) }),
);

/** Vault shares per owner. */
export const vaultPosition = onchainTable(
  "vault_position",
  (t) => ({
    vault: t.hex().notNull(),
    owner: t.hex().notNull(),
    shares: t.bigint().notNull(),
    updatedAt: t.integer().notNull(),
  }),
  (table) => ({ pk: primaryKey({ columns: [table.vault, table.owner] }), ownerIdx: index().on(table.owner) }),
);

/** Queued deposits (merged vaults queue inside the vault, up vaults in their deposit queue). */
export const depositRequest = onchainTable(
  "deposit_request",
  (t) => ({
    /** The contract holding the queue. */
    queue: t.hex().notNull(),
    id: t.bigint().notNull(),
    vault: t.hex().notNull(),
    owner: t.hex().notNull(),
    receiver: t.hex().notNull(),
    assets: t.bigint().notNull(),
    minShares: t.bigint().notNull(),
    /** pending, settled, refunded or cancelled */
    state: t.text().notNull(),
    shares: t.bigint(),
    requestedAt: t.integer().notNull(),
    updatedAt: t.integer().notNull(),
  }),
  (table) => ({ pk: primaryKey({ columns: [table.queue, table.id] }), ownerIdx: index().on(table.owner), receiverIdx: index().on(table.receiver) }),
);

/** Queued withdrawals (merged redeem queues, up withdrawal queues). */
export const withdrawalRequest = onchainTable(
  "withdrawal_request",
  (t) => ({
    queue: t.hex().notNull(),
    id: t.bigint().notNull(),
    vault: t.hex().notNull(),
    owner: t.hex().notNull(),
    receiver: t.hex().notNull(),
    shares: t.bigint().notNull(),
    minAssetsOut: t.bigint().notNull(),
    /** pending, completed or cancelled */
    state: t.text().notNull(),
    assets: t.bigint(),
    requestedAt: t.integer().notNull(),
    updatedAt: t.integer().notNull(),
  }),
  // An account lists entries by owner or receiver: with both indexes that is a bitmap OR of two lookups.
  (table) => ({ pk: primaryKey({ columns: [table.queue, table.id] }), ownerIdx: index().on(table.owner), receiverIdx: index().on(table.receiver) }),
);

// ---------------------------------------------------------------- limit orders, grids, ladder strategies

export const limitOrder = onchainTable(
  "limit_order",
  (t) => ({
    id: t.bigint().primaryKey(),
    owner: t.hex().notNull(),
    token: t.hex().notNull(),
    sellToken: t.boolean().notNull(),
    market: t.boolean().notNull(),
    amountIn: t.bigint().notNull(),
    priceX18: t.bigint().notNull(),
    filledIn: t.bigint().notNull(),
    filledOut: t.bigint().notNull(),
    commission: t.bigint().notNull(),
    remaining: t.bigint().notNull(),
    owed0: t.bigint().notNull(),
    owed1: t.bigint().notNull(),
    claimed0: t.bigint().notNull(),
    claimed1: t.bigint().notNull(),
    /**
     * open (may still fill, partly filled or not), filled (completely; its output waits to be claimed),
     * claimable (stopped by cancel or realize; what it holds waits to be claimed) or closed (stopped and
     * all claimed). `remaining` is 0 once it is no longer open.
     */
    state: t.text().notNull(),
    /** filled, cancelled or realized once closed */
    closeReason: t.text(),
    createdAt: t.integer().notNull(),
    updatedAt: t.integer().notNull(),
  }),
  (table) => ({ ownerIdx: index().on(table.owner) }),
);

export const grid = onchainTable(
  "grid",
  (t) => ({
    id: t.bigint().primaryKey(),
    owner: t.hex().notNull(),
    token: t.hex().notNull(),
    buyPriceX18: t.bigint().notNull(),
    sellPriceX18: t.bigint().notNull(),
    amountUsdg: t.bigint().notNull(),
    repeat: t.boolean().notNull(),
    /** open (trades when crossed), stopped (after a sell without repeat; repeat restarts it) or closed (paid out) */
    state: t.text().notNull(),
    /** What the grid holds now (base units): USDG, and the token once it has bought. */
    usdg: t.bigint().notNull(),
    tokens: t.bigint().notNull(),
    /** Waiting to sell (true) or to buy (false). */
    holdsToken: t.boolean().notNull(),
    /** USDG spent (fee included) on the token held now; 0 while it holds USDG. */
    costUsdg: t.bigint().notNull(),
    trades: t.integer().notNull(),
    roundTrips: t.integer().notNull(),
    fees: t.bigint().notNull(),
    collected: t.bigint().notNull(),
    createdAt: t.integer().notNull(),
    updatedAt: t.integer().notNull(),
  }),
  (table) => ({ ownerIdx: index().on(table.owner) }),
);

export const ladder = onchainTable(
  "ladder",
  (t) => ({
    id: t.bigint().primaryKey(),
    owner: t.hex().notNull(),
    token: t.hex().notNull(),
    legs: t.integer().notNull(),
    sellFirst: t.boolean().notNull(),
    repeat: t.boolean().notNull(),
    oneWay: t.boolean().notNull(),
    total: t.bigint().notNull(),
    /** open (some part still trades), stopped (every part finished; funds wait to be collected) or closed (by the owner) */
    state: t.text().notNull(),
    /** Sides that re-arm after a round trip: 1 the token side, 2 the USDG side. `repeat` is the start side's bit. */
    repeatMask: t.integer().notNull(),
    trades: t.integer().notNull(),
    fees: t.bigint().notNull(),
    collectedToken: t.bigint().notNull(),
    collectedUsdg: t.bigint().notNull(),
    createdAt: t.integer().notNull(),
    updatedAt: t.integer().notNull(),
  }),
  (table) => ({ ownerIdx: index().on(table.owner) }),
);

export const ladderLeg = onchainTable(
  "ladder_leg",
  (t) => ({
    ladderId: t.bigint().notNull(),
    leg: t.integer().notNull(),
    buyPriceX18: t.bigint().notNull(),
    sellPriceX18: t.bigint().notNull(),
    /** Stake on the start side (USDG for a buy-first ladder, the token for sell-first). */
    amount: t.bigint().notNull(),
    /** What the part holds now (base units). */
    usdg: t.bigint().notNull(),
    tokens: t.bigint().notNull(),
    /** Waiting to sell (true) or to buy (false). */
    holdsToken: t.boolean().notNull(),
    trades: t.integer().notNull(),
    finished: t.boolean().notNull(),
  }),
  (table) => ({ pk: primaryKey({ columns: [table.ladderId, table.leg] }) }),
);

/**
 * Every agent account of the factory (AccountCreated). Its owner and agent are immutable, so the row never
 * changes; indexed by both so that a ladder-strategy via account finds the agent key's account in one read.
 */
export const agentAccount = onchainTable(
  "agent_account",
  (t) => ({
    address: t.hex().primaryKey(),
    owner: t.hex().notNull(),
    /** The key that trades from the account. */
    agent: t.hex().notNull(),
    createdBlock: t.bigint().notNull(),
    createdAt: t.integer().notNull(),
  }),
  (table) => ({ ownerIdx: index().on(table.owner), agentIdx: index().on(table.agent) }),
);

// ---------------------------------------------------------------- baskets

export const basket = onchainTable("basket", (t) => ({
  address: t.hex().primaryKey(),
  name: t.text().notNull(),
  symbol: t.text().notNull(),
  tokens: t.json().$type<string[]>().notNull(),
  /** Normalized weights (1e18 = 100%), decimal strings, in the order of `tokens`. */
  weights: t.json().$type<string[]>().notNull(),
  /** Pool balances, decimal strings of base units, in the order of `tokens`. */
  balances: t.json().$type<string[]>().notNull(),
  swapFeePercentage: t.bigint().notNull(),
  /** The wallet that made it (the service's admin for its own baskets). */
  maker: t.hex().notNull(),
  listed: t.boolean().notNull(),
  sellOnly: t.boolean().notNull(),
  paused: t.boolean().notNull(),
  totalSupply: t.bigint().notNull(),
  swapFeesCollected: t.json().$type<string[]>().notNull(),
  createdAt: t.integer().notNull(),
  updatedAt: t.integer().notNull(),
}));

/** Basket tokens per owner. */
export const basketBalance = onchainTable(
  "basket_balance",
  (t) => ({
    basket: t.hex().notNull(),
    owner: t.hex().notNull(),
    balance: t.bigint().notNull(),
    updatedAt: t.integer().notNull(),
  }),
  (table) => ({ pk: primaryKey({ columns: [table.basket, table.owner] }), ownerIdx: index().on(table.owner) }),
);

// ---------------------------------------------------------------- relations
// Joins for GraphQL (a vault's positions, a ladder's parts...) and Drizzle's query API. They make no
// foreign keys and change no table.

export const tokenRelations = relations(token, ({ one, many }) => ({
  market: one(market, { fields: [token.pool], references: [market.pool] }),
  trades: many(poolSwap),
}));
export const marketRelations = relations(market, ({ one }) => ({ token: one(token, { fields: [market.token], references: [token.address] }) }));
export const poolSwapRelations = relations(poolSwap, ({ one }) => ({ token: one(token, { fields: [poolSwap.token], references: [token.address] }) }));

export const vaultRelations = relations(vault, ({ one, many }) => ({
  token: one(token, { fields: [vault.token], references: [token.address] }),
  positions: many(vaultPosition),
  snapshots: many(vaultSnapshot),
  deposits: many(depositRequest),
  withdrawals: many(withdrawalRequest),
}));
export const vaultPositionRelations = relations(vaultPosition, ({ one }) => ({
  vault: one(vault, { fields: [vaultPosition.vault], references: [vault.address] }),
}));
export const vaultSnapshotRelations = relations(vaultSnapshot, ({ one }) => ({
  vault: one(vault, { fields: [vaultSnapshot.vault], references: [vault.address] }),
}));
export const depositRequestRelations = relations(depositRequest, ({ one }) => ({
  vault: one(vault, { fields: [depositRequest.vault], references: [vault.address] }),
}));
export const withdrawalRequestRelations = relations(withdrawalRequest, ({ one }) => ({
  vault: one(vault, { fields: [withdrawalRequest.vault], references: [vault.address] }),
}));

export const limitOrderRelations = relations(limitOrder, ({ one }) => ({ token: one(token, { fields: [limitOrder.token], references: [token.address] }) }));
export const gridRelations = relations(grid, ({ one }) => ({ token: one(token, { fields: [grid.token], references: [token.address] }) }));
export const ladderRelations = relations(ladder, ({ one, many }) => ({
  token: one(token, { fields: [ladder.token], references: [token.address] }),
  parts: many(ladderLeg),
}));
export const ladderLegRelations = relations(ladderLeg, ({ one }) => ({ ladder: one(ladder, { fields: [ladderLeg.ladderId], references: [ladder.id] }) }));

export const basketRelations = relations(basket, ({ many }) => ({ balances: many(basketBalance) }));
export const basketBalanceRelations = relations(basketBalance, ({ one }) => ({
  basket: one(basket, { fields: [basketBalance.basket], references: [basket.address] }),
}));
