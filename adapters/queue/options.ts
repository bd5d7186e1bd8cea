// What every BullMQ Queue of the service is made with. BullMQ logs each queue's job events (added, active,
// completed, ...) to a Redis stream that it trims only at 10,000 entries by default, about 5 MiB a queue at
// ~500 bytes an event: at an hour of the soak's traffic the prepare queue's stream was still filling after 40
// minutes, and Redis's memory grew with it (bench/README, the soak). Its readers (QueueEvents, under the
// request-reply waits) read only the newest events, so 1,000 are kept. Each Queue writes the bound into the
// queue's meta when it starts and the last one wins, so every Queue the service makes carries it.
//
// BullMQ writes that meta once, when the Queue is made. A Redis restarted without its data has lost it, and
// BullMQ's scripts then trim at 10,000 again: the soak's Redis grew for the rest of the hour after its
// restart-redis fault (the prepare queue's stream at 2,143 entries 25 minutes on). So a service queue writes
// its meta again each time its connection is ready again.
import { Queue, type QueueOptions } from "bullmq";

export const QUEUE_EVENTS_KEPT = 1_000;

export const queueStreams: NonNullable<QueueOptions["streams"]> = { events: { maxLen: QUEUE_EVENTS_KEPT } };

/** A Queue of the service: its events bounded, the bound written again on every reconnection. */
export function serviceQueue(name: string, options: Omit<QueueOptions, "streams">): Queue {
  const queue = new Queue(name, { ...options, streams: queueStreams });
  const rewrite = () => void queue.backend.setQueueMeta(queue.metaValues).catch(() => {}); // down again: the next "ready" writes it
  queue.backend.on("ready", rewrite); // each time its Redis client is ready: at start and after every reconnection
  return queue;
}
