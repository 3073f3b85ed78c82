/**
 * `publish_reproduction`: a built reproduction page from the workspace,
 * served by the agent Worker at the reproduction URL
 * (src/repro/publish.ts). Its answer, success or not, is data for the model.
 */
import { tool } from "ai";
import { publishInputSchema, type PublishInput, type PublishResult } from "../repro/publish";

export function createPublishReproductionTool(deps: { publish(input: PublishInput): Promise<PublishResult> }) {
  return tool({
    description:
      "Publish a built reproduction page (a directory under /workspace holding index.html, such as /workspace/repro/dist) at this issue's public reproduction URL, replacing any earlier page. Returns the URL to put in report_result's reproductionUrl.",
    inputSchema: publishInputSchema,
    execute: (input) => deps.publish(input)
  });
}
