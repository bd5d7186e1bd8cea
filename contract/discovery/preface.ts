// The fixed part of the discovery documents (skill.md, llms.txt): what the service does, its
// rules, and how an agent works with it. Everything else in those documents is generated from the
// OpenAPI document and the error catalog, so it cannot drift from the routes.
import { CAIP2_NETWORK, CHAIN_ID, CHAIN_ID_HEX } from "../../domain/chain.js";

export const SERVICE_NAME = "agent-interface";

export const SUMMARY =
  `Read data, backtests, planners and unsigned transaction bundles for one EVM chain (chain id ${CHAIN_ID}; ${CHAIN_ID_HEX} in EIP-5792 calls): ` +
  "vaults, limit orders, grids, ladder strategies, swaps and baskets. The service never holds keys and never signs or sends a transaction.";

/** Rules an agent must know before its first call, one sentence each. */
export const RULES: readonly string[] = [
  "The service never holds keys, never signs and never sends a transaction: a bundle takes effect only when the owner wallet signs it, at the sign link or in the owner's own wallet (EIP-5792 wallet_sendCalls, or eth_sendTransaction call by call, approvals first, waiting for each receipt).",
  "Receivers and owners in every bundle are always the signing wallet (`owner`); a request naming anyone else is refused.",
  "Prepared bundles and their sign links expire after 10 minutes: prepare again and never reuse old calldata.",
  "Backtests and planners are estimates, not quotes; past results do not predict results. Vaults can lose value; orders, grids and ladder strategies can fill at a loss after fees.",
  "Activity cursors last 14 days; after that (or for any unknown cursor) the feed answers 404 CURSOR_NOT_FOUND: take a new baseline.",
  "Amounts are decimal strings. Pairs name the same amount twice: `x` in whole units of its token and `xUnits` in base units. USDG has 6 decimals, vault shares 12 (stock-token vault shares 18), basket tokens 18.",
  "Address inputs are 0x followed by 40 hexadecimal characters; addresses in answers are checksummed. Times are ISO 8601 in UTC.",
  "A success answers `{data}`; an error answers `{error, code, details?}` with a code from the error catalog below. Any route can answer 400 INVALID_REQUEST (also for a body over 64 KiB or not sent as application/json), 429 RATE_LIMITED or BUSY (wait the Retry-After seconds) and 503 UNAVAILABLE (retry after the Retry-After seconds, or shortly; while the index is being built, every read answers it).",
];

/** How an agent works with the service, step by step. */
export const WORKFLOW: readonly string[] = [
  "Discover: read this document, or the OpenAPI 3.1 description at /v1/agent/openapi.json (the single source of every request and answer shape).",
  "Read: GET /v1/agent/products for what is offered now, the vault list and details, and GET /v1/agent/accounts/{owner} for everything a wallet holds.",
  "Follow changes: call GET /v1/agent/accounts/{owner}/activity once without a cursor (a baseline), then with the cursor last returned; while `more` is true call again at once; when `reorged` is true, drop what you hold after `after` and apply the changes given.",
  "Act: POST /v1/agent/prepare/{kind} builds an unsigned bundle (steps, sign link, walletSendCalls, issues). Give the sign link to the owner, or send the calls from the owner's wallet. Then watch the activity feed for the result.",
  "Get credit: sign in once an hour for the owner's report-card session (POST /v1/agent/report-card/session/challenge, the owner's personal_sign, POST /v1/agent/report-card/session) and send it as `Authorization: Bearer <token>` with every prepare. Anyone may prepare the owner's predictable calls (a claim, a cancel) under a tag of its own; a bundle prepared with the owner's session is the owner's own and takes the grade once mined, whatever else was prepared, while bundles prepared without it under different agentTags are credited to none. The answer's `reportCard` says how the bundle was filed (`filed` false: not on the report card, since 1,000 bundles for this owner or from this client are still open unsigned).",
  "Fund: a wallet short of funds still gets its bundle (200); `issues.balance` names the token, what the wallet holds (`actual`) and what the bundle spends (`expected`), in base units; with `holder` when another address pays (ladder-strategy via account: fund the agent account, not the key). Fund the wallet, then send within the 10 minutes (or prepare again). `issues.allowance` is informational: the bundle's own approve step sets it.",
];

/**
 * How to fund a wallet where the service runs on its devnet (never on a real chain, where no faucet exists):
 * the devnet's faucet at `faucetUrl`, from the command line or over HTTP.
 */
