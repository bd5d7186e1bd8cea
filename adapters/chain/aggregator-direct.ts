// The aggregator this chain's deployments name, called directly (no budget): the devnet's DevAggregator
// over its pools. The `aggregator` queue's workers call it; so do processes without a job client
// (tests, the API's in-process prepare path). A production deployment swaps in its HTTP adapter here.
import { getAddress, type PublicClient } from "viem";
import type { Deployments } from "./deployments.js";
import { createDevAggregator } from "./dev-aggregator.js";
import { AggregatorUnavailableError, NoRouteError, type Aggregator } from "./aggregator.js";

/** The chain's aggregator, or undefined when the deployments name none. */
export function directAggregator(client: PublicClient, deployments: Deployments): Aggregator | undefined {
  const { aggregator, markets, usdg } = deployments.contracts;
  if (!aggregator || !markets || !usdg) return undefined;
  const dev = createDevAggregator({
    client,
    address: getAddress(aggregator),
    markets: getAddress(markets),
    usdg: getAddress(usdg),
  });
  // A failed read of the aggregator's own chain state is "unavailable", never "no route".
  const guard = <T>(run: () => Promise<T>) =>
    run().catch((error: unknown) => {
      if (error instanceof NoRouteError) throw error;
      throw new AggregatorUnavailableError(`the aggregator did not answer: ${(error as Error).message?.split("\n")[0]}`);
    });
  return { address: dev.address, quote: (r) => guard(() => dev.quote(r)), route: (r) => guard(() => dev.route(r)) };
}
