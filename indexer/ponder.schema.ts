// Ponder's schema file must sit at its root: the repository's own, re-exported (a symlink would give
// Ponder two copies of every table, one per path). See README.md here.
export * from "../ponder.schema.js";
