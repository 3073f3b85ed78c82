import { describe, expect, it } from "vitest";
import { allowedReposHealth } from "../../src/health/allowed-repos";

describe("allowedReposHealth", () => {
  it("lists the repositories runs may be on, wherever it runs", () => {
    expect(allowedReposHealth({ ALLOWED_REPOS: "Acme/Widgets, acme/gadgets", LOCAL_DEV: "" })).toEqual({
      id: "allowed-repos",
      label: "Allowed repositories",
      status: "ok",
      detail: "acme/widgets, acme/gadgets"
    });
    expect(allowedReposHealth({ ALLOWED_REPOS: "acme/widgets", LOCAL_DEV: "1" })).toMatchObject({ status: "ok", detail: "acme/widgets" });
  });

  it("is ok empty in local dev, where any repository may be dispatched", () => {
    expect(allowedReposHealth({ ALLOWED_REPOS: "", LOCAL_DEV: "1" })).toMatchObject({ status: "ok", detail: expect.stringContaining("any repository") });
  });

  it("blocks empty outside local dev, and a list that does not parse anywhere, naming the variable in its fix", () => {
    for (const [config, detail] of [
      [{ ALLOWED_REPOS: " , ", LOCAL_DEV: "" }, /^ALLOWED_REPOS is empty: the agent Worker refuses every dispatch and Continue$/],
      [{ LOCAL_DEV: "" }, /^ALLOWED_REPOS is empty/],
      [{ ALLOWED_REPOS: "acme/widgets,gadgets", LOCAL_DEV: "1" }, /^ALLOWED_REPOS must be a comma-separated list of owner\/name, and "gadgets" is not one/]
    ] as const) {
      expect(allowedReposHealth(config)).toMatchObject({ status: "block", detail: expect.stringMatching(detail), fix: expect.stringContaining("ALLOWED_REPOS in wrangler.jsonc") });
    }
  });
});
