/**
 * The run ledger: what a ThinkAgent keeps about one submission while it runs, for the message
 * its issue gets when it ends: tokens and steps, the recorded result, a budget stop, why it was
 * cancelled, its reproduction page, the models that served it, why setup failed, its sandbox's
 * egress refusals, GitHub API requests and private registries, its pull request's proof, and its
 * last activity (for the watchdog). Each fact is its own key, so writers side by side (a tool
 * call and its afterToolCall) never overwrite each other; `forget` drops them all once the
 * closing message is queued. Pure: storage is a narrow interface; docs/storage.md lists the keys.
 */
import { MAX_BLOCKED_ENTRIES, MAX_PRIVATE_SOURCES, type BlockedRequest, type Cost, type TokenUsage } from "../shared/command-center";
import { MAX_SERVED_MODELS } from "../shared/command-center-events";
import { addCost } from "../shared/pricing";
import type { RunResult, SetupFailure } from "./ending";
import type { ProofRecord } from "./fix-proof";

/** What a submission's turns have used so far: tokens, steps, and how the last step ended. */
export type RunUsage = TokenUsage & {
  /** What the steps counted against RUN_TOKEN_BUDGET (src/run/budget.ts); absent in usage kept before it existed. */
  budgetTokens?: number;
  steps: number;
  lastFinishReason?: string;
  /** What the steps cost (src/shared/pricing.ts); absent in usage kept before it existed. */
  cost?: Cost;
  /** A step ran on the scripted model: a demonstration, no model ran. */
  scripted?: boolean;
  /** The models that served the steps, by the provider's answer, in the order they first did (at most MAX_SERVED_MODELS). */
  models?: string[];
};

/** A budget that stopped the loop: tokens (the default, in hits kept before `kind`) or US dollars. */
export type BudgetHit = { kind?: "tokens" | "cost"; used: number; budget: number };

/** What the ledger knows when the submission ends. */
export type RunFacts = {
  usage?: RunUsage;
  result?: RunResult;
  budgetHit?: BudgetHit;
  cancelReason?: string;
  reproductionUrl?: string;
  setupFailure?: SetupFailure;
  /** Tool calls that settled (afterToolCall). */
  toolCalls?: number;
  /** Requests the egress gateway refused, per host and method, most frequent first. */
  blocked?: BlockedRequest[];
  /** The private registries whose credential the gateway attached to the run's requests, by host, sorted. */
  privateSources?: string[];
  /** The proof of the pull request the run opened or updated last (open_pull_request). */
  proof?: ProofRecord;
};

export interface RunLedgerStorage {
  get<T>(key: string): Promise<T | undefined>;
  get<T>(keys: string[]): Promise<Map<string, T>>;
  put<T>(key: string, value: T): Promise<void>;
  delete(keys: string[]): Promise<number>;
}

const usageKey = (id: string) => `agent-think:usage:${id}`;
const resultKey = (id: string) => `agent-think:result:${id}`;
const budgetKey = (id: string) => `agent-think:budget:${id}`;
const cancelKey = (id: string) => `agent-think:cancel:${id}`;
const activityKey = (id: string) => `agent-think:activity:${id}`;
const reproductionKey = (id: string) => `agent-think:reproduction:${id}`;
const setupKey = (id: string) => `agent-think:setup-failure:${id}`;
const toolsKey = (id: string) => `agent-think:tool-calls:${id}`;
const blockedKey = (id: string) => `agent-think:egress-blocked:${id}`;
const proofKey = (id: string) => `agent-think:proof:${id}`;
const githubRequestsKey = (id: string) => `agent-think:github-requests:${id}`;
const privateSourcesKey = (id: string) => `agent-think:private-sources:${id}`;

/** What a submission's steps counted against the token budget; every token in full for usage kept before that was recorded. */
export function countedTokens(usage: RunUsage | undefined): number {
  if (!usage) return 0;
  return usage.budgetTokens ?? usage.input + usage.output;
}

/** `known` with `model` added when it is new and there is room. */
function servedModels(known: string[] | undefined, model: string | undefined): string[] {
  const models = known ?? [];
  if (!model || models.includes(model) || models.length >= MAX_SERVED_MODELS) return models;
  return [...models, model];
}

export class RunLedger {
  readonly #storage: RunLedgerStorage;
  constructor(storage: RunLedgerStorage) {
    this.#storage = storage;
  }

