// The queue dashboard (bull-board) at /admin/queues, behind HTTP Basic with the credentials of the
// environment (QUEUE_DASHBOARD_USER, QUEUE_DASHBOARD_PASSWORD). Without them set it is not mounted: the
// path answers 404 like any unknown one. Operators can retry and clean jobs from it.
import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { HonoAdapter } from "@bull-board/hono";
import { serveStatic } from "@hono/node-server/serve-static";
import type { Queue } from "bullmq";
import { Hono } from "hono";
import { basicAuth } from "hono/basic-auth";
import { QUEUE_DASHBOARD_PATH } from "../contract/discovery/links.js";

export type QueueDashboardOptions = { queues: readonly Queue[]; user: string; password: string };

export function queueDashboard({ queues, user, password }: QueueDashboardOptions): Hono {
  const board = new HonoAdapter(serveStatic).setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({ queues: queues.map((q) => new BullMQAdapter(q)), serverAdapter: board, options: { uiConfig: { boardTitle: "Agent queues" } } });
  const app = new Hono();
  // Every path of the board, its page, its API and its assets alike (hono's basicAuth compares in constant time).
  app.use("*", basicAuth({ username: user, password, realm: "queues" }));
  app.route("/", board.registerPlugin());
  return app;
}
