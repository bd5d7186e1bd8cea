// The typed client of the agent API and its wallet helper (see agent-client.ts for an example).
export * from "./agent-client.js";
export * from "./send-prepared.js";
export * from "./bundle-check.js";
export { allowListOf, type AllowList, type AllowListDeployments } from "../domain/bundles/allow-list.js";