  /** Add one model step: its tokens, what they count against the token budget, and how it finished. */
  async addStep(
    id: string,
    step: { inputTokens?: number; outputTokens?: number; budgetTokens?: number; finishReason?: string; cost?: Cost; scripted?: boolean; model?: string }
  ): Promise<void> {
    const sum = (await this.usage(id)) ?? { input: 0, output: 0, budgetTokens: 0, steps: 0, cost: { usd: 0, complete: true } };
    const scripted = sum.scripted === true || step.scripted === true;
    const models = servedModels(sum.models, step.model);
    await this.#storage.put<RunUsage>(usageKey(id), {
      input: sum.input + (step.inputTokens ?? 0),
      output: sum.output + (step.outputTokens ?? 0),
      budgetTokens: countedTokens(sum) + (step.budgetTokens ?? (step.inputTokens ?? 0) + (step.outputTokens ?? 0)),
      steps: sum.steps + 1,
      lastFinishReason: step.finishReason,
      cost: addCost(sum.cost ?? { usd: 0, complete: false }, step.cost ?? { usd: 0, complete: false }),
      ...(scripted ? { scripted } : {}),
      ...(models.length > 0 ? { models } : {})
    });
  }

  usage(id: string): Promise<RunUsage | undefined> {
    return this.#storage.get<RunUsage>(usageKey(id));
  }

  recordResult(id: string, result: RunResult): Promise<void> {
    return this.#storage.put(resultKey(id), result);
  }

  /** The page the submission published last (publish_reproduction). */
  recordReproduction(id: string, url: string): Promise<void> {
    return this.#storage.put(reproductionKey(id), url);
  }

  /** The proof open_pull_request ran (or why it ran none) for the pull request it opened or updated; the last one counts. */
  recordProof(id: string, proof: ProofRecord): Promise<void> {
    return this.#storage.put(proofKey(id), proof);
  }

  recordBudgetHit(id: string, hit: BudgetHit): Promise<void> {
    return this.#storage.put(budgetKey(id), hit);
  }

  /** The repository's preparation failed (src/steps/prepare.ts): the run ends before the model starts. */
  recordSetupFailure(id: string, failure: SetupFailure): Promise<void> {
    return this.#storage.put(setupKey(id), failure);
  }

  recordCancel(id: string, reason: string): Promise<void> {
    return this.#storage.put(cancelKey(id), reason);
  }

  /** A tool call settled: it is activity, and one more for the closing comment's count. */
  async recordToolCall(id: string, at: number): Promise<void> {
    const count = (await this.#storage.get<number>(toolsKey(id))) ?? 0;
    await Promise.all([this.#storage.put(toolsKey(id), count + 1), this.touch(id, at)]);
  }

  /**
   * The egress gateway refused one of the run's requests: counted by host
   * and method. True when that host and method is new for the run.
   */
  async recordBlocked(id: string, host: string, method: string): Promise<{ blocked: BlockedRequest[]; first: boolean }> {
    const list = (await this.#storage.get<BlockedRequest[]>(blockedKey(id))) ?? [];
    const found = list.find((entry) => entry.host === host && entry.method === method);
    if (found) found.count++;
    else list.push({ host, method, count: 1 });
    const blocked = list.sort((a, b) => b.count - a.count).slice(0, MAX_BLOCKED_ENTRIES);
    await this.#storage.put(blockedKey(id), blocked);
    return { blocked, first: !found };
  }

  /**
   * The gateway gave one of the run's requests a private registry's credential: its host joins
   * the run's sorted list (at most MAX_PRIVATE_SOURCES). `first` when the host was not on it.
   */
  async recordPrivateSource(id: string, host: string): Promise<{ hosts: string[]; first: boolean }> {
    const hosts = (await this.#storage.get<string[]>(privateSourcesKey(id))) ?? [];
    if (hosts.includes(host) || hosts.length >= MAX_PRIVATE_SOURCES) return { hosts, first: false };
    const next = [...hosts, host].sort();
    await this.#storage.put(privateSourcesKey(id), next);
    return { hosts: next, first: true };
  }

  /** One more GitHub API request of the run's sandbox through the egress gateway: how many it has sent now. */
  async countGitHubRequest(id: string): Promise<number> {
    const count = ((await this.#storage.get<number>(githubRequestsKey(id))) ?? 0) + 1;
    await this.#storage.put(githubRequestsKey(id), count);
    return count;
  }

  /** The turn did something (started, or finished a tool call). */
  touch(id: string, at: number): Promise<void> {
    return this.#storage.put(activityKey(id), at);
  }

  lastActivity(id: string): Promise<number | undefined> {
    return this.#storage.get<number>(activityKey(id));
  }

  /** Everything the closing message needs, in one read. */
  async facts(id: string): Promise<RunFacts> {
    const values = await this.#storage.get<unknown>([usageKey(id), resultKey(id), budgetKey(id), cancelKey(id), reproductionKey(id), setupKey(id), toolsKey(id), blockedKey(id), proofKey(id), privateSourcesKey(id)]);
    return {
      usage: values.get(usageKey(id)) as RunUsage | undefined,
      result: values.get(resultKey(id)) as RunResult | undefined,
      budgetHit: values.get(budgetKey(id)) as BudgetHit | undefined,
      cancelReason: values.get(cancelKey(id)) as string | undefined,
      reproductionUrl: values.get(reproductionKey(id)) as string | undefined,
      setupFailure: values.get(setupKey(id)) as SetupFailure | undefined,
      toolCalls: values.get(toolsKey(id)) as number | undefined,
      blocked: values.get(blockedKey(id)) as BlockedRequest[] | undefined,
      proof: values.get(proofKey(id)) as ProofRecord | undefined,
      privateSources: values.get(privateSourcesKey(id)) as string[] | undefined
    };
  }

  async forget(id: string): Promise<void> {
    await this.#storage.delete([
      usageKey(id),
      resultKey(id),
      budgetKey(id),
      cancelKey(id),
      activityKey(id),
      reproductionKey(id),
      setupKey(id),
      toolsKey(id),
      blockedKey(id),
      proofKey(id),
      githubRequestsKey(id),
      privateSourcesKey(id)
    ]);
  }
}
