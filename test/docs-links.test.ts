// The README is read first and kept short; everything else lives in docs/, one file per subject, and
// bench/README.md. Every relative link in them must reach its file, and every #anchor a heading of the
// file it names (GitHub's slugs). No servers needed.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../adapters/config.js";

const documents = [
  "README.md",
  ...readdirSync(join(repoRoot, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
  "bench/README.md",
];

const read = (file: string) => readFileSync(join(repoRoot, file), "utf8");

/** The text without fenced code blocks and inline code spans, where a link is not a link. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/`+[^`\n]*`+/g, "");
}

/** GitHub's anchor of each heading: lowercase, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  for (const [, text] of withoutFences.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const plain = text!.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/<[^>]+>/g, "");
    const base = plain
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
      .replace(/ /g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    found.add(n === 0 ? base : `${base}-${n}`);
  }
  return found;
}

type Link = { from: string; target: string };

function relativeLinks(file: string): Link[] {
  const links: Link[] = [];
  for (const [, target] of prose(read(file)).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue; // http:, https:, mailto:
    links.push({ from: file, target: target! });
  }
  return links;
}

describe("the documents' links", () => {
  it("finds the documents, and links in them", () => {
    expect(documents).toContain("docs/operations.md");
    expect(documents.flatMap(relativeLinks).length).toBeGreaterThan(20);
  });

  it.each(documents)("every relative link and #anchor in %s reaches its target", (file) => {
    const broken: string[] = [];
    for (const { target } of relativeLinks(file)) {
      const [path = "", anchor] = target.split("#", 2) as [string, string | undefined];
      const to = path === "" ? file : relative(repoRoot, resolve(dirname(join(repoRoot, file)), decodeURI(path)));
      if (to.startsWith("..") || !existsSync(join(repoRoot, to))) {
        broken.push(`${target}: no file ${to}`);
        continue;
      }
      if (anchor === undefined) continue;
      if (!to.endsWith(".md") || statSync(join(repoRoot, to)).isDirectory()) {
        broken.push(`${target}: an anchor into ${to}, which is not a markdown file`);
        continue;
      }
      if (!anchors(read(to)).has(decodeURIComponent(anchor).toLowerCase())) broken.push(`${target}: no heading #${anchor} in ${to}`);
    }
    expect(broken).toEqual([]);
  });

  it("README links every file of docs/ and bench/README.md", () => {
    const linked = new Set(relativeLinks("README.md").map(({ target }) => target.split("#")[0]));
    expect(documents.filter((file) => file !== "README.md" && !linked.has(file))).toEqual([]);
  });
});

describe("the README", () => {
  const lines = read("README.md").split("\n");

  it("is under 250 lines", () => {
    expect(lines.length).toBeLessThan(250);
  });

  it("gives both commands in its first 60 lines", () => {
    const first = lines.slice(0, 60).join("\n");
    expect(first).toContain("npm install && npm start");
    expect(first).toContain("npm test");
  });
});

describe("GitHub's heading anchors", () => {
  it("are made as GitHub makes them", () => {
    const made = anchors(
      "# Payments (x402)\n## Operations / Scaling out\n### `npm audit --omit=dev`\n## Read cache\n## Read cache\n```\n# not a heading\n```\n",
    );
    expect([...made]).toEqual(["payments-x402", "operations--scaling-out", "npm-audit---omitdev", "read-cache", "read-cache-1"]);
  });
});
