// Every migration of the API's schema, in order. A STATIC provider: kysely's FileMigrationProvider
// imports files at run time, which fails on .ts under vitest. Add a migration: write
// NNNN_name.ts exporting a factory of the schema name, and list it here.
import type { Migration, MigrationProvider } from "kysely";
import { initial } from "./0001_initial.js";
import { activityCursorTrail } from "./0002_activity_cursor_trail.js";
import { reportCard } from "./0003_report_card.js";
import { strategyResults } from "./0004_strategy_results.js";
import { retention } from "./0005_retention.js";
import { scanChain } from "./0006_scan_chain.js";
import { paidRuns } from "./0007_paid_runs.js";
import { gradingWindow } from "./0008_grading_window.js";
import { pickChain } from "./0009_pick_chain.js";
import { clientBounds } from "./0010_client_bounds.js";
import { gradingDue } from "./0011_grading_due.js";
import { gradingPass } from "./0012_grading_pass.js";

const migrations: Record<string, (schema: string) => Migration> = {
  "0001_initial": initial,
  "0002_activity_cursor_trail": activityCursorTrail,
  "0003_report_card": reportCard,
  "0004_strategy_results": strategyResults,
  "0005_retention": retention,
  "0006_scan_chain": scanChain,
  "0007_paid_runs": paidRuns,
  "0008_grading_window": gradingWindow,
  "0009_pick_chain": pickChain,
  "0010_client_bounds": clientBounds,
  "0011_grading_due": gradingDue,
  "0012_grading_pass": gradingPass,
};

export function migrationProvider(schema: string): MigrationProvider {
  return {
    async getMigrations() {
      return Object.fromEntries(Object.entries(migrations).map(([name, make]) => [name, make(schema)]));
    },
  };
}
