// GET /v1/agent/swap/quote: its query and the Swap quote answer (the spec's fields, plus warnings).
import { z } from "@hono/zod-openapi";
import { Address } from "./fields.js";

export const SwapQuoteQuery = z.object({
  tokenIn: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "tokenIn", in: "query" }, description: "A listed symbol or an address (native ETH is refused: use WETH)", example: "USDG" }),
  tokenOut: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "tokenOut", in: "query" }, description: "A listed symbol or an address; ETH means native ETH", example: "WETH" }),
  amount: z
    .string()
    .max(80)
    .regex(/^\d+(\.\d+)?$/, { error: "must be a decimal amount (digits, optionally a dot and digits)" })
    .openapi({ param: { name: "amount", in: "query" }, description: "tokenIn to pay, in whole tokenIn units", example: "100" }),
  slippageBps: z.coerce
    .number({ error: "must be an integer from 1 to 500" })
    .int({ error: "must be an integer from 1 to 500" })
    .min(1, { error: "must be an integer from 1 to 500" })
    .max(500, { error: "must be an integer from 1 to 500" })
    .default(100)
    .openapi({
      param: { name: "slippageBps", in: "query" },
      description: "1-500 basis points (default 100): minimumOut is expectedOut less this",
      example: 100,
    }),
});

export const QuoteToken = z
  .object({
    address: Address,
    symbol: z
      .string()
      .nullable()
      .openapi({ description: "The listed symbol; null when the token is not on the service's list (its own symbol proves nothing)" }),
    decimals: z.number().int(),
    listed: z.boolean().openapi({ description: "On the service's token list (native ETH counts as listed)" }),
  })
  .openapi("QuoteToken");

export const SwapQuote = z
  .object({
    tokenIn: QuoteToken,
    tokenOut: QuoteToken,
    amountIn: z.string().openapi({ description: "Whole tokenIn units" }),
    amountInUnits: z.string().openapi({ description: "Base units of tokenIn" }),
    expectedOut: z.string().openapi({ description: "What the owner is expected to receive, after the router's 0.1% fee, whole tokenOut units" }),
    expectedOutUnits: z.string(),
    minimumOut: z.string().openapi({ description: "expectedOut less slippageBps: the least a prepared swap pays, whole tokenOut units" }),
    minimumOutUnits: z.string(),
    slippageBps: z.number().int(),
    feeBps: z.number().int().openapi({ description: "The swap router's fee on the output: 10 (0.1%)" }),
    priceImpactBps: z.number().nullable().openapi({ description: "The aggregator's estimate of price impact, or null when it gives none" }),
    route: z.array(z.string()).openapi({ description: "The aggregator's hops, by symbol (or address when unlisted)" }),
    warnings: z.array(z.string()).openapi({ description: "e.g. an unlisted token: check its address" }),
  })
  .openapi("SwapQuote", { description: "A quote: nothing is stored; a prepare asks the aggregator again." });
