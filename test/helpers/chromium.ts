// Debian's Chromium as the browser tests launch it (playwright-core): headless, no sandbox (root), and
// none of its background connections, which a closed network (a CI host without internet) refuses. Screenshots go to
// test/.artifacts/ (git-ignored).
import { fileURLToPath } from "node:url";

export const ARTIFACTS = fileURLToPath(new URL("../.artifacts/", import.meta.url));

export const CHROMIUM_LAUNCH = {
  executablePath: "/usr/bin/chromium",
  headless: true,
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
};
