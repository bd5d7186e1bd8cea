// The devnet's x402 facilitator: what a real one (e.g. x402.org's) does for chain 4663, built from the
// protocol's own facilitator side (x402Facilitator from @x402/core with @x402/evm's `exact` scheme) and
// served over HTTP: POST /verify, POST /settle, GET /supported. It holds its own devnet key (test-mnemonic
// account 12) and pays the gas of each settlement; the agent API only calls it (X402_FACILITATOR_URL).
// Who can pay (devnet/facilitator-signatures.ts): a plain or EIP-7702-delegated wallet by its ECDSA signature, a
// contract wallet by ERC-1271, and one not deployed yet by ERC-6492 with an allowed factory (the devnet's
// SmartAccountFactory), which the facilitator calls before settling. A refused signature says which check failed.
import { serve } from "@hono/node-server";
import { x402Facilitator } from "@x402/core/facilitator";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { registerExactEvmScheme } from "@x402/evm/exact/facilitator";
import { Hono } from "hono";
import { createWalletClient, http, publicActions, type Address, type PublicClient } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { CAIP2_NETWORK } from "../domain/chain.js";
import { devnetChain, roles, TEST_MNEMONIC } from "./chain.js";
import { ecdsaFirst, signatureDiagnosis } from "./facilitator-signatures.js";

/** x402's EVM code reads through Multicall3 at its canonical address (diagnosing a refused payment). */
export const CANONICAL_MULTICALL3: Address = "0xcA11bde05977b3631167028862bE2a173976CA11";

/** The facilitator's own account: it signs and pays for settlements, nothing else. */
export const facilitatorAccount = () => mnemonicToAccount(TEST_MNEMONIC, { addressIndex: roles.facilitator });

type Request = { paymentPayload?: PaymentPayload; paymentRequirements?: PaymentRequirements };

export type FacilitatorOptions = {
  /** Factories the facilitator calls to deploy an ERC-6492 payer before settling (the devnet's SmartAccountFactory). */
  allowedFactories?: Address[];
};

/** Refusals whose message says which signature check failed (x402 gives none). */
const SIGNATURE_REASONS = new Set(["invalid_exact_evm_signature", "eip6492_factory_not_allowed", "smart_wallet_deployment_failed"]);

/** The x402 facilitator of the devnet at `rpcUrl`, as a Hono app. */
export function facilitatorApp(rpcUrl: string, options: FacilitatorOptions = {}) {
  const account = facilitatorAccount();
  const client = createWalletClient({ account, chain: devnetChain, transport: http(rpcUrl) }).extend(publicActions);
  const allowedFactories = options.allowedFactories ?? [];
  const signer = toFacilitatorEvmSigner({
    address: account.address,
    readContract: ecdsaFirst((args) => client.readContract(args as never)) as never,
    verifyTypedData: (args) => client.verifyTypedData(args as never),
    writeContract: (args) => client.writeContract(args as never),
    sendTransaction: (args) => client.sendTransaction(args),
    waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args),
    getCode: (args) => client.getCode(args),
  });
  const facilitator = registerExactEvmScheme(new x402Facilitator(), { signer, networks: CAIP2_NETWORK, eip6492AllowedFactories: allowedFactories });
  // Which check refused a signature, and what the payer can do (x402 gives only the reason).
  const explain = async (reason: string | undefined, b: Request) =>
    reason && SIGNATURE_REASONS.has(reason)
      ? await signatureDiagnosis(client as unknown as PublicClient, b.paymentPayload!, b.paymentRequirements!, allowedFactories).catch(() => undefined)
      : undefined;
  // One settlement at a time: each is a transaction from the same account, so nonces must not race.
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => {});
    return next;
  };
  const body = async (c: { req: { json(): Promise<unknown> } }): Promise<Request | undefined> => {
    const b = (await c.req.json().catch(() => undefined)) as Request | undefined;
    return b?.paymentPayload && b.paymentRequirements ? b : undefined;
  };
  const reason = (error: unknown) => (error instanceof Error ? error.message : String(error)).split("\n")[0];

  return new Hono()
    .get("/supported", (c) => c.json(facilitator.getSupported()))
    .post("/verify", async (c) => {
      const b = await body(c);
      if (!b) return c.json({ isValid: false, invalidReason: "invalid_payload", invalidMessage: "needs {paymentPayload, paymentRequirements}" }, 400);
      try {
        const verdict = await facilitator.verify(b.paymentPayload!, b.paymentRequirements!);
        const message = verdict.isValid ? undefined : (verdict.invalidMessage ?? (await explain(verdict.invalidReason, b)));
        return c.json(message ? { ...verdict, invalidMessage: message } : verdict);
      } catch (error) {
        return c.json({ isValid: false, invalidReason: "invalid_payload", invalidMessage: reason(error) });
      }
    })
    .post("/settle", async (c) => {
      const b = await body(c);
      const network = b?.paymentRequirements?.network ?? CAIP2_NETWORK;
      if (!b) return c.json({ success: false, errorReason: "invalid_payload", transaction: "", network }, 400);
      try {
        const settled = await serially(() => facilitator.settle(b.paymentPayload!, b.paymentRequirements!));
        const message = settled.success ? undefined : (settled.errorMessage ?? (await explain(settled.errorReason, b)));
        return c.json(message ? { ...settled, errorMessage: message } : settled);
      } catch (error) {
        return c.json({ success: false, errorReason: "invalid_payload", errorMessage: reason(error), transaction: "", network });
      }
    });
}

/** Serves the facilitator on host:port; resolves once listening. */
export function startFacilitator(
  rpcUrl: string,
  hostname: string,
  port: number,
  options: FacilitatorOptions = {},
): Promise<{ address: Address; close(): Promise<void> }> {
  const app = facilitatorApp(rpcUrl, options);
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname, port }, () =>
      resolve({
        address: facilitatorAccount().address,
        close: () => new Promise<void>((done) => server.close(() => done())),
      }),
    );
    server.once("error", reject);
  });
}
