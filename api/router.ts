// The routers. `createRouter`: what every route file starts from, an OpenAPIHono whose validation failures
// answer 400 INVALID_REQUEST (api/validation.ts).
// `PartitionedRouter`, the app's router: Hono's SmartRouter per partition of the path space. Hono's
// fastest router (RegExpRouter, one precompiled regular expression per method) refuses a route set that has a
// parameter beside literal siblings, as the spec's /v1/strategy-finder/{token} has beside
// /strategy-finder/track-record and /attempts; Hono's own SmartRouter then falls back to TrieRouter
// for every route of the app, which costs every request a tree walk. Here only the paths under a
// given prefix share that fallback: the rest keep RegExpRouter.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Env } from "hono";
import type { Result, Router } from "hono/router";
import { RegExpRouter } from "hono/router/reg-exp-router";
import { SmartRouter } from "hono/router/smart-router";
import { TrieRouter } from "hono/router/trie-router";
import { validationHook } from "./validation.js";

/** An OpenAPIHono with the validation hook set. */
export function createRouter<E extends Env = Env>(): OpenAPIHono<E> {
  return new OpenAPIHono<E>({ defaultHook: validationHook });
}

const smartRouter = <T>() => new SmartRouter<T>({ routers: [new RegExpRouter(), new TrieRouter()] });

/** The literal start of a route pattern: everything before its first parameter or wildcard. */
export const literalPrefix = (pattern: string): string => {
  const at = pattern.search(/[:*]/);
  return at < 0 ? pattern : pattern.slice(0, at);
};

export class PartitionedRouter<T> implements Router<T> {
  name = "PartitionedRouter";
  /** The partition of paths under `prefix`; the last one takes every other path. */
  readonly #partitions: { prefix: string; router: SmartRouter<T> }[];
  readonly #rest = smartRouter<T>();

  /** `prefixes` end with "/": each names a partition of the paths that start with it. */
  constructor(prefixes: readonly string[]) {
    this.#partitions = prefixes.map((prefix) => ({ prefix, router: smartRouter<T>() }));
  }

  add(method: string, path: string, handler: T): void {
    const literal = literalPrefix(path);
    let onlyInPartition = false;
    for (const { prefix, router } of this.#partitions) {
      // A route under the prefix matches only there; a route whose literal start is a start of the
      // prefix (middleware on "*" or "/v1/*") may match there and elsewhere, so it goes in both.
      if (literal.startsWith(prefix)) {
        router.add(method, path, handler);
        onlyInPartition = true;
      } else if (prefix.startsWith(literal)) router.add(method, path, handler);
    }
    if (!onlyInPartition) this.#rest.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    for (const { prefix, router } of this.#partitions) if (path.startsWith(prefix)) return router.match(method, path);
    return this.#rest.match(method, path);
  }

  /** The router each partition chose (known once it has matched a path), for tests and diagnostics. */
  activeRouters(): Record<string, string> {
    const name = (router: SmartRouter<T>) => {
      try {
        return router.activeRouter.name;
      } catch {
        return "undecided";
      }
    };
    return Object.fromEntries([...this.#partitions.map(({ prefix, router }) => [prefix, name(router)]), ["*", name(this.#rest)]]);
  }
}
