/**
 * Every delivery the webhook app's tests build (ingress/test/support/
 * payloads.ts over GitHub's published example) against GitHub's own webhook
 * schema (@octokit/openapi-webhooks), in plain Node: workerd refuses the
 * validator's generated code. A payload a test sends deliberately broken
 * must be refused, which also shows the validator is not vacuous.
 */
import { createRequire } from "node:module";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { issueCommentExample, issueCommentPayload } from "../../scripts/lib/github-delivery";
import { PAYLOAD_VARIANTS, testPayloads } from "../../ingress/test/support/payloads";

const openapi = createRequire(import.meta.url)("@octokit/openapi-webhooks/generated/api.github.com.json") as { components: object };
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ $id: "webhooks", components: openapi.components });
const validator = (schema: string) => ajv.getSchema(`webhooks#/components/schemas/${schema}`) ?? ajv.compile({ $ref: `webhooks#/components/schemas/${schema}` });

const payloads = testPayloads(issueCommentExample());

describe("the ingress tests' payloads against GitHub's webhook schema", () => {
  it.each(PAYLOAD_VARIANTS)("$name", ({ options, build, schema, valid }) => {
    const payload = build ? payloads[build]() : payloads.commentPayload(options);
    const validate = validator(schema ?? "webhook-issue-comment-created");
    const ok = validate(payload);
    if (valid) expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(valid);
  });

  it("the scripts' default delivery (send:delivery, bench, e2e) is one GitHub could send", () => {
    const validate = validator("webhook-issue-comment-created");
    const payload = issueCommentPayload({ repo: "acme/widgets", issueNumber: 7, commentId: 123, body: "@agent-think reproduce this issue", login: "alice", association: "MEMBER" });
    expect(validate(payload), JSON.stringify(validate.errors)).toBe(true);
  });

  it("an Enterprise Server's delivery (the e2e Enterprise chain) is one that server could send: its own URLs, none of github.com", () => {
    const ghes = createRequire(import.meta.url)("@octokit/openapi-webhooks/generated/ghes-3.19.json") as { components: object };
    const ghesAjv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ghesAjv);
    ghesAjv.addSchema({ $id: "ghes", components: ghes.components });
    const validate = ghesAjv.compile({ $ref: "ghes#/components/schemas/webhook-issue-comment-created" });
    const github = { web: "https://ghe.example.com", api: "https://ghe.example.com/api/v3" };
    const payload = issueCommentPayload({ repo: "acme/widgets", issueNumber: 7, commentId: 123, body: "@agent-think reproduce this issue", github });
    expect(validate(payload), JSON.stringify(validate.errors)).toBe(true);
    const text = JSON.stringify(payload);
    expect(text).not.toMatch(/https:\/\/(api\.)?github\.com/);
    expect(payload.issue.html_url).toBe("https://ghe.example.com/acme/widgets/issues/7");
    expect(payload.issue.url).toBe("https://ghe.example.com/api/v3/repos/acme/widgets/issues/7");
  });

  it("refuses a broken payload: a string comment id, an unknown association, no sender", () => {
    const validate = validator("webhook-issue-comment-created");
    const good = payloads.commentPayload();
    for (const broken of [
      { ...good, comment: { ...good.comment, id: "123" } },
      { ...good, comment: { ...good.comment, author_association: "MAINTAINER" } },
      (({ sender: _sender, ...rest }) => rest)(good)
    ]) {
      expect(validate(broken)).toBe(false);
    }
  });
});
