/**
 * `publish_reproduction`: a built reproduction page from the workspace,
 * served by the agent Worker at the reproduction URL
 * (src/repro/publish.ts) in a sandboxed frame under a header that names the
 * run. Its answer, success or not, is data for the model: the address, or
 * what to do instead (a page holding a token is refused; a reporter-tier run
 * on a repository not known to be public publishes none).
 */
import { tool } from "ai";
import { publishInputSchema, type PublishInput, type PublishResult } from "../repro/publish";

export function createPublishReproductionTool(deps: { publish(input: PublishInput): Promise<PublishResult> }) {
  return tool({
    description:
      "Publish a built reproduction page (a directory under /workspace holding index.html, such as /workspace/repro/dist) at a new reproduction URL for this issue, replacing any earlier page (its URL stops working). Returns the URL to put in report_result's reproductionUrl. The page is shown in a sandboxed frame under a header saying an agent-think run wrote it: its scripts run and its buttons work, but it cannot submit forms (no submit event either: use click handlers), open windows or dialogs (alert, confirm), leave its frame (a link out does nothing), or fetch anything. A page that contains a GitHub token is refused.",
    inputSchema: publishInputSchema,
    execute: async (input) => {
      const result = await deps.publish(input);
      if (!result.published) return result;
      // Where the page is kept is agent-think's business; the model needs its address.
      const { publication: _publication, ...shown } = result;
      return shown;
    }
  });
}
