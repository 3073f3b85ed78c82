/**
 * One issue's reproduction page over time: publishes a new one
 * (publish.ts) in place of the page it published before, which it keeps
 * in the ThinkAgent's storage, so the previous page's files are deleted and
 * its address stops working. A repository is treated as public only when
 * the webhook said so; otherwise its page is served behind Access. Pure over
 * narrow interfaces; the ThinkAgent wires storage, the bucket and the
 * workspace.
 */
import type { RepoVisibility } from "../shared/dispatch";
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

export class ReproPublisher {
  readonly #deps: PublisherDeps;
  constructor(deps: PublisherDeps) {
    this.#deps = deps;
  }

  async publish(input: PublishInput, run: { repoVisibility?: RepoVisibility; secrets: readonly string[] }): Promise<PublishResult> {
    const previous = await this.#deps.storage.get<Publication>(CURRENT_KEY);
    const result = await publishReproduction(input, {
      fs: this.#deps.fs(),
      bucket: this.#deps.bucket,
      publicBaseUrl: this.#deps.publicBaseUrl,
      session: this.#deps.session(),
      visibility: reproVisibility(run.repoVisibility),
      secrets: run.secrets,
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
