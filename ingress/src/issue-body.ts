/**
 * The issue's body as the mention saw it, for the agent: the dispatch's
 * `issueBodySha256` is the digest both Workers take of a body
 * (src/shared/body-digest.ts) of the body exactly as the signed payload
 * had it (`issue.body`, or `pull_request.body` for a review or review
 * comment: a pull request is an issue with the same number). The agent
 * Worker compares it with the body it reads before the model starts and
 * flags a body edited after the mention. Pure.
 */
import { bodySha256 } from "../../src/shared/body-digest";

/** The body's digest, or undefined when the payload did not say (then nothing is sent). */
export async function issueBodySha256(body: string | null | undefined): Promise<string | undefined> {
  return body === undefined ? undefined : bodySha256(body);
}
