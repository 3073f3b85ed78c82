/**
 * Reproduction pages: a built static site in the issue's workspace (the
 * reproduce skill's page, `dist/`) copied into the REPROS bucket at a new
 * address of 128 random bits, `/repro/<id>/` or, behind Access,
 * `/repro/private/<id>/`, served by src/http/repro-routes.ts. Replaces the
 * issue's earlier page (and the old `repros/<session>/` layout); every
 * object records the issue it is for (publication-issue.ts). A build that
 * holds a token is refused before anything is written; bounded in files and
 * bytes. Pure over the workspace's `fs` and an R2 bucket.
 */
import { z } from "zod";
import { holdsSecret } from "../run/redact";
import { contentTypeFor, REPRO_PREFIX } from "../shared/buckets";
import { issueMetadata, type ReproIssue } from "./publication-issue";

export const MAX_REPRO_FILES = 200;
export const MAX_REPRO_BYTES = 10 * 1024 * 1024;

export const publishInputSchema = z.object({
  directory: z
    .string()
    .regex(/^\/workspace\/[^\0]*$/, "must be a directory under /workspace")
    .refine((path) => !path.split("/").includes(".."), "must not contain ..")
    .describe("The built site, e.g. /workspace/repro/dist (it must hold index.html).")
});
export type PublishInput = z.infer<typeof publishInputSchema>;

export type ReproFs = {
  find(directory: string): Promise<ReadonlyArray<{ path: string; type: string }>>;
  readFile(path: string): Promise<ReadableStream<Uint8Array>>;
};

export type ReproBucket = Pick<R2Bucket, "put" | "list" | "delete">;

/** Who may open a page: anyone with its address, or only someone Access lets in. */
export type ReproVisibility = "public" | "private";

/** One published page: where it lives. */
export type Publication = { id: string; visibility: ReproVisibility };

/** A publication's id: 32 lowercase hex digits, 128 random bits. */
export const PUBLICATION_ID = /^[0-9a-f]{32}$/;
/** The URL segment under /repro/ (and the key segment under repros/) of pages behind Access. */
export const PRIVATE_SEGMENT = "private";

export type PublishResult =
  | { published: true; url: string; files: number; bytes: number; removed: number; publication: Publication }
  | { published: false; error: string };

export type PublishDeps = {
  fs: ReproFs;
  bucket: ReproBucket;
  publicBaseUrl: string;
  /** The issue's session: the old layout kept its page under `repros/<session>/`. */
  session: string;
  visibility: ReproVisibility;
  /** The issue the page is for, recorded with it for the header it is shown under. */
  issue?: ReproIssue;
  /** The issue's current page, replaced by this one. */
  previous?: Publication;
  /** The run's token: a page holding it (or anything shaped like a GitHub token) is refused. */
  secrets: readonly string[];
  createId?: () => string;
};

export class PublishError extends Error {
  override readonly name = "PublishError";
}

export function newPublicationId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Where a publication's files are kept in the bucket. */
export function publicationPrefix(publication: Publication): string {
  return publication.visibility === "public"
    ? `${REPRO_PREFIX}${publication.id}/`
    : `${REPRO_PREFIX}${PRIVATE_SEGMENT}/${publication.id}/`;
}

export function reproUrl(publicBaseUrl: string, publication: Publication): string {
  const base = publicBaseUrl.replace(/\/+$/, "");
  return publication.visibility === "public"
    ? `${base}/repro/${publication.id}/`
    : `${base}/repro/${PRIVATE_SEGMENT}/${publication.id}/`;
}

export async function publishReproduction(input: PublishInput, deps: PublishDeps): Promise<PublishResult> {
  try {
    const root = input.directory.replace(/\/+$/, "");
    const found = await deps.fs.find(root).catch(() => {
      throw new PublishError(`${root} does not exist: build the page first`);
    });
    const entries = found.filter((entry) => entry.type === "file");
    const files = entries.map((entry) => ({ path: entry.path, key: relativeKey(root, entry.path) }));
    if (!files.some((file) => file.key === "index.html")) throw new PublishError(`${root} has no index.html: build the page first`);
    if (files.length > MAX_REPRO_FILES) throw new PublishError(`${files.length} files: a reproduction page may have at most ${MAX_REPRO_FILES}`);

    let bytes = 0;
    const bodies: Array<{ key: string; body: Uint8Array }> = [];
    const text = new TextDecoder();
    for (const file of files) {
      const body = new Uint8Array(await new Response(await deps.fs.readFile(file.path)).arrayBuffer());
      bytes += body.byteLength;
      if (bytes > MAX_REPRO_BYTES) throw new PublishError(`the page is over ${MAX_REPRO_BYTES / 1024 / 1024} MiB: publish only the built site`);
      // Tokens are ASCII, which survives decoding whatever the file's other bytes are.
      if (holdsSecret(text.decode(body), deps.secrets)) {
        throw new PublishError(
          `refused: ${file.key} holds a GitHub token (this run's, or a string shaped like one). Nothing was published. ` +
            "Remove it from the source and the build (never print or embed a token in a page), rebuild, and publish again."
        );
      }
      bodies.push({ key: file.key, body });
    }

    const publication: Publication = { id: (deps.createId ?? newPublicationId)(), visibility: deps.visibility };
    const prefix = publicationPrefix(publication);
    const customMetadata = issueMetadata(deps.issue);
    for (const { key, body } of bodies) {
      await deps.bucket.put(prefix + key, body, { httpMetadata: { contentType: contentTypeFor(key) }, customMetadata });
    }
    const replaced = [...(deps.previous ? [publicationPrefix(deps.previous)] : []), `${REPRO_PREFIX}${deps.session}/`];
    let removed = 0;
    for (const old of replaced.filter((candidate) => candidate !== prefix)) {
      const stale = await listAll(deps.bucket, old);
      if (stale.length > 0) await deps.bucket.delete(stale);
      removed += stale.length;
    }
    return { published: true, url: reproUrl(deps.publicBaseUrl, publication), files: bodies.length, bytes, removed, publication };
  } catch (error) {
    if (error instanceof PublishError) return { published: false, error: error.message };
    return { published: false, error: `publishing failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function relativeKey(root: string, path: string): string {
  if (!path.startsWith(`${root}/`)) throw new PublishError(`${path} is outside ${root}`);
  const key = path.slice(root.length + 1);
  if (key.split("/").some((part) => part === "" || part === "." || part === "..")) throw new PublishError(`bad path ${path}`);
  return key;
}

async function listAll(bucket: ReproBucket, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix, ...(cursor ? { cursor } : {}) });
    keys.push(...page.objects.map((object) => object.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return keys;
}
