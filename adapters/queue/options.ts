// What every BullMQ Queue of the service is made with. BullMQ logs each queue's job events (added, active,
// completed, ...) to a Redis stream that it trims only at 10,000 entries by default, about 5 MiB a queue at
// ~500 bytes an event: at an hour of the soak's traffic the prepare queue's stream was still filling after 40
// minutes, and Redis's memory grew with it (bench/README, the soak). Its readers (QueueEvents, under the
// request-reply waits) read only the newest events, so 1,000 are kept. Each Queue writes the bound into the
// queue's meta when it starts and the last one wins, so every Queue the service makes carries it.
import type { QueueOptions } from "bullmq";

export const QUEUE_EVENTS_KEPT = 1_000;

export const queueStreams: NonNullable<QueueOptions["streams"]> = { events: { maxLen: QUEUE_EVENTS_KEPT } };
