import { readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, devnetFaucetUrl, indexerRpc, loadConfig, redactUrl, repoRoot, rpcUrl, settingNames, usesDevnet } from "../../adapters/config.js";

describe("loadConfig", () => {
  it("has defaults that work on a fresh machine", () => {
    const cfg = loadConfig({});
    expect(cfg).toMatchObject({
      DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/agent",
      REDIS_URL: "redis://127.0.0.1:6379",
      DEVNET_HOST: "127.0.0.1",
      DEVNET_PORT: 8545,
      PORT: 8080,
      PONDER_PORT: 42069,
      BASE_URL: "http://127.0.0.1:8080",
      DEPLOYMENTS_FILE: join(repoRoot, ".devnet", "deployments.json"),
      DATABASE_SCHEMA: "ponder",
      VIEWS_SCHEMA: "agent_views",
      API_SCHEMA: "agent_api",
      REDIS_PREFIX: "agent",
      LOG_LEVEL: "info",
      DEVNET_SIM_INTERVAL_MS: 2000,
      AGENT_REPORT_CARDS_READS: "public",
      AGENT_REPORT_CARDS: "on",
      AGENT_ACCOUNTS: "on",
    });
    expect(cfg.RPC_URL).toBeUndefined();
  });

  it("lists the RPC URL for the indexer 8 times on the devnet, once for a configured chain, or as told", () => {
    expect(indexerRpc(loadConfig({ DEVNET_PORT: "9545" }))).toEqual(Array(8).fill("http://127.0.0.1:9545"));
    expect(indexerRpc(loadConfig({ RPC_URL: "https://rpc.example/x" }))).toEqual(["https://rpc.example/x"]);
    expect(indexerRpc(loadConfig({ RPC_URL: "https://rpc.example/x", INDEXER_RPC_LANES: "3" }))).toHaveLength(3);
    expect(() => loadConfig({ INDEXER_RPC_LANES: "0" })).toThrow(/INDEXER_RPC_LANES/);
  });

  it("coerces numbers, and BASE_URL follows PORT", () => {
    const cfg = loadConfig({ PORT: "9090", DEVNET_SIM_INTERVAL_MS: "250" });
    expect(cfg.PORT).toBe(9090);
    expect(cfg.DEVNET_SIM_INTERVAL_MS).toBe(250);
    expect(cfg.BASE_URL).toBe("http://127.0.0.1:9090");
  });

  it("keeps an explicit BASE_URL, without a trailing slash", () => {
    expect(loadConfig({ PORT: "9090", BASE_URL: "https://agents.example/" }).BASE_URL).toBe("https://agents.example");
  });

  it.each(["abc", "0", "70000", "80.5"])("refuses PORT=%s with one line naming PORT", (value) => {
    expect(() => loadConfig({ PORT: value })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: value })).toThrow(`Invalid configuration: PORT="${value}" must be a port number (an integer from 1 to 65535)`);
  });

  it("names every bad variable, on one line, without passwords", () => {
    try {
      loadConfig({ AGENT_ACCOUNTS: "yes", DATABASE_URL: "postgres://u:secret@ db" });
      expect.unreachable();
    } catch (error) {
      const message = (error as Error).message;
      expect(message).not.toContain("\n");
      expect(message).toContain("AGENT_ACCOUNTS=");
      expect(message).toContain("DATABASE_URL=");
      expect(message).not.toContain("secret");
    }
  });

  it("refuses schema names that are not plain identifiers", () => {
    expect(() => loadConfig({ API_SCHEMA: "api; drop table x" })).toThrow(/API_SCHEMA=/);
  });

  it("treats empty strings as unset", () => {
    const cfg = loadConfig({ PORT: "", RPC_URL: "" });
    expect(cfg.PORT).toBe(8080);
    expect(usesDevnet(cfg)).toBe(true);
  });

  it("resolves a relative DEPLOYMENTS_FILE from the repository root, keeps an absolute one", () => {
    expect(loadConfig({ DEPLOYMENTS_FILE: "x/d.json" }).DEPLOYMENTS_FILE).toBe(join(repoRoot, "x", "d.json"));
    expect(loadConfig({ DEPLOYMENTS_FILE: "/tmp/d.json" }).DEPLOYMENTS_FILE).toBe("/tmp/d.json");
    expect(isAbsolute(repoRoot)).toBe(true);
  });
});

