/**
 * `report_result`: the skills' structured result, recorded for the running
 * submission. The agent Worker posts it on the issue as the run's one closing
 * comment when the run ends (docs/reporting.md), so the model never posts
 * its own. `record` answers false when no run is in progress.
 */
import { tool } from "ai";
import { runResultSchema, type RunResult } from "../run/ending";

export function createReportResultTool(deps: { record(result: RunResult): Promise<boolean> }) {
  return tool({
    description:
      "Record the run's structured result. Call it exactly once, as the last step of a skill. agent-think posts it on the issue as the App's one result comment when the run ends; never post that comment yourself.",
    inputSchema: runResultSchema,
    execute: async (result) =>
      (await deps.record(result))
        ? { recorded: true, note: "It will be posted on the issue when the run ends. Finish now." }
        : { recorded: false, error: "no run is in progress" }
  });
}
