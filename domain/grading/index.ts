// The report card's pure parts: states, grading rules, the Wilson bound and the card's grouping.
export * from "./states.js";
export * from "./wilson.js";
export * from "./rules.js";
export * from "./card.js";
