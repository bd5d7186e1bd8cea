// Ponder requires an API entry; the baseline serves nothing of its own (only /health, /ready, /metrics).
import { Hono } from "hono";

export default new Hono();
