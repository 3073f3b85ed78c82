import { describe, expect, it } from "vitest";
import { accessHealth } from "../../src/health/access";

const AUD = "0123456789abcdef-aud-tag";

describe("accessHealth", () => {
  it("is on with both settings, naming the team and never the AUD tag", () => {
    const check = accessHealth({ CF_ACCESS_TEAM_DOMAIN: "myteam", CF_ACCESS_AUD: AUD }, { localDev: false });
    expect(check).toMatchObject({ id: "access", status: "ok", detail: expect.stringContaining("myteam.cloudflareaccess.com") });
    expect(JSON.stringify(check)).not.toContain(AUD);
  });

  it("is off with neither: fine in local dev, a warning in a deploy", () => {
    expect(accessHealth({ CF_ACCESS_TEAM_DOMAIN: "", CF_ACCESS_AUD: "" }, { localDev: true }).status).toBe("ok");
    const deployed = accessHealth({}, { localDev: false });
    expect(deployed).toMatchObject({ status: "warn", fix: expect.stringContaining("CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD") });
  });

  it.each([
    [{ CF_ACCESS_TEAM_DOMAIN: "myteam", CF_ACCESS_AUD: " " }, "CF_ACCESS_AUD"],
    [{ CF_ACCESS_TEAM_DOMAIN: "", CF_ACCESS_AUD: AUD }, "CF_ACCESS_TEAM_DOMAIN"]
  ])("blocks a half configuration, naming the empty one", (config, missing) => {
    for (const localDev of [true, false]) {
      const check = accessHealth(config, { localDev });
      expect(check).toMatchObject({ status: "block", detail: expect.stringContaining(`${missing} is empty`), fix: "set both CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD, or neither" });
      expect(JSON.stringify(check)).not.toContain(AUD);
    }
  });
});
