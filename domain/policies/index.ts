// Wallet policy documents for the two providers, from the spec's allow-list.
export * from "./allow-list.js";
export * from "./privy.js";
export * from "./turnkey.js";
