import { describe, expect, it } from "vitest";
import { accessHealth } from "../../src/health/access";

const AUD = "0123456789abcdef-aud-tag";

describe("accessHealth", () => {
  it("is on with both settings, naming the team and never the AUD tag", () => {
    const check = accessHealth({ CF_ACCESS_TEAM_DOMAIN: "myteam", CF_ACCESS_AUD: AUD }, { localDev: false });
    expect(check).toMatchObject({ id: "access", status: "ok", detail: expect.stringContaining("myteam.cloudflareaccess.com") });
    expect(check).not.toHaveProperty("unsafe");
    expect(JSON.stringify(check)).not.toContain(AUD);
  });

  it("is off with neither in local dev, and fine", () => {
    for (const ACCESS of ["", "off"]) {
      expect(accessHealth({ CF_ACCESS_TEAM_DOMAIN: "", CF_ACCESS_AUD: "", ACCESS }, { localDev: true })).toMatchObject({ status: "ok", detail: expect.stringContaining("local dev") });
    }
  });

  it("blocks a deploy with neither and no opt-out: the Worker answers 503, and the fix names both settings and ACCESS=off", () => {
    for (const settings of [{}, { CF_ACCESS_TEAM_DOMAIN: "", CF_ACCESS_AUD: "", ACCESS: "" }]) {
      const check = accessHealth(settings, { localDev: false });
      expect(check).toMatchObject({ status: "block", detail: expect.stringContaining("503") });
      expect(check.fix).toContain("CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD");
      expect(check.fix).toContain('ACCESS to "off"');
      expect(check).not.toHaveProperty("unsafe");
    }
  });

  it("warns and is marked unsafe (red on the banner) with ACCESS=off in a deploy", () => {
    const check = accessHealth({ CF_ACCESS_TEAM_DOMAIN: "", CF_ACCESS_AUD: "", ACCESS: "off" }, { localDev: false });
    expect(check).toMatchObject({ status: "warn", unsafe: true, detail: expect.stringMatching(/^ACCESS=off: .*open to anyone/), fix: expect.stringContaining("CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD") });
  });

  it("warns that ACCESS=off changes nothing while both settings are set", () => {
    const check = accessHealth({ CF_ACCESS_TEAM_DOMAIN: "myteam", CF_ACCESS_AUD: AUD, ACCESS: "off" }, { localDev: false });
    expect(check).toMatchObject({ status: "warn", detail: expect.stringContaining("ACCESS=off is set too and changes nothing") });
    expect(check).not.toHaveProperty("unsafe");
  });

  it("blocks an ACCESS that is neither empty nor off, naming it", () => {
    for (const localDev of [true, false]) {
      expect(accessHealth({ ACCESS: "on" }, { localDev })).toMatchObject({ status: "block", detail: expect.stringContaining('ACCESS="on" is not a setting'), fix: expect.stringContaining('"off"') });
    }
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
