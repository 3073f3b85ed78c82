/**
 * `fetch_attachment`'s call: one of the issue's attachments, fetched by the
 * Worker into /workspace/attachments for the model's tools. Only a URL this
 * run's workspace block listed as fetchable (what prepare.ts kept) is
 * accepted; any other is refused without a request. The fetch is
 * github/attachment-fetch.ts's, so the sandbox's own network is not widened.
 * Failures are results for the model, never exceptions (docs/skills.md,
 * "Images and attachments"). run-parts.ts wires it.
 */
import { formatBytes, type AttachmentReader } from "../github/attachment-fetch";
import { attachmentFileName, sniffImage, type FetchAttachmentResult } from "../run/attachment-links";
import { MAX_ATTACHMENT_BYTES, shownUrl } from "./issue-attachments";
import type { Prepared } from "./prepare";

export const ATTACHMENTS_DIR = "/workspace/attachments";

export type RunAttachmentsDeps = {
  turn: () => Promise<{ submissionId: string } | null>;
  /** What was kept of the submission's preparation (prepare.ts `keptPreparation`). */
  prepared: (submissionId: string) => Prepared | null;
  /** The run's attachment reader (attachment-fetch.ts `createAttachmentReader`: the run's read-only token, never its write token); null: no GitHub. */
  reader: () => Promise<Pick<AttachmentReader, "fetchAttachment"> | null>;
  fs: () => { mkdir(path: string, options?: { recursive?: boolean }): Promise<void>; writeFile(path: string, content: Uint8Array): Promise<void> };
};

export class RunAttachments {
  readonly #deps: RunAttachmentsDeps;
  constructor(deps: RunAttachmentsDeps) {
    this.#deps = deps;
  }

  async fetch({ url }: { url: string }): Promise<FetchAttachmentResult> {
    const turn = await this.#deps.turn();
    const prepared = turn ? this.#deps.prepared(turn.submissionId) : null;
    if (!prepared) return { ok: false, error: "no run is prepared: there are no attachments to fetch" };
    const kept = prepared.attachments ?? [];
    const at = kept.findIndex((attachment) => attachment.url === url || shownUrl(attachment.url) === url);
    if (at < 0) {
      const listed = prepared.facts.attachments?.find((fact) => fact.url === url);
      return {
        ok: false,
        error: listed
          ? `refused: ${listed.note ?? "this link is not one the Worker fetches"}`
          : "refused: fetch_attachment fetches only a URL listed in this run's <agent-think-workspace> block (`attachments`), as written there"
      };
    }
    const attachment = kept[at]!;
    const reader = await this.#deps.reader();
    if (!reader) return { ok: false, error: "this deployment reads no GitHub: nothing can be fetched" };
    const fetched = await reader.fetchAttachment(attachment.fetchFrom ?? attachment.url, MAX_ATTACHMENT_BYTES);
    if (!fetched.ok) return { ok: false, error: `not fetched: ${fetched.message}` };
    const path = `${ATTACHMENTS_DIR}/${at + 1}-${attachmentFileName(attachment.url, attachment.kind === "file" ? undefined : "image")}`;
    try {
      const fs = this.#deps.fs();
      await fs.mkdir(ATTACHMENTS_DIR, { recursive: true });
      await fs.writeFile(path, fetched.bytes);
    } catch (error) {
      return { ok: false, error: `fetched ${formatBytes(fetched.bytes.byteLength)}, but it could not be written to ${path}: ${error instanceof Error ? error.message : String(error)}` };
    }
    const mediaType = sniffImage(fetched.bytes) ?? fetched.contentType?.split(";")[0]?.trim();
    return { ok: true, path, bytes: fetched.bytes.byteLength, ...(mediaType ? { mediaType } : {}) };
  }
}
