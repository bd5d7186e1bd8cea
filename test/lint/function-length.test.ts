// No product function past a screen (issue 35): every function of the product rooms, counted from its first
// to its last line with the functions nested in it, is at most 100 lines. The counter is shown on inline sources.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../adapters/config.js";
import rooms from "../../scripts/rooms.json" with { type: "json" };

const ROOMS = rooms.product;
const MAX_LINES = 100;

type Long = { file: string; name: string; line: number; lines: number };

function functionName(node: ts.FunctionLikeDeclaration): string {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText();
  return "(anonymous)";
}

/** Every function-like node of `source` longer than `max` lines, its span including what is nested in it. */
function longFunctions(file: string, source: string, max = MAX_LINES): Long[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: Long[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isFunctionDeclaration(node) ||
      ts.isFunctionExpression(node) ||
      ts.isArrowFunction(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isConstructorDeclaration(node) ||
      ts.isGetAccessorDeclaration(node) ||
      ts.isSetAccessorDeclaration(node)
    ) {
      const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > max) found.push({ file, name: functionName(node), line: first + 1, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

function productFiles(): string[] {
  const out = execFileSync("git", ["ls-files", "-z", "--", ...ROOMS], { cwd: repoRoot, encoding: "utf8" });
  return out.split("\0").filter((f) => f.endsWith(".ts"));
}

const body = (n: number) => Array.from({ length: n - 2 }, (_, i) => `  const v${i} = ${i};`).join("\n");

describe("the function-length counter", () => {
  it("finds a 101-line function and not a 100-line one", () => {
    const source = `function long() {\n${body(101)}\n}\nconst short = () => {\n${body(100)}\n};\n`;
    expect(longFunctions("inline.ts", source)).toEqual([{ file: "inline.ts", name: "long", line: 1, lines: 101 }]);
  });

  it("counts a nested function in its parent's span, and names methods and anonymous functions", () => {
    const source = `class C {\n  m() {\n    return () => {\n${body(60)}\n    };\n  }\n}\nexport default function () {\n${body(3)}\n}\n`;
    const found = longFunctions("inline.ts", source, 60); // the arrow is 60 lines, its method 62
    expect(found.map((f) => [f.name, f.lines])).toEqual([["m", 62]]);
    expect(longFunctions("inline.ts", source, 2).map((f) => f.name)).toContain("(anonymous)");
  });
});

describe("the product rooms", () => {
  it(`have no function over ${MAX_LINES} lines`, () => {
    const files = productFiles();
    expect(files.length).toBeGreaterThan(100);
    const long = files.flatMap((f) => longFunctions(f, readFileSync(join(repoRoot, f), "utf8")));
    const named = long.map((l) => `${l.file}:${l.line} ${l.name} (${l.lines} lines)`);
    expect(named).toEqual([]);
  });
});
