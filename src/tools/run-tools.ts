/**
 * The tools a run's model has beside Think's own file tools and skills:
 * `bash` (the workspace's two shells), `publish_reproduction`,
 * `open_pull_request`, `update_plan` and `report_result`. Each is a thin description over
 * one call of the run's; what the calls do (the write policy, the outbox,
 * the publisher) lives in their own modules. ThinkAgent passes the calls.
 */
import type { ToolSet } from "ai";
import type { RunResult } from "../run/ending";
import type { OpenPullRequestInput, OpenPullRequestResult } from "../run/pull-request-input";
import { createBashTool } from "./bash-tool";
import type { BashInput, BashResult } from "../run/bash-command";
import { createFetchAttachmentTool } from "./fetch-attachment-tool";
import { createOpenPullRequestTool } from "./open-pull-request-tool";
import { createPlanTool } from "./plan-tool";
import type { PlanStep } from "../report/progress";
import { createPublishReproductionTool } from "./publish-reproduction-tool";
import { createReportResultTool } from "./report-result-tool";

export type RunToolCalls = {
  containerAvailable: boolean;
  bash(input: BashInput): Promise<BashResult>;
  publish: Parameters<typeof createPublishReproductionTool>[0]["publish"];
  openPullRequest(input: OpenPullRequestInput): Promise<OpenPullRequestResult>;
  fetchAttachment: Parameters<typeof createFetchAttachmentTool>[0]["fetch"];
  /** Record the plan for the running submission (the progress comment shows it). */
  recordPlan(steps: PlanStep[]): Promise<void>;
  /** Record the result for the running submission; false when none runs. */
  recordResult(result: RunResult): Promise<boolean>;
};

export function createRunTools(calls: RunToolCalls): ToolSet {
  return {
    bash: createBashTool({ containerAvailable: calls.containerAvailable, run: (input) => calls.bash(input) }),
    publish_reproduction: createPublishReproductionTool({ publish: (input) => calls.publish(input) }),
    open_pull_request: createOpenPullRequestTool({ open: (input) => calls.openPullRequest(input) }),
    fetch_attachment: createFetchAttachmentTool({ fetch: (input) => calls.fetchAttachment(input) }),
    update_plan: createPlanTool({ record: (steps) => calls.recordPlan(steps) }),
    report_result: createReportResultTool({ record: (result) => calls.recordResult(result) })
  };
}
