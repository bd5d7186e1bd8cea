// The typed client's answers are inferred from the operations' declarations (contract/operations/), not
// asserted per method: each equals its answer schema's output. Checked by the type check (npm test's tsc):
// an inference that broke (never, unknown, the wrong schema) fails to compile.
import type { z } from "@hono/zod-openapi";
import { describe, expectTypeOf, it } from "vitest";
import type { Account, Activity } from "../../contract/accounts.js";
import type { GridBacktestResult, LadderBacktestResult, RangesResult } from "../../contract/backtests.js";
import type { PrepareResult as PrepareResultSchema } from "../../contract/prepare.js";
import type { Products } from "../../contract/products.js";
import type { SignRequest as SignRequestSchema } from "../../contract/sign-request.js";
import type { AgentVault, AgentVaultDetail, VaultEarnings, VaultPrices } from "../../contract/vaults.js";
import type {
  AgentAccount,
  AgentActivity,
  AgentClient,
  AgentProducts,
  AgentVaultDetails,
  AgentVaultEarnings,
  AgentVaultPrices,
  AgentVaultSummary,
  GridBacktest,
  LadderBacktest,
  PrepareResult,
  Ranges,
  SignRequest,
} from "../../client/agent-client.js";

describe("the typed client's answer types", () => {
  it("are the answer schemas' outputs, as the declarations name them", () => {
    expectTypeOf<AgentProducts>().toEqualTypeOf<z.output<typeof Products>>();
    expectTypeOf<AgentVaultSummary>().toEqualTypeOf<z.output<typeof AgentVault>>();
    expectTypeOf<AgentVaultDetails>().toEqualTypeOf<z.output<typeof AgentVaultDetail>>();
    expectTypeOf<AgentVaultPrices>().toEqualTypeOf<z.output<typeof VaultPrices>>();
    expectTypeOf<AgentVaultEarnings>().toEqualTypeOf<z.output<typeof VaultEarnings>>();
    expectTypeOf<AgentAccount>().toEqualTypeOf<z.output<typeof Account>>();
    expectTypeOf<AgentActivity>().toEqualTypeOf<z.output<typeof Activity>>();
    expectTypeOf<SignRequest>().toEqualTypeOf<z.output<typeof SignRequestSchema>>();
    expectTypeOf<GridBacktest>().toEqualTypeOf<z.output<typeof GridBacktestResult>>();
    expectTypeOf<LadderBacktest>().toEqualTypeOf<z.output<typeof LadderBacktestResult>>();
    expectTypeOf<Ranges>().toEqualTypeOf<z.output<typeof RangesResult>>();
    expectTypeOf<PrepareResult>().toEqualTypeOf<z.output<typeof PrepareResultSchema>>();
  });

  it("are what the methods resolve to", () => {
    expectTypeOf<Awaited<ReturnType<AgentClient["vaults"]>>>().toEqualTypeOf<z.output<typeof AgentVault>[]>();
    expectTypeOf<Awaited<ReturnType<AgentClient["activity"]>>>().toEqualTypeOf<z.output<typeof Activity>>();
    expectTypeOf<Awaited<ReturnType<AgentClient["account"]>>>().not.toBeAny();
    expectTypeOf<Awaited<ReturnType<AgentClient["backtestGrid"]>>>().toEqualTypeOf<z.output<typeof GridBacktestResult>>();
  });
});
