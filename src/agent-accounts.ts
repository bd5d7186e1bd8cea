// Agent accounts: one row per AccountCreated. Owner and agent never change (immutable in the account),
// so this is the whole of what the prepare's via-account lookup needs from the index.
import { ponder } from "ponder:registry";
import { agentAccount } from "ponder:schema";

ponder.on("AgentAccountFactory:AccountCreated", async ({ event, context }) => {
  const { account, owner, agent } = event.args;
  await context.db.insert(agentAccount).values({ address: account, owner, agent, createdBlock: event.block.number, createdAt: Number(event.block.timestamp) });
});
