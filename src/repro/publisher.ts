/**
 * One issue's reproduction page over time: publishes a new one (publish.ts) in place of the
 * page it published before, kept in the ThinkAgent's storage, whose files are then deleted and
 * whose address stops working. A repository is public only when the webhook said so; otherwise
 * its page is served behind Access, and a reporter-tier run publishes none (why:
 * docs/security.md, Reproduction pages). Pure over narrow interfaces; the ThinkAgent wires
 * storage, the bucket and the workspace.
 */
import type { RepoVisibility, RunTier } from "../shared/dispatch";
import type { ReproIssue } from "./publication-issue";
import { publishReproduction, type Publication, type PublishDeps, type PublishInput, type PublishResult, type ReproVisibility } from "./publish";

export interface PublisherStorage {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
}

const CURRENT_KEY = "agent-think:reproduction";

export type PublisherDeps = Pick<PublishDeps, "bucket" | "publicBaseUrl" | "createId"> & {
  storage: PublisherStorage;
  fs(): PublishDeps["fs"];
  session(): string;
};

/** What the publishing turn's run says about the page: whose issue, who may see it, who asked, and the token it must not hold. */
export type PublishingRun = {
  /** The issue the page is for, named in the header it is shown under. */
  issue?: ReproIssue;
  repoVisibility?: RepoVisibility;
  /** The turn's own tier (its submission's), not the latest dispatch's. */
  tier?: RunTier;
  secrets: readonly string[];
};

export const REPORTER_PRIVATE_REFUSAL =
  "refused: this run was asked for by the issue's author (the reporter tier), and the repository is not known to be public, " +
  "so it publishes no reproduction page. Nothing was published; do not try again. Report with report_result and no reproductionUrl, " +
  "and put there what the page would have shown: the commands that reproduce it in steps, the expected against the actual result " +
  "and why the expected one is right in evidence, and the check that shows it in check.";

export class ReproPublisher {
  readonly #deps: PublisherDeps;
  constructor(deps: PublisherDeps) {
    this.#deps = deps;
  }

  async publish(input: PublishInput, run: PublishingRun): Promise<PublishResult> {
    const visibility = reproVisibility(run.repoVisibility);
    if (run.tier === "reporter" && visibility !== "public") return { published: false, error: REPORTER_PRIVATE_REFUSAL };
    const previous = await this.#deps.storage.get<Publication>(CURRENT_KEY);
    const result = await publishReproduction(input, {
      fs: this.#deps.fs(),
      bucket: this.#deps.bucket,
      publicBaseUrl: this.#deps.publicBaseUrl,
      session: this.#deps.session(),
      visibility,
      secrets: run.secrets,
      ...(run.issue ? { issue: run.issue } : {}),
      ...(previous ? { previous } : {}),
      ...(this.#deps.createId ? { createId: this.#deps.createId } : {})
    });
    if (result.published) await this.#deps.storage.put(CURRENT_KEY, result.publication);
    return result;
  }
}

/** Public only when GitHub said the repository is; unknown, private and internal are served behind Access. */
export function reproVisibility(visibility: RepoVisibility | undefined): ReproVisibility {
  return visibility === "public" ? "public" : "private";
}
