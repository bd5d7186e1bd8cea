// The arrows between rooms (README, "Where things live"), checked by `npm run lint:arrows` in `npm test`.
// Rooms, top to bottom: faces (api, workers, mcp, client) → boot (starting and stopping a process) →
// usecases → adapters → contract → domain. The list of rooms has one home: scripts/rooms.json.
// abis/ is data every room may read. src/ is Ponder's indexing code: it may read the domain and the
// two modules ponder.config.ts itself reads (the configuration and the deployments file).
const rooms = require("./scripts/rooms.json");
const PRODUCT = `^(${rooms.product.join("|")})/`;
const FACES = `^(${rooms.faces.join("|")})/`;
const BELOW_FACES = `^(${rooms.product.filter((r) => !rooms.faces.includes(r)).join("|")})/`;
const IO_PACKAGES =
  "^(node:)?(fs|fs/promises|net|http|https|http2|child_process|dgram|dns|tls|cluster|worker_threads)$|" +
  "^(kysely|postgres|pg|ioredis|bullmq|hono|@hono/.+|prom-client|rate-limiter-flexible|@modelcontextprotocol/.+|ponder)$";

/** A room (a folder) that may import only itself, the rooms or files named, the data rooms and npm packages. */
const only = (name, room, allowed) => ({
  name,
  severity: "error",
  comment: `${room}/ may import only ${allowed.join(", ")} (and the data in abis/, config/ and ponder.schema.ts, Ponder's virtual modules)`,
  from: { path: `^${room}/` },
  to: {
    path: ".",
    pathNot: [
      `^${room}/`,
      "^(abis|config)/",
      "^ponder\\.schema\\.ts$",
      "^ponder:",
      "^node_modules/",
      ...allowed.map((a) => (a.includes(".") ? `^${a.replace(/\./g, "\\.")}$` : `^${a}/`)),
    ],
    dependencyTypesNot: ["core"],
  },
});

module.exports = {
  forbidden: [
    { name: "no-circular", severity: "error", comment: "no circles between modules", from: {}, to: { circular: true } },
    only("domain-imports-only-domain", "domain", []),
    {
      name: "domain-has-no-io",
      severity: "error",
      comment: "the domain is pure: no I/O package",
      from: { path: "^domain/" },
      to: { path: IO_PACKAGES, pathNot: "^node_modules/" },
    },
    {
      name: "domain-has-no-io-npm",
      severity: "error",
      comment: "the domain is pure: no I/O package",
      from: { path: "^domain/" },
      to: {
        dependencyTypes: ["npm", "core"],
        path: `node_modules/(kysely|postgres|pg|ioredis|bullmq|hono|@hono|prom-client|rate-limiter-flexible|@modelcontextprotocol|ponder)/`,
      },
    },
    only("contract-imports-domain", "contract", ["domain"]),
    only("adapters-import-below", "adapters", ["domain", "contract"]),
    only("usecases-import-below", "usecases", ["adapters", "domain", "contract"]),
    only("boot-imports-below", "boot", ["usecases", "adapters", "domain", "contract"]),
    only("indexer-imports-domain", "src", [
      "domain",
      "adapters/config.ts",
      "adapters/chain/deployments.ts",
      "adapters/chain/token-list.ts",
      "ponder.schema.ts",
    ]),
    {
      name: "faces-do-not-import-faces",
      severity: "error",
      comment: "a face imports the rooms below it, never another face (the one mount: /mcp is a route of the API server)",
      from: { path: FACES, pathNot: "^api/routes/mcp\\.ts$" },
      to: { path: FACES, pathNot: "^$1/" },
    },
    {
      name: "below-faces-import-no-face",
      severity: "error",
      comment: "nothing below the faces imports them",
      from: { path: BELOW_FACES },
      to: { path: FACES },
    },
    {
      name: "product-imports-no-tests",
      severity: "error",
      comment: "product code never imports tests, benchmarks, scripts or the devnet",
      from: { path: PRODUCT },
      to: { path: "^(test|bench|scripts|devnet)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".js", ".json"],
    },
    exclude: { path: "^(node_modules|generated|\\.ponder|devnet/build)" },
  },
};
