// The SignRequest answer: the stored prepare answer (steps, params, walletSendCalls...) with its id,
// kind, owner and times. Fields of the bundle beyond these are the prepare routes' own.
import { z } from "@hono/zod-openapi";
import { Address, Timestamp } from "./fields.js";
import { CHAIN_ID_HEX } from "../domain/chain.js";

/**
 * Live sign requests one client may hold at once (issue 32: bounded state per client): with the 10-minute
 * lifetime, 300 is a prepare every 2 seconds, all unsigned. Past it, 429 RATE_LIMITED until some expire.
 */
export const LIVE_SIGN_REQUESTS_PER_CLIENT = 300;

export const Call = z
  .object({
    to: Address,
    data: z.string().openapi({ description: "Calldata, 0x-prefixed hex" }),
    value: z.string().openapi({ description: "Wei as a 0x-prefixed hex quantity; always 0x0" }),
  })
  .openapi("Call");

export const WalletSendCalls = z
  .object({
    version: z.literal("2.0.0"),
    chainId: z.literal(CHAIN_ID_HEX),
    from: Address,
    atomicRequired: z.boolean(),
    calls: z.array(Call),
  })
  .openapi("WalletSendCalls", { description: "EIP-5792 wallet_sendCalls parameters (v2)" });

export const SignRequest = z
  .looseObject({
    id: z.string().openapi({ description: "The sign request's id (the secret of its sign link)" }),
    kind: z.string().openapi({ description: "The bundle kind" }),
    owner: Address,
    createdAt: Timestamp,
    expiresAt: Timestamp,
    walletSendCalls: WalletSendCalls,
  })
  .openapi("SignRequest", { description: "A stored prepare answer; 404 once expired (10 minutes)" });
