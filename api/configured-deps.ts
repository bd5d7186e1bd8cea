// What the API's app takes from the configuration alone, the same for every face that builds it
// (`npm run api`, the stdio MCP server of `npm run mcp`): one place, so the two cannot drift apart.
import { config, devnetFaucetUrl } from "../adapters/config.js";
import { loadDeployments } from "../adapters/chain/deployments.js";
import { paymentSettingsOf } from "../usecases/payments/x402.js";
import type { AppDeps } from "./deps.js";

export function configuredDeps(): Pick<AppDeps, "deployments" | "now" | "baseUrl" | "reportCards" | "signRequestsPerClient" | "payments" | "devnetFaucetUrl"> {
  return {
    deployments: loadDeployments(config.DEPLOYMENTS_FILE),
    now: () => new Date(),
    baseUrl: config.BASE_URL,
    reportCards: { enabled: config.AGENT_REPORT_CARDS === "on", reads: config.AGENT_REPORT_CARDS_READS },
    signRequestsPerClient: config.SIGN_REQUESTS_PER_CLIENT,
    payments: paymentSettingsOf(config),
    devnetFaucetUrl: devnetFaucetUrl(config),
  };
}
