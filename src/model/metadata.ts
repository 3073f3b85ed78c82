/**
 * The `cf-aig-metadata` of a model request: the session, repository, issue
 * and submission it serves, so AI Gateway's logs attribute each request, and
 * its cost, to a run. `metadataHeader` refuses what the gateway would drop
 * quietly (more than five entries, values that are not flat); the limits:
 * docs/model-setup.md. Nothing here is a secret. Pure.
 */
export type MetadataValue = string | number | boolean;

/** What one request is for; the run and submission are absent outside a run (e.g. before the first dispatch). */
export type GatewayMetadata = { session: string; repo?: string; issue?: number; submission?: string };

/** Reads the metadata for each request: a model object outlives the turn it was made in. */
export type MetadataSource = () => GatewayMetadata | undefined | Promise<GatewayMetadata | undefined>;

export const MAX_METADATA_ENTRIES = 5;

/** The metadata of a request in `session`, for its run (repo, issue) and the submission whose turn is running. */
export function runMetadata(
  session: string,
  run: { repo: string; issueNumber: number } | null | undefined,
  turn: { submissionId: string } | null | undefined
): GatewayMetadata {
  return {
    session,
    ...(run ? { repo: run.repo, issue: run.issueNumber } : {}),
    ...(turn ? { submission: turn.submissionId } : {})
  };
}

/** The header's value: a flat JSON object of the defined entries. */
export function metadataHeader(metadata: Record<string, MetadataValue | undefined>): string {
  const entries = Object.entries(metadata).filter((entry): entry is [string, MetadataValue] => entry[1] !== undefined);
  if (entries.length > MAX_METADATA_ENTRIES) {
    throw new RangeError(`cf-aig-metadata takes at most ${MAX_METADATA_ENTRIES} entries, not ${entries.length}`);
  }
  for (const [key, value] of entries) {
    if (!["string", "number", "boolean"].includes(typeof value)) {
      throw new TypeError(`cf-aig-metadata values are strings, numbers or booleans; ${key} is ${typeof value}`);
    }
  }
  return JSON.stringify(Object.fromEntries(entries));
}
