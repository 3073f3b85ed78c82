/**
 * `fetch_attachment`: one of the attachments (a log, a zip, an
 * image) the run's `<agent-think-workspace>` block lists, fetched by the
 * Worker into /workspace/attachments (src/steps/run-attachments.ts). The
 * sandbox's own network is not widened for it: the Worker fetches, from
 * GitHub's hosts only. The tool only describes and forwards; a refusal or
 * a failed fetch comes back as data.
 */
import { tool } from "ai";
import { z } from "zod";
import type { FetchAttachmentResult } from "../run/attachment-links";

export const fetchAttachmentInputSchema = z.object({
  url: z.string().min(1).max(2_000).describe("The attachment's `url`, exactly as the block's `attachments` lists it.")
});

export function createFetchAttachmentTool(deps: { fetch(input: { url: string }): Promise<FetchAttachmentResult> }) {
  return tool({
    description: [
      "Fetch one attachment of the issue listed in the <agent-think-workspace> block's `attachments` (a log, a zip, an image not shown) into /workspace/attachments, then read it with your file tools or bash.",
      "Only URLs the block lists on GitHub's hosts are fetched; anything else is refused. The result names the file's path, size and media type."
    ].join(" "),
    inputSchema: fetchAttachmentInputSchema,
    execute: (input) => deps.fetch(input)
  });
}
