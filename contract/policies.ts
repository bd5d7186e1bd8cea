// Wallet policy documents: what an owner gives its agent's wallet provider so the agent can do the
// service's actions and nothing else.
import { z } from "@hono/zod-openapi";
import { Address } from "./fields.js";
import { CHAIN_ID } from "../domain/chain.js";

export const PolicyQuery = z.object({
  wallet: Address.optional().openapi({ description: "The agent wallet; without it, {{WALLET_ADDRESS}} stays in the conditions" }),
});

export const PolicyDocument = z
  .object({
    provider: z.enum(["privy", "turnkey"]),
    chainId: z.literal(CHAIN_ID),
    wallet: Address.nullable().openapi({ description: "The wallet given, checksummed (the conditions hold it lowercase); null unless given" }),
    placeholders: z.record(z.string(), z.string()).openapi({ description: "Each placeholder left in the document and what to put in its place" }),
    contracts: z
      .object({
        usdg: z.string().nullable(),
        limitOrderHook: z.string().nullable(),
        gridStrategy: z.string().nullable(),
        basketZap: z.string().nullable(),
        stockVaultRouter: z.string().nullable(),
        vaults: z.array(
          z.object({
            address: z.string(),
            family: z.enum(["merged", "up", "stock-token"]),
            depositQueue: z.string().optional(),
            withdrawalQueue: z.string().optional(),
            redeemQueue: z.string().optional(),
            router: z.string().optional(),
          }),
        ),
      })
      .openapi({
        description:
          "The addresses the rules name, checksummed (the conditions hold them lowercase): agent vaults, their queues and routers, the hook, the grid strategy, the basket zap and USDG",
      }),
    policies: z
      .array(
        z.object({
          policyName: z.string(),
          effect: z.string().openapi({ description: "EFFECT_ALLOW (Turnkey) or ALLOW (Privy)" }),
          consensus: z.string().nullable().openapi({ description: "Turnkey: the agent's non-root user, by the <USER_ID> placeholder. Privy: null" }),
          condition: z
            .union([z.string(), z.object({ method: z.string(), action: z.string(), conditions: z.array(z.record(z.string(), z.unknown())) })])
            .openapi({
              description: "Turnkey: a policy-language condition. Privy: a rule {method, action, conditions: [{field_source, field, operator, value, abi?}]}",
            }),
          notes: z.array(z.string()),
        }),
      )
      .openapi({ description: `Every rule needs chain id ${CHAIN_ID} and value 0; calldata is sliced by position` }),
    notes: z.array(z.string()),
  })
  .openapi("PolicyDocument");
