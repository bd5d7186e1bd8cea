// The typed client of the agent API and its wallet helper (see agent-client.ts for an example).
export * from "./agent-client.js";
export * from "./send-prepared.js";
