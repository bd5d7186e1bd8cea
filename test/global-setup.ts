// One running system (devnet + indexer) for every end-to-end test file of a run.
import type { TestProject } from "vitest/node";
import { startStack, type StartedStack } from "./helpers/stack.js";

let stack: StartedStack | undefined;

export async function setup(project: TestProject) {
  stack = await startStack({ historyDays: 2 });
  const { stop: _stop, log: _log, devnet: _d, indexer: _i, ...plain } = stack;
  project.provide("stack", plain);
}

export async function teardown() {
  await stack?.stop();
}

declare module "vitest" {
  export interface ProvidedContext {
    stack: import("./helpers/stack.js").Stack;
  }
}
