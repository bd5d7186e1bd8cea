// Ladder strategy: open, close, setRepeat and collect a ladder strategy, from the wallet or carried by the
// owner's agent account (within the account's limits). The builder is ./ladder-strategy.ts; the calls' words
// are ./calls.ts. Ladder strategies are not on the wallet-policy allow-list (signed at the sign link).
import type { ErrorCode } from "../../errors.js";
import { lowerHex, notGraded, type GradingRule } from "../../grading/plan.js";
import { prepareKind, type Product } from "../product.js";
import { ladderStrategyCalls } from "./calls.js";

export * from "./ladder-strategy.js";

/** ladder-strategy open: what the service checks before and the ladder contract checks again (a refusal either way). */
const ladderOpenChecks = [
  "NOT_LISTED",
  "MARKET_NOT_OPEN",
  "WRONG_SIDE",
  "NO_REFERENCE",
  "FIRST_TOO_SMALL",
  "FOLLOW_UP_TOO_SMALL",
  "NO_TRIP_HEADROOM",
] as const satisfies readonly ErrorCode[];

/** An open: graded a day later, a hit when the price is inside its widest lines. */
const open: GradingRule = ({ fn, args }) => {
  if (fn !== "open") return notGraded("grid-action", `ladder strategy ${fn}`);
  const legs = args[1] as { buyPriceX18: bigint; sellPriceX18: bigint }[];
  const buy = legs.reduce((m, l) => (l.buyPriceX18 < m ? l.buyPriceX18 : m), legs[0]!.buyPriceX18);
  const sell = legs.reduce((m, l) => (l.sellPriceX18 > m ? l.sellPriceX18 : m), legs[0]!.sellPriceX18);
  return { rule: "range", action: `ladder strategy open (${legs.length} parts)`, token: lowerHex(args[0]), buyX18: buy, sellX18: sell };
};

export const ladderStrategy = {
  name: "ladder strategy",
  contracts: [{ key: "ladderStrategy", name: "the ladder strategy", abi: "ladderStrategyAbi" }],
  kinds: {
    "ladder-strategy": prepareKind({
      refusals: [
        "UNKNOWN_TOKEN",
        ...ladderOpenChecks,
        "NOT_YOUR_LADDER",
        "LADDER_CLOSED",
        "NOTHING_TO_COLLECT",
        "ACCOUNTS_DISABLED",
        "NO_AGENT_ACCOUNT",
        "ACCOUNT_FLOOR",
        "ACCOUNT_CEILING",
        "ACCOUNT_BUDGET",
        "ACCOUNT_FEE_CAP",
        "ACCOUNT_SPREAD",
      ],
      reverts: [...ladderOpenChecks, "LADDER_CLOSED", "NOTHING_TO_COLLECT"],
    }),
  },
  bundles: {
    "ladder-strategy": { title: "Ladder strategy", grade: open },
    "account-agent-call": { title: "Ladder strategy through your agent account", grade: () => notGraded("account", "agent-account call") },
  },
  calls: ladderStrategyCalls,
} satisfies Product;
