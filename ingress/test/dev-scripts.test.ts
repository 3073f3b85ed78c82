/** The command lines of `npm run dev:ingress` and `npm run send:delivery` (scripts/lib/ingress-dev.ts). */
import { describe, expect, it } from "vitest";
import { devVarsText, ingressBanner, ingressDevArgs, parseSendArgs } from "../../scripts/lib/ingress-dev";

describe("ingressDevArgs", () => {
  it("runs the ingress config locally on its own port and state, pointing GitHub at the stand-in", () => {
    const args = ingressDevArgs({ port: 9100, githubApiUrl: "http://127.0.0.1:9200", allowedRepos: "acme/widgets", persistTo: "/tmp/s", envFile: "/tmp/e" });
    // From ingress/, wrangler's types check reads the webhook app's worker-configuration.d.ts, not the agent's.
    expect(args.slice(0, 5)).toEqual(["dev", "--cwd", "ingress", "-c", "wrangler.jsonc"]);
    expect(args.join(" ")).toContain("--local --ip 127.0.0.1 --port 9100");
    expect(args.join(" ")).toContain("--persist-to /tmp/s");
    expect(args.join(" ")).toContain("--var GITHUB_API_URL:http://127.0.0.1:9200 --var ALLOWED_REPOS:acme/widgets");
    expect(args.join(" ")).toContain("--env-file /tmp/e");
  });

  it("accepts CI follow-ups on every allowed repository unless told (the stand-in's CI holds no secrets)", () => {
    const base = { port: 9100, githubApiUrl: "http://127.0.0.1:9200", allowedRepos: "acme/widgets", persistTo: "/tmp/s" };
    expect(ingressDevArgs(base).join(" ")).toContain("--var CI_FIX_REPOS:*");
    expect(ingressDevArgs({ ...base, ciFixRepos: "" }).join(" ")).toMatch(/--var CI_FIX_REPOS:( |$)/);
    expect(ingressDevArgs({ ...base, ciFixRepos: "acme/widgets" }).join(" ")).toContain("--var CI_FIX_REPOS:acme/widgets");
    expect(ingressBanner("http://127.0.0.1:8788", "http://127.0.0.1:8790", "acme/widgets")).toContain("CI follow-ups on: all of them");
    expect(ingressBanner("http://127.0.0.1:8788", "http://127.0.0.1:8790", "acme/widgets", "")).toContain("CI follow-ups on: (none)");
  });

  it("refuses a relative state or env file, which would resolve under ingress/", () => {
    const base = { port: 9100, githubApiUrl: "http://127.0.0.1:9200", allowedRepos: "acme/widgets" };
    expect(() => ingressDevArgs({ ...base, persistTo: ".wrangler/ingress-state" })).toThrow(/persistTo must be an absolute path/);
    expect(() => ingressDevArgs({ ...base, persistTo: "/tmp/s", envFile: "e.vars" })).toThrow(/envFile must be an absolute path/);
  });
});

describe("devVarsText", () => {
  it("keeps the PEM on one quoted line, newlines escaped", () => {
    const text = devVarsText({ webhookSecret: "s3cret", appId: "1", privateKeyPem: "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n" });
    expect(text).toContain('GITHUB_APP_PRIVATE_KEY="-----BEGIN RSA PRIVATE KEY-----\\nAAAA\\n-----END RSA PRIVATE KEY-----"\n');
    expect(text).toContain("GITHUB_WEBHOOK_SECRET=s3cret\nGITHUB_APP_ID=1\n");
  });
});

describe("parseSendArgs", () => {
  const parse = (...argv: string[]) => parseSendArgs(argv, () => 123);

  it("has defaults for a sample delivery", () => {
    expect(parse()).toEqual({
      ok: true,
      kind: "send",
      args: {
        repo: "acme/widgets",
        issueNumber: 7,
        body: "@agent-think reproduce this issue",
        commentId: 123,
        login: "octocat",
        association: "OWNER",
        url: "http://127.0.0.1:8788"
      }
    });
  });

  it("takes every flag", () => {
    const parsed = parse("--repo", "a/b", "--issue=3", "--body", "@agent-think hi", "--comment-id", "9", "--login", "me", "--association", "member", "--url", "http://x:1/");
    expect(parsed).toMatchObject({ ok: true, args: { repo: "a/b", issueNumber: 3, body: "@agent-think hi", commentId: 9, login: "me", association: "MEMBER", url: "http://x:1" } });
  });

  it("refuses bad values and unknown flags", () => {
    expect(parse("--repo", "nope")).toMatchObject({ ok: false, error: expect.stringContaining("--repo") });
    expect(parse("--issue", "0")).toMatchObject({ ok: false, error: expect.stringContaining("--issue") });
    expect(parse("--comment-id", "1.5")).toMatchObject({ ok: false, error: expect.stringContaining("--comment-id") });
    expect(parse("--url", "localhost")).toMatchObject({ ok: false, error: expect.stringContaining("--url") });
    expect(parse("--colour", "red")).toMatchObject({ ok: false, error: 'unknown argument "--colour"' });
    expect(parse("--body")).toMatchObject({ ok: false, error: "--body needs a value" });
    expect(parse("-h")).toEqual({ ok: true, kind: "help" });
  });
});
