/**
 * The CI follow-ups' deliveries (`ciPayload` in scripts/lib/github-delivery.ts,
 * built over GitHub's published `check_suite.completed` and
 * `workflow_run.completed` examples, which the ingress tests, the stand-in and
 * the e2e test send) against GitHub's own webhook schema
 * (@octokit/openapi-webhooks), and against the webhook app's own reader. A
 * broken one is refused, so the validator is not vacuous.
 */
import { createRequire } from "node:module";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { ciPayload, type CiDeliveryOptions } from "../../scripts/lib/github-delivery";
import { pickPull, readCiEvent } from "../../ingress/src/ci-trigger";

const openapi = createRequire(import.meta.url)("@octokit/openapi-webhooks/generated/api.github.com.json") as { components: object };
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ $id: "webhooks", components: openapi.components });
const validator = (schema: string) => ajv.getSchema(`webhooks#/components/schemas/${schema}`) ?? ajv.compile({ $ref: `webhooks#/components/schemas/${schema}` });
const SCHEMAS = { check_suite: "webhook-check-suite-completed", workflow_run: "webhook-workflow-run-completed" } as const;

const base = { repo: "acme/widgets", repositoryId: 4242, pullNumber: 13, headRef: "agent-think/issue-12", headSha: "d".repeat(40), installationId: 77 };

describe.each(["check_suite", "workflow_run"] as const)("a %s.completed delivery", (event) => {
  const build = (options: Partial<CiDeliveryOptions> = {}) => ciPayload({ ...base, event, ...options });

  it.each([
    ["a failure on the App's branch", {}],
    ["a timeout", { conclusion: "timed_out" }],
    ["a success", { conclusion: "success" }],
    ["a fork's", { fork: { repo: "mallory/widgets", id: 666 } }],
    ["another branch", { headRef: "feature" }]
  ])("%s is one GitHub could send", (_name, options) => {
    const validate = validator(SCHEMAS[event]);
    expect(validate(build(options as Partial<CiDeliveryOptions>)), JSON.stringify(validate.errors)).toBe(true);
  });

  it("reads as the webhook app reads it: the repository, the head, the one pull request on the App's branch", () => {
    const read = readCiEvent(event, build());
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.ci).toMatchObject({ event, conclusion: "failure", headSha: base.headSha, headBranch: base.headRef, sameRepository: true, installationId: 77 });
    expect(read.ci.repository.fullName).toBe("acme/widgets");
    expect(pickPull(read.ci)).toEqual({ ok: true, pull: { number: 13, headRef: base.headRef, headSha: base.headSha, baseRef: "main" } });
    const fork = readCiEvent(event, build({ fork: { repo: "mallory/widgets", id: 666 } }));
    expect(fork.ok && fork.ci.sameRepository).toBe(false);
  });

  it("refuses a broken one: a string id, no repository", () => {
    const validate = validator(SCHEMAS[event]);
    const good = build() as Record<string, unknown>;
    const key = event;
    expect(validate({ ...good, [key]: { ...(good[key] as object), id: "1" } })).toBe(false);
    expect(validate((({ repository: _r, ...rest }) => rest)(good))).toBe(false);
    expect(readCiEvent(event, (({ repository: _r, ...rest }) => rest)(good))).toMatchObject({ ok: false, field: "repository" });
  });
});
