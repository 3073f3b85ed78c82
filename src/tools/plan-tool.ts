/**
 * `update_plan`: the model's short plan for the run, each step pending, in
 * progress or done. Think has no todo tool; this one only records the plan
 * for the running submission, which the live progress comment shows
 * as a checklist (src/report/run-progress.ts). It posts nothing itself and
 * answers `{ recorded: true }`. Bounded: at most MAX_PLAN_STEPS steps of
 * MAX_PLAN_STEP_CHARS characters; a longer one is refused naming the field,
 * as data for the model.
 */
import { tool } from "ai";
import { MAX_PLAN_STEP_CHARS, MAX_PLAN_STEPS, planSchema, type PlanStep } from "../report/progress";

export function createPlanTool(deps: { record(steps: PlanStep[]): Promise<void> }) {
  return tool({
    description:
      `Keep a short plan of this run (at most ${MAX_PLAN_STEPS} steps of ${MAX_PLAN_STEP_CHARS} characters), each step pending, in_progress or done. ` +
      "Call it with the whole plan when you make it and again as each step starts or is done; the issue shows it as a checklist.",
    inputSchema: planSchema,
    execute: async ({ steps }) => {
      await deps.record(steps);
      return { recorded: true };
    }
  });
}
