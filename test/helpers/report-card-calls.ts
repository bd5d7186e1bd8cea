// The report-card tests' two calls through the app: a prepare filed at the chain's time (a mined call
// matches filings of the 10 minutes before its block), and an owner's public card's actions.
import type { Address, PublicClient } from "viem";
import { expect } from "vitest";
import type { PrepareResult } from "../../client/index.js";
import type { testApp } from "../api/support.js";

export type CardAction = { kind: string; state: string; signed: boolean };

/** `on()` gives the app and chain client once the file's set-up has made them. */
export function reportCardCalls(on: () => { t: ReturnType<typeof testApp>; chain: PublicClient }) {
  async function prepared(owner: Address, kind: string, body: Record<string, unknown>): Promise<PrepareResult> {
    const { t, chain } = on();
    t.clock.set(new Date(Number((await chain.getBlock()).timestamp) * 1000));
    const res = await t.app.request(`/v1/agent/prepare/${kind}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ owner, ...body }),
    });
    const answer = (await res.json()) as { data: PrepareResult };
    expect(res.status, `${kind}: ${JSON.stringify(answer).slice(0, 500)}`).toBe(200);
    return answer.data;
  }
  async function actionsOf(owner: Address): Promise<CardAction[]> {
    const res = await on().t.app.request(`/v1/agent/report-card/${owner}`);
    const body = (await res.json()) as { data: { agents: { actions: CardAction[] }[] } };
    expect(res.status, JSON.stringify(body).slice(0, 400)).toBe(200);
    return body.data.agents.flatMap((a) => a.actions);
  }
  return { prepared, actionsOf };
}
