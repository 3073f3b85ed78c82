/**
 * Opens the skills bucket (the `SKILLS_BUCKET` binding of wrangler.jsonc) for
 * the seed script, locally or on Cloudflare, through wrangler's
 * `getPlatformProxy`, so both go through the same R2 binding API.
 *
 * The proxy is built from a one-binding config derived from wrangler.jsonc
 * (same bucket name, jurisdiction and account), not from wrangler.jsonc
 * itself: the full config would also start the agent's Durable Object
 * namespaces, service binding and assets in a throwaway Miniflare, warn about
 * each, and create Durable Object state in the dev server's directory.
 *
 * - local: Miniflare keeps R2 under `<persistTo>/v3/r2/<bucket name>`, the
 *   directory `wrangler dev --local --persist-to <persistTo>` reads (by
 *   default `.wrangler/state` beside wrangler.jsonc).
 * - remote: the binding is marked `remote: true`, so wrangler proxies it to
 *   the real bucket; that needs `wrangler login` or CLOUDFLARE_API_TOKEN and
 *   cannot run offline.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { getPlatformProxy, unstable_readConfig } from "wrangler";

export const SKILLS_BINDING = "SKILLS_BUCKET";

/** The R2 methods the seed uses. The platform proxy's binding fits, and so does an in-memory fake. */
export interface SeedBucket {
  list(options: { prefix: string; cursor?: string }): Promise<{ objects: { key: string }[]; truncated: boolean; cursor?: string }>;
  put(key: string, value: Uint8Array, options: { httpMetadata: { contentType: string } }): Promise<unknown>;
  delete(keys: string[]): Promise<void>;
}

export type BucketTarget = { local: true; persistTo: string } | { local: false };

export type OpenBucket = { bucket: SeedBucket; bucketName: string; dispose(): Promise<void> };

/** `wrangler dev`'s own default: `.wrangler/state` beside the config file. */
export function defaultPersistTo(configPath: string): string {
  return join(dirname(resolve(configPath)), ".wrangler", "state");
}

/** The parts of wrangler's parsed config read here (its own type does not resolve outside wrangler). */
type WranglerConfig = {
  compatibility_date?: string;
  account_id?: string;
  r2_buckets: Array<{ binding: string; bucket_name?: string; jurisdiction?: string }>;
};

export async function openSkillsBucket(configPath: string, target: BucketTarget): Promise<OpenBucket> {
  const config: WranglerConfig = unstable_readConfig({ config: configPath }, { hideWarnings: true });
  const binding = config.r2_buckets.find((bucket) => bucket.binding === SKILLS_BINDING);
  if (binding?.bucket_name === undefined) {
    throw new Error(`${configPath} has no r2_buckets entry with binding "${SKILLS_BINDING}" and a bucket_name`);
  }
  const directory = await mkdtemp(join(tmpdir(), "agent-think-seed-"));
  const seedConfig = {
    name: "agent-think-skills-seed",
    compatibility_date: config.compatibility_date,
    ...(config.account_id === undefined ? {} : { account_id: config.account_id }),
    r2_buckets: [
      {
        binding: SKILLS_BINDING,
        bucket_name: binding.bucket_name,
        ...(binding.jurisdiction === undefined ? {} : { jurisdiction: binding.jurisdiction }),
        remote: !target.local
      }
    ]
  };
  const seedConfigPath = join(directory, "wrangler.json");
  await writeFile(seedConfigPath, JSON.stringify(seedConfig, null, 2));
  try {
    const proxy = await getPlatformProxy<{ [SKILLS_BINDING]: SeedBucket }>({
      configPath: seedConfigPath,
      envFiles: [],
      // getPlatformProxy wants the v3 directory itself; wrangler dev appends v3 to --persist-to.
      persist: target.local ? { path: join(resolve(target.persistTo), "v3") } : false,
      remoteBindings: !target.local
    });
    return {
      bucket: proxy.env[SKILLS_BINDING],
      bucketName: binding.bucket_name,
      dispose: async () => {
        await proxy.dispose();
        await rm(directory, { recursive: true, force: true });
      }
    };
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
}
