import { describe, expect, it } from "vitest";
import { handleApiRoute, handleHealthRoute } from "../../src/http/api-routes";
import { gate } from "../../src/http/gate";
import { ruleFor } from "../../src/http/route-policy";
import type { HealthReport } from "../../src/shared/health";

const ORIGIN = "https://agent-think.test";
const REPORT: HealthReport = {
  status: "block",
  checks: [{ id: "skills", label: "Skills bucket", status: "block", detail: "SKILLS_BUCKET holds no skills", fix: "npm run seed:r2" }],
  generatedAt: "2026-10-20T12:00:00.000Z"
};
const deps = { health: async () => REPORT };

describe("GET /api/health", () => {
  it("answers the report with 200 even when it blocks, uncached", async () => {
    const response = await handleHealthRoute(new Request(`${ORIGIN}/api/health`), deps);
    expect(response?.status).toBe(200);
    expect(response?.headers.get("cache-control")).toBe("no-store");
    expect(response?.headers.get("content-type")).toContain("application/json");
    expect(await response?.json()).toEqual(REPORT);
  });

  it("refuses other methods and leaves other paths to the next handler", async () => {
    expect((await handleHealthRoute(new Request(`${ORIGIN}/api/health`, { method: "POST" }), deps))?.status).toBe(405);
    for (const path of ["/api/health/", "/api/healthz", "/health", "/api/command-center"]) {
      expect(await handleHealthRoute(new Request(`${ORIGIN}${path}`), deps), path).toBeNull();
    }
  });

  it("is not one of the command center's routes", async () => {
    const unused = {
      snapshot: () => Promise.reject(new Error("unused")),
      threadDetail: () => Promise.reject(new Error("unused")),
      repositories: () => Promise.reject(new Error("unused")),
      operator: () => "unused",
      continueRun: () => Promise.reject(new Error("unused"))
    };
    expect(await handleApiRoute(new Request(`${ORIGIN}/api/health`), unused)).toBeNull();
  });

  it("is behind Access like the rest of the API", async () => {
    expect(ruleFor(["api", "health"], "GET")).toEqual({ access: "protected" });
    const refused: string[] = [];
    const result = await gate(new Request(`${ORIGIN}//api/health`), {
      localDev: false,
      access: { CF_ACCESS_TEAM_DOMAIN: "myteam", CF_ACCESS_AUD: "aud" },
      onRefused: (reason, path) => void refused.push(`${path}: ${reason}`)
    });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.response.status).toBe(403);
    expect(refused).toEqual(["/api/health: no Access token"]);
  });
});