describe("standbys and Sentinel", () => {
  it("splits DATABASE_READ_URL and REDIS_SENTINELS; unset, reads go to DATABASE_URL and Redis to REDIS_URL", () => {
    const c = loadConfig({
      DATABASE_READ_URL: "postgresql://app@standby-a:5432/agent, postgresql://app@standby-b:5433/agent",
      REDIS_SENTINELS: "s1:26379, 10.0.0.2:26380",
      REDIS_SENTINEL_NAME: "agents",
    });
    expect(c.DATABASE_READ_URLS).toEqual(["postgresql://app@standby-a:5432/agent", "postgresql://app@standby-b:5433/agent"]);
    expect(c.READ_MAX_LAG_MS).toBe(2000);
    expect(c.REDIS_SENTINEL).toEqual({
      name: "agents",
      sentinels: [
        { host: "s1", port: 26379 },
        { host: "10.0.0.2", port: 26380 },
      ],
    });
    const plain = loadConfig({});
    expect(plain.DATABASE_READ_URLS).toEqual([]);
    expect(plain.REDIS_SENTINEL).toBeUndefined();
  });

  it("refuses a standby list with a non-URL and sentinels without a port, naming each", () => {
    expect(() => loadConfig({ DATABASE_READ_URL: "postgresql://a/agent,standby-b" })).toThrow(/DATABASE_READ_URL=.*must be one or more URLs/);
    expect(() => loadConfig({ REDIS_SENTINELS: "s1:26379,s2" })).toThrow(/REDIS_SENTINELS=.*must be host:port/);
    expect(() => loadConfig({ READ_MAX_LAG_MS: "-1" })).toThrow(/READ_MAX_LAG_MS/);
  });
});

describe("usesDevnet and rpcUrl", () => {
  it("unset RPC_URL means the devnet", () => {
    const cfg = loadConfig({ DEVNET_PORT: "9545" });
    expect(usesDevnet(cfg)).toBe(true);
    expect(rpcUrl(cfg)).toBe("http://127.0.0.1:9545");
  });

  it("a configured RPC_URL means that chain", () => {
    const cfg = loadConfig({ RPC_URL: "https://rpc.example/v1" });
    expect(usesDevnet(cfg)).toBe(false);
    expect(rpcUrl(cfg)).toBe("https://rpc.example/v1");
  });

  it("names the devnet's faucet on the devnet only: a real chain's configuration has none, whatever its port says", () => {
    expect(devnetFaucetUrl(loadConfig({ DEVNET_FAUCET_PORT: "9547" }))).toBe("http://127.0.0.1:9547");
    expect(devnetFaucetUrl(loadConfig({ RPC_URL: "https://rpc.example/v1", DEVNET_FAUCET_PORT: "9547" }))).toBeUndefined();
  });
});

describe("redactUrl", () => {
  it("hides passwords and leaves other URLs alone", () => {
    expect(redactUrl("postgresql://app:s3cret@db:5432/agent")).toBe("postgresql://app:***@db:5432/agent");
    expect(redactUrl("postgresql://postgres@127.0.0.1:5432/agent")).toBe("postgresql://postgres@127.0.0.1:5432/agent");
  });
});

describe("the settings' documents", () => {
  const envExample = readFileSync(join(repoRoot, ".env.example"), "utf8");
  const assigned = Object.fromEntries([...envExample.matchAll(/^([A-Z0-9_]+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]));

  it(".env.example names every setting once, and its values are the defaults", () => {
    expect(Object.keys(assigned).sort()).toEqual([...settingNames].sort());
    expect([...envExample.matchAll(/^([A-Z0-9_]+)=/gm)]).toHaveLength(settingNames.length);
    expect(loadConfig(assigned)).toEqual(loadConfig({}));
  });

  it("the README's configuration table names every setting", () => {
    const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
    expect(settingNames.filter((name) => !readme.includes(`| \`${name}\` |`))).toEqual([]);
  });
});
