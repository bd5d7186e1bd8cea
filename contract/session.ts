// Report-card sign-in: the challenge and session exchange bodies and answers.
import { z } from "@hono/zod-openapi";
import { Address, Timestamp } from "./fields.js";

/**
 * The longest signature taken, in bytes. A key signs 65; an ERC-1271 wallet's signature is larger (a
 * multisig's 65 per signer, a passkey's WebAuthn data some 300-700); ERC-6492 wraps it with a factory
 * address and its deploy calldata (an account's owners, some hundreds of bytes) and a 32-byte suffix.
 * 4 KiB holds all of these with room, and bounds what one request makes the chain verify.
 */
export const SIGNATURE_MAX_BYTES = 4096;

/** Challenges, and sessions, each client (IP) may create per window: stored rows, so limited by who asks, not by owner. */
export const SIGN_IN_LIMIT = { points: 20, duration: 600 };

export const ChallengeRequest = z
  .strictObject({ owner: Address.openapi({ description: "The owner wallet that will sign the challenge" }) })
  .openapi({ title: "SessionChallengeRequest", description: "Only `owner`; any other field is refused (400)." });

export const SessionChallenge = z
  .object({
    challengeId: z.string().openapi({ description: "Send it back with the signature; also the message's nonce" }),
    message: z.string().openapi({ description: "An EIP-4361 (Sign-In with Ethereum) message: sign exactly this text with personal_sign (EIP-191), unchanged" }),
    expiresAt: Timestamp.openapi({ description: "5 minutes after issue; the challenge works once" }),
  })
  .openapi("SessionChallenge");

export const SessionRequest = z
  .strictObject({
    owner: Address.openapi({ description: "The wallet the challenge was issued to" }),
    challengeId: z.string().min(1).max(64).openapi({ description: "From the challenge answer" }),
    signature: z
      .string()
      .max(2 + 2 * SIGNATURE_MAX_BYTES, { error: `must be at most ${SIGNATURE_MAX_BYTES} bytes` })
      .regex(/^0x(?:[0-9a-fA-F]{2})+$/, { error: "must be a hex signature (0x and whole bytes)" })
      .openapi({
        description: `personal_sign of the challenge message by \`owner\` (65 bytes for a key; a smart-contract wallet's ERC-1271 or ERC-6492 signature otherwise), at most ${SIGNATURE_MAX_BYTES} bytes`,
      }),
  })
  .openapi({ title: "SessionRequest", description: "All strings; any other field is refused (400)." });

export const Session = z
  .object({
    token: z.string().openapi({ description: "Send as `Authorization: Bearer <token>`" }),
    owner: Address.openapi({ description: "The signed-in owner, checksummed" }),
    expiresAt: Timestamp.openapi({ description: "One hour after sign-in" }),
  })
  .openapi("Session");
