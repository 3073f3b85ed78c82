/**
 * Reproduction pages: a built static site in the workspace (the
 * reproduce skill's Vite + React page, `npm run build` → `dist/`) copied
 * into the REPROS bucket under `repros/<session>/` and served by this
 * Worker at `${PUBLIC_BASE_URL}/repro/<session>/`. Nothing in the container
 * needs deploy credentials, and one issue always has one URL.
 *
 * Publishing replaces the session's page: files not in the new build are
 * deleted. Bounded in files and bytes. Pure over narrow interfaces: the
 * workspace's `fs` and an R2 bucket.
 */
import { z } from "zod";
import { contentTypeFor, REPRO_PREFIX } from "../shared/buckets";

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

export type PublishResult =
  | { published: true; url: string; files: number; bytes: number; removed: number }
  | { published: false; error: string };

export class PublishError extends Error {
  override readonly name = "PublishError";
}

export const reproUrl = (publicBaseUrl: string, session: string) =>
  `${publicBaseUrl.replace(/\/+$/, "")}/repro/${encodeURIComponent(session)}/`;

export async function publishReproduction(
  input: PublishInput,
  deps: { fs: ReproFs; bucket: ReproBucket; session: string; publicBaseUrl: string }
): Promise<PublishResult> {
  try {
    const root = input.directory.replace(/\/+$/, "");
    const found = await deps.fs.find(root).catch(() => {
      throw new PublishError(`${root} does not exist: build the page first`);
    });
    const entries = found.filter((entry) => entry.type === "file");
    const files = entries.map((entry) => ({ path: entry.path, key: relativeKey(root, entry.path) }));
    if (!files.some((file) => file.key === "index.html")) throw new PublishError(`${root} has no index.html: build the page first`);
    if (files.length > MAX_REPRO_FILES) throw new PublishError(`${files.length} files: a reproduction page may have at most ${MAX_REPRO_FILES}`);

    const prefix = `${REPRO_PREFIX}${deps.session}/`;
    let bytes = 0;
    const bodies: Array<{ key: string; body: Uint8Array }> = [];
    for (const file of files) {
      const body = new Uint8Array(await new Response(await deps.fs.readFile(file.path)).arrayBuffer());
      bytes += body.byteLength;
      if (bytes > MAX_REPRO_BYTES) throw new PublishError(`the page is over ${MAX_REPRO_BYTES / 1024 / 1024} MiB: publish only the built site`);
      bodies.push({ key: file.key, body });
    }
    for (const { key, body } of bodies) {
      await deps.bucket.put(prefix + key, body, { httpMetadata: { contentType: contentTypeFor(key) } });
    }
    const keep = new Set(bodies.map((file) => prefix + file.key));
    const stale = (await listAll(deps.bucket, prefix)).filter((key) => !keep.has(key));
    if (stale.length > 0) await deps.bucket.delete(stale);
    return { published: true, url: reproUrl(deps.publicBaseUrl, deps.session), files: bodies.length, bytes, removed: stale.length };
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
