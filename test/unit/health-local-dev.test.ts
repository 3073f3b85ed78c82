import { describe, expect, it } from "vitest";
import { localDevHealth } from "../../src/health/local-dev";

describe("localDevHealth", () => {
  it("warns whenever LOCAL_DEV=1, saying /dev/* is open", () => {
    expect(localDevHealth({ LOCAL_DEV: "1" })).toMatchObject({ id: "local-dev", status: "warn", detail: expect.stringContaining("/dev/* is open"), fix: expect.any(String) });
  });

  it.each(["", "0", "true", undefined])("is off for LOCAL_DEV=%s", (value) => {
    expect(localDevHealth({ LOCAL_DEV: value }).status).toBe("ok");
  });
});
