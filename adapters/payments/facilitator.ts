// The x402 facilitator, reached over HTTP at X402_FACILITATOR_URL (the service holds no key: the
// facilitator verifies signatures and sends the settlement). A facilitator that cannot be reached, times
// out or answers garbage is a FacilitatorUnavailable, so the API answers 503 and runs nothing, instead of
// the 402 that @x402/core makes of an unexpected error.
import { FacilitatorResponseError, HTTPFacilitatorClient, type FacilitatorClient } from "@x402/core/server";
import { SettleError, VerifyError, type PaymentPayload, type PaymentRequirements } from "@x402/core/types";

export class FacilitatorUnavailable extends FacilitatorResponseError {
  override name = "FacilitatorUnavailable";
}

/** A facilitator client over HTTP whose every transport failure is a FacilitatorUnavailable. */
export function createFacilitatorClient(url: string, timeoutMs = 15_000): FacilitatorClient {
  const http = new HTTPFacilitatorClient({ url, timeoutMs });
  const guard = async <T>(what: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      // The facilitator answered with a verdict (a refused payment): that is the payment's answer.
      if (error instanceof VerifyError || error instanceof SettleError) throw error;
      const reason = error instanceof Error ? `${error.message}${error.cause instanceof Error ? ` (${error.cause.message})` : ""}` : String(error);
      throw new FacilitatorUnavailable(`The payment facilitator's ${what} failed: ${reason}`);
    }
  };
  return {
    verify: (payload: PaymentPayload, requirements: PaymentRequirements) => guard("verify", () => http.verify(payload, requirements)),
    settle: (payload: PaymentPayload, requirements: PaymentRequirements) => guard("settle", () => http.settle(payload, requirements)),
    getSupported: () => guard("supported", () => http.getSupported()),
  };
}