export const devnetFunding = (faucetUrl: string): readonly string[] => [
  `This deployment runs on its devnet, whose faucet funds any wallet: \`POST ${faucetUrl}/fund\` with \`{"address": "0x…", "usdg": "1000", "tokens": {"WETH": "0.3"}}\` gives ETH for gas (\`eth\`, default 1), USDG (default 1000) and any listed token named (by symbol or address; its default is about 1,000 USDG's worth); \`GET ${faucetUrl}/\` lists the tokens, the most one request gives, and the grants this client has left.`,
  "From a checkout of the service: `npm run fund -- <address> [USDG amount] [SYMBOL[=amount] ...]`.",
  "Each client (by its network address, whatever wallet it names) has 10 grants an hour; past them the faucet answers 429 RATE_LIMITED with Retry-After. A bad address or amount answers 400 INVALID_REQUEST naming the field; a token that is not listed, 422 UNKNOWN_TOKEN.",
];

/** How a run past the free window is paid (x402 v2), in five lines: skill.md gives it where paid routes are served. */
export const PAYMENT_FLOW: readonly string[] = [
  `Grid and ladder backtests and ranges are free up to 30 days; past that the route answers 402 with x402 v2's PaymentRequired (the PAYMENT-REQUIRED header, base64 JSON, and the body): scheme \`exact\`, USDG on ${CAIP2_NETWORK}, \`amount\` in base units, \`payTo\`, and the price in words in \`resource.description\`.`,
  "Pay with your own wallet by signing an EIP-3009 TransferWithAuthorization of exactly `amount` USDG to `payTo` (USDG's EIP-712 name and version are in `extra`; no gas, no approval): x402 clients such as @x402/fetch do it, and so does this service's typed client given `pay: {account, maxAmountUsdg}`. " +
    "Any wallet holding USDG can pay: a plain wallet, or one delegated with EIP-7702, signs with its own key; a contract wallet (an ERC-4337 account, a Safe) is `from` and its ERC-1271 isValidSignature must accept the typed data's hash (e.g. its owner's signature of it); one not deployed yet wraps that signature in ERC-6492 with its factory (the devnet's facilitator deploys with the devnet's SmartAccountFactory).",
  "Send the same request again with that payment in the PAYMENT-SIGNATURE header: the service's facilitator verifies it, the run happens, the facilitator settles it on chain, and the 200 carries PAYMENT-RESPONSE with the settlement transaction.",
  "A refused payment (a signature that is not the payer's, underpaid, expired, replayed, signed for another payee, short of USDG) answers 402 again with `details`: `reason` (x402's), `check` (which check failed, e.g. ECDSA, ERC-1271 or ERC-6492) and `remedy` (what to do; signing the same way again helps only where it says so). One payment buys one run.",
  "503 UNAVAILABLE means the facilitator cannot be reached: nothing was run or charged, retry later. Paid requests are rate-limited like any other. MCP tool calls cannot pay: they answer the 402 and its price; pay over HTTP.",
];

/** The x402 spend-control entry that lets a stock x402 client pay USDG, with its network and a cap. */
export const USDG_SPEND_CONTROL = `spendControls: { allowedAssets: [{ network: "${CAIP2_NETWORK}", asset: USDG, maxAmountPerPayment: "1000000" }] }`;

/**
 * Paying with x402's own client (@x402/fetch), as written: it pays only its default assets unless told,
 * and USDG is none of them, so the spend control above is what lets it pay (a test pays with exactly this).
 */
export const X402_CLIENT_EXAMPLE: readonly string[] = [
  "```ts",
  'import { wrapFetchWithPaymentFromConfig } from "@x402/fetch";',
  'import { ExactEvmScheme } from "@x402/evm/exact/client";',
  "// USDG's address: contracts.usdg of GET /v1/agent/policies/privy (also accepts[0].asset of a 402; check they agree).",
  "const payingFetch = wrapFetchWithPaymentFromConfig(fetch, {",
  `  schemes: [{ network: "${CAIP2_NETWORK}", client: new ExactEvmScheme(account) }], // account: the payer's viem account`,
  "  // USDG is no default asset of x402's clients: allow it, capped per payment in base units (1 USDG).",
  `  ${USDG_SPEND_CONTROL},`,
  "});",
  "```",
];
