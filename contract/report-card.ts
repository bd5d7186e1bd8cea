// The report card: actions filed by the prepare routes, matched to the chain and graded by fixed rules.
import { z } from "@hono/zod-openapi";
import { notGradedReasons, waitingReasons } from "../domain/grading/states.js";
import { Address, Timestamp } from "./fields.js";

export const HitRate = z
  .object({
    lower90: z.number().openapi({ description: "Low end of the Wilson 90% range (z = 1.6449) of hits / (hits + misses)" }),
    hits: z.number().int(),
    misses: z.number().int(),
    howGraded: z.string().openapi({ description: "The grading rules, in words" }),
  })
  .openapi("HitRate", {
    description:
      "null before 30 graded actions. Window: every graded action on record (the owner's whole history; graded actions are never deleted), not only the listed ones; an action counts once graded from the chain, and a bundle never signed never counts",
  });

export const CardAction = z
  .object({
    id: z.string().openapi({ description: "The filing's id" }),
    agentTag: z.string().nullable().openapi({ description: "The agentTag the bundle was prepared with" }),
    kind: z.string().openapi({ description: "The bundle kind" }),
    action: z.string().openapi({ description: "What the bundle does, in words" }),
    state: z
      .enum(["graded", "waiting", "not-graded"])
      .openapi({ description: "graded; waiting (reason fill, day, week, queue, receipt); not-graded (with its reason)" }),
    reason: z
      .enum([...waitingReasons, ...notGradedReasons])
      .nullable()
      .openapi({
        description:
          "Why it waits or is not graded; null once graded. A call prepared under different agentTags in the 10 minutes before it was mined, none with the owner's session, is credited to none: other, with the note saying so (private card only)",
      }),
    hit: z.boolean().nullable().openapi({ description: "Graded actions: whether the rule counts it a hit" }),
    note: z.string().openapi({ description: "The state and the verdict in words, with the chain figures compared" }),
    signed: z.boolean().openapi({ description: "Whether the bundle was seen mined; false only on the private card (waiting to be signed, or never signed)" }),
    preparedAt: Timestamp,
    executedAt: Timestamp.nullable().openapi({ description: "Block time of the matched transaction" }),
    gradedAt: Timestamp.nullable(),
    txHash: z.string().nullable().openapi({ description: "The (last) matched transaction" }),
    figures: z.record(z.string(), z.unknown()).openapi({ description: "The chain values the rule compared" }),
  })
  .openapi("ReportCardAction");

export const CardAgent = z
  .object({
    name: z.string().nullable().openapi({ description: "The agent's tag; null for actions prepared without one" }),
    ready: z.boolean().openapi({ description: "True once 30 actions are graded (hitRate is given)" }),
    graded: z.number().int().openapi({ description: "Graded actions on record (all of them, listed or not)" }),
    hitRate: HitRate.nullable(),
    actions: z.array(CardAction).openapi({ description: "Newest first, of the card's newest 500 (empty for an agent whose graded actions are all older)" }),
  })
  .openapi("ReportCardAgent");

export const ReportCard = z
  .object({
    owner: Address,
    view: z.enum(["public", "private"]),
    asOf: Timestamp,
    hitRate: HitRate.nullable().openapi({ description: "Over every agent of the card (with `agent`, that agent), counting every graded action on record" }),
    agents: z.array(CardAgent).openapi({ description: "Grouped by agentTag (the untagged group last)" }),
  })
  .openapi("ReportCard");
