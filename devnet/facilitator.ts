// The devnet's x402 facilitator: what a real one (e.g. x402.org's) does for chain 4663, built from the
// protocol's own facilitator side (x402Facilitator from @x402/core with @x402/evm's `exact` scheme) and
// served over HTTP: POST /verify, POST /settle, GET /supported. It holds its own devnet key (test-mnemonic
// account 12) and pays the gas of each settlement; the agent API only calls it (X402_FACILITATOR_URL).
import { serve } from "@hono/node-server";
import { x402Facilitator } from "@x402/core/facilitator";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { registerExactEvmScheme } from "@x402/evm/exact/facilitator";
import { Hono } from "hono";
import { createWalletClient, http, publicActions, type Address } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { CAIP2_NETWORK } from "../domain/chain.js";
import { devnetChain, roles, TEST_MNEMONIC } from "./chain.js";

/** x402's EVM code reads through Multicall3 at its canonical address (diagnosing a refused payment). */
export const CANONICAL_MULTICALL3: Address = "0xcA11bde05977b3631167028862bE2a173976CA11";

/** The facilitator's own account: it signs and pays for settlements, nothing else. */
export const facilitatorAccount = () => mnemonicToAccount(TEST_MNEMONIC, { addressIndex: roles.facilitator });

type Request = { paymentPayload?: PaymentPayload; paymentRequirements?: PaymentRequirements };

/** The x402 facilitator of the devnet at `rpcUrl`, as a Hono app. */
export function facilitatorApp(rpcUrl: string) {
  const account = facilitatorAccount();
  const client = createWalletClient({ account, chain: devnetChain, transport: http(rpcUrl) }).extend(publicActions);
  const signer = toFacilitatorEvmSigner({
    address: account.address,
    readContract: (args) => client.readContract(args as never),
    verifyTypedData: (args) => client.verifyTypedData(args as never),
    writeContract: (args) => client.writeContract(args as never),
    sendTransaction: (args) => client.sendTransaction(args),
    waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args),
    getCode: (args) => client.getCode(args),
  });
  const facilitator = registerExactEvmScheme(new x402Facilitator(), { signer, networks: CAIP2_NETWORK });
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
        return c.json(await facilitator.verify(b.paymentPayload!, b.paymentRequirements!));
      } catch (error) {
        return c.json({ isValid: false, invalidReason: "invalid_payload", invalidMessage: reason(error) });
      }
    })
    .post("/settle", async (c) => {
      const b = await body(c);
      const network = b?.paymentRequirements?.network ?? CAIP2_NETWORK;
      if (!b) return c.json({ success: false, errorReason: "invalid_payload", transaction: "", network }, 400);
      try {
        return c.json(await serially(() => facilitator.settle(b.paymentPayload!, b.paymentRequirements!)));
      } catch (error) {
        return c.json({ success: false, errorReason: "invalid_payload", errorMessage: reason(error), transaction: "", network });
      }
    });
}

/** Serves the facilitator on host:port; resolves once listening. */
export function startFacilitator(rpcUrl: string, hostname: string, port: number): Promise<{ address: Address; close(): Promise<void> }> {
  const app = facilitatorApp(rpcUrl);
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
