import { describe, expect, it } from "vitest";
import { publicUrlHealth } from "../../src/health/public-url";

const deployed = { localDev: false };
const local = { localDev: true };

describe("publicUrlHealth", () => {
  it("is ok for the Worker's own URL, deployed or local", () => {
    expect(publicUrlHealth({ PUBLIC_BASE_URL: "https://agent-think.acme.workers.dev/" }, deployed)).toEqual({
      id: "public-url",
      label: "Public URL",
      status: "ok",
      detail: "links posted on issues point at https://agent-think.acme.workers.dev/thread/<session>"
    });
    expect(publicUrlHealth({ PUBLIC_BASE_URL: "http://127.0.0.1:8787" }, local)).toMatchObject({ status: "ok", detail: expect.stringContaining("(local dev)") });
  });

  it.each(["http://127.0.0.1:8787", "http://localhost:8787", "http://[::1]:8787", "http://0.0.0.0:8787", "http://agent-think.localhost", " http://127.0.0.2 "])(
    "blocks a deploy whose links point at this machine: %s",
    (value) => {
      const check = publicUrlHealth({ PUBLIC_BASE_URL: value }, deployed);
      expect(check).toMatchObject({ status: "block", fix: expect.stringMatching(/^set PUBLIC_BASE_URL in wrangler\.jsonc/) });
      expect(check.detail).toMatch(/an address on the Worker's own machine: every thread and reproduction link posted on issues leads nowhere$/);
    }
  );

  it("blocks an empty value or one that is no http(s) URL in a deploy, and warns in local dev", () => {
    expect(publicUrlHealth({ PUBLIC_BASE_URL: "" }, deployed)).toMatchObject({ status: "block", detail: expect.stringMatching(/^PUBLIC_BASE_URL is empty: /) });
    expect(publicUrlHealth({}, deployed).status).toBe("block");
    expect(publicUrlHealth({ PUBLIC_BASE_URL: "agent-think.acme.workers.dev" }, deployed)).toMatchObject({
      status: "block",
      detail: expect.stringContaining('"agent-think.acme.workers.dev" is not an http(s) URL')
    });
    expect(publicUrlHealth({ PUBLIC_BASE_URL: "ftp://files.example" }, local)).toMatchObject({ status: "warn", fix: expect.stringContaining("PUBLIC_BASE_URL") });
  });
});
