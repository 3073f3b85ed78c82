/**
 * Preparing the repository once per submission, before the model's first
 * step (a recovered turn reuses what was found): its config and guidance
 * read from the default branch, the write policy, the issue's facts and
 * attachments, a fresh clone (and a pull request's checkout) under the
 * Worker's git environment, then the setup commands. A failed step throws
 * SetupFailedError; a read GitHub did not answer is noted in `unread`. What
 * it found becomes the workspace block (workspace-block.ts); docs/skills.md
 * ("The workspace block") and docs/security.md say what each step holds to.
 */
import type { BashInput, BashResult } from "../run/bash-command";
import { isContainerAbsent } from "../pool/engine";
import type { OpenPullRequest, RepoReader } from "../github/repo-reader";
import type { CiFailures, PullRequestRef, RunTier } from "../shared/dispatch";
import { bodySha256 } from "../shared/body-digest";
import { SetupFailedError, type SetupFailure } from "../run/ending";
import { ciFacts, issueFacts, MAX_COMMENTS_SHOWN, type CiFacts, type IssueFacts } from "./issue-facts";
import { gatherAttachments, refetchImages, type AttachmentFact, type Gathered, type KeptAttachment, type ShownImage } from "./issue-attachments";
import { parseRepoConfig, REPO_CONFIG_PATH, MAX_REPO_CONFIG_BYTES, type RepoConfig } from "../run/repo-config";
import { issueBranch, writePolicyFor, type WritePolicy } from "../run/write-policy";
import type { EgressPolicy } from "../egress/run-credentials";
import { GITHUB_COM } from "../shared/github-urls";
import { canonicalRemote, freshCloneScript, pullRequestCheckoutScript, type WorkerGitHub } from "../run/worker-git";
import { npmrcScript, registryFacts, type RegistryEntry, type RegistryFacts } from "../run/registries";

export const GUIDANCE_FILES = ["AGENTS.md", "CLAUDE.md", ".github/copilot-instructions.md"] as const;
/** The guidance the model gets at most; a longer file is cut and says so. */
export const MAX_GUIDANCE_BYTES = 16 * 1024;
export const CLONE_DIR = "/workspace/repo";
const CLONE_TIMEOUT_MS = 10 * 60_000;
const REGISTRY_SETUP_TIMEOUT_MS = 30_000;
/**
 * The ref the configuration and guidance are read at: none, which GitHub
 * answers from the default branch. Never a pull request's head or base: its
 * author chooses both.
 */
const DEFAULT_BRANCH = undefined;
/** The output of a failed step kept for its comment. */
const MAX_FAILURE_OUTPUT_CHARS = 8_000;

/** What the model is told about its workspace: the `<agent-think-workspace>` block's JSON. */
export type WorkspaceFacts = {
  /** Where the repository is cloned; absent when no container was available to clone it. */
  clone?: string;
  /** On a pull request: the checkout that put the clone at its head. */
  checkout?: { command: string; branch?: string };
  setup?: { file: string; backend: "container" | "shell"; ran: Array<{ run: string; exitCode: number; durationMs: number }> };
  guidance?: { path: string; bytes: number; truncated: boolean };
  pushBranch: string | null;
  mayOpenPullRequest: boolean;
  openPullRequest?: OpenPullRequest;
  /**
   * The issue's body differs from the one the mention's payload had: text
   * someone put there after the maintainer asked, which they never read.
   */
  issueBodyEditedSinceMention?: true;
  /** Files GitHub could not be asked for (an outage, a permission): the run went on without them. */
  unread?: string[];
  /** A CI follow-up's failing checks on the pull request's head, as untrusted data (issue-facts.ts, `ciFacts`). */
  ci?: CiFacts;
  /** The issue and its latest comments as data; absent when GitHub could not be asked for it (then `unread` says so). */
  issue?: IssueFacts;
  /** The images and uploads in the issue's body and the comments shown, and what became of each (issue-attachments.ts). */
  attachments?: AttachmentFact[];
  /** The repository's private registries: each usable one's address and npm scope, and why any other is not. */
  registries?: RegistryFacts;
};

/** `guidance` is read from the default branch, like the configuration. */
/**
 * What the repository's `.github/agent-think.yml` asks of the run beyond its
 * setup and network: whether the issue gets a live progress comment, and
 * which model (the operator's MODELS_ALLOWED decides whether it may). Known
 * once the file is read, before the clone.
 */
export type RunSettings = { progress: boolean; model?: string };
export const DEFAULT_RUN_SETTINGS: RunSettings = { progress: true };

export type Prepared = {
  facts: WorkspaceFacts;
  guidance?: { path: string; text: string };
  policy: WritePolicy;
  settings?: RunSettings;
  /** What `fetch_attachment` may fetch, and where each shown image was fetched from (kept; never shown to the model). */
  attachments?: KeptAttachment[];
  /** The shown images' bytes: in memory only, never stored; absent on what `prepared()` reads back. */
  images?: ShownImage[];
  /** Images a recovered turn could not show again, said after the block. In memory only. */
  imageNotes?: string[];
};

/** What preparing needs of the run. */
export type PrepareRun = { repo: string; issueNumber: number; pullRequest?: PullRequestRef; botLogin?: string; issueBodySha256?: string; tier?: RunTier; ci?: CiFailures };

export type PrepareDeps = {
  /** Durable per-submission memory (the Durable Object's sync KV). */
  storage: { get<T>(key: string): T | undefined; put<T>(key: string, value: T): void; delete(key: string): boolean };
  /** A reader with the run's token; null when this deploy has no GitHub to read (local dev without one). */
  reader: () => Promise<RepoReader | null>;
  /** One command. */
  exec: (input: BashInput) => Promise<BashResult>;
  redact: (text: string) => string;
  /** The repository's settings were read (before the clone), once per submission. */
  onSettings?: (submissionId: string, settings: RunSettings) => void | Promise<void>;
  /** A step began or ended (the watchdog and the dashboard hear of it). */
  onStep: (submissionId: string, step: { name: string; ok: boolean; durationMs: number }) => void | Promise<void>;
  log: (event: string, fields: Record<string, unknown>) => void;
  now: () => number;
  /** The deployment's GitHub, which the clone comes from (github.com when not given). */
  github?: () => WorkerGitHub;
  /** Which of the repository's registries the run may use (the credential each would get stays outside), and why not the others. */
  registries?: (repo: string, entries: readonly RegistryEntry[]) => { grants: { host: string; path: string }[]; repositories: string[]; refusals: string[] };
};

const preparedKey = (submissionId: string) => `agent-think:prepared:${submissionId}`;

/** What was kept of `submissionId`'s preparation (no image bytes), read from the same storage: for `fetch_attachment` (run-attachments.ts). */
export function keptPreparation(storage: Pick<PrepareDeps["storage"], "get">, submissionId: string): Prepared | null {
  return storage.get<Prepared>(preparedKey(submissionId)) ?? null;
}
/** The sandbox's network policy, kept before the first container step (the clone and setup go through the gateway too). */
const egressKey = (submissionId: string) => `agent-think:egress-policy:${submissionId}`;
/** The repository's run settings, kept with the network policy, before the clone. */
const settingsKey = (submissionId: string) => `agent-think:run-settings:${submissionId}`;


/** What every command of one preparation shares. */
type Step = { submissionId: string; signal?: AbortSignal };

export class RunPreparation {
  readonly #deps: PrepareDeps;
  /** The shown images' bytes by submission, for this isolate's turns: too large to keep in storage. */
  readonly #shown = new Map<string, { images: ShownImage[]; notes?: string[] }>();
  constructor(deps: PrepareDeps) {
    this.#deps = deps;
  }

  /** What was prepared for `submissionId`, preparing it the first time. Throws SetupFailedError. */
  async prepare(submissionId: string, run: PrepareRun, signal?: AbortSignal): Promise<Prepared> {
    const kept = this.#deps.storage.get<Prepared>(preparedKey(submissionId));
    if (kept) {
      // Prepared before the network policy was kept on its own: its branch, and no hosts beyond the defaults.
      if (!this.egressPolicy(submissionId)) this.#deps.storage.put(egressKey(submissionId), { pushBranch: kept.policy.pushBranch, allow: [] });
      return { ...kept, ...(await this.#images(submissionId, kept)) };
    }
    const read = await this.#read(run);
    const policy = writePolicyFor({
      repo: run.repo,
      issueNumber: run.issueNumber,
      pullRequest: run.pullRequest,
      botLogin: run.botLogin,
      openPullRequest: read.openPullRequest,
      ...(run.tier ? { tier: run.tier } : {})
    });
    const facts: WorkspaceFacts = {
      pushBranch: policy.pushBranch,
      mayOpenPullRequest: policy.mayOpenPullRequest,
      ...(read.openPullRequest ? { openPullRequest: read.openPullRequest } : {}),
      ...(read.bodyEdited ? { issueBodyEditedSinceMention: true as const } : {}),
      ...(read.guidance ? { guidance: { path: read.guidance.path, bytes: read.guidance.bytes, truncated: read.guidance.truncated } } : {}),
      ...(read.unread.length ? { unread: read.unread } : {})
    };
    if (read.config && "errors" in read.config) throw new SetupFailedError({ kind: "config", file: REPO_CONFIG_PATH, errors: read.config.errors });
    const config = read.config?.config;
    // A reporter-tier run gets the default allowlist only, and no registry: the repository's are the maintainers' to use.
    const registries = run.tier === "reporter" ? [] : (config?.registries ?? []);
    const egress: EgressPolicy = { pushBranch: policy.pushBranch, allow: run.tier === "reporter" ? [] : (config?.network.allow ?? []), ...(registries.length ? { registries } : {}) };
    this.#deps.storage.put(egressKey(submissionId), egress);
    const settings: RunSettings = { progress: config?.progress ?? true, ...(config?.model ? { model: config.model } : {}) };
    this.#deps.storage.put(settingsKey(submissionId), settings);
    await this.#deps.onSettings?.(submissionId, settings);
    const step: Step = { submissionId, signal };
    const cloned = await this.#checkout(step, run, facts);
    if (registries.length > 0) facts.registries = await this.#registries(step, run.repo, registries);
    if (config && config.setup.commands.length > 0) facts.setup = await this.#setup(step, config, cloned);
    // Last in the block: the largest fields, after the facts about the workspace.
    if (run.ci) facts.ci = ciFacts(run.ci);
    if (read.issue) facts.issue = read.issue;
    if (read.attachments?.facts.length) facts.attachments = read.attachments.facts;
    const guidance = read.guidance ? { path: read.guidance.path, text: read.guidance.text } : undefined;
    const attachments = read.attachments?.kept.length ? read.attachments.kept : undefined;
    const prepared: Prepared = { facts, policy, settings, ...(guidance ? { guidance } : {}), ...(attachments ? { attachments } : {}) };
    this.#deps.storage.put(preparedKey(submissionId), prepared);
    const images = read.attachments?.images ?? [];
    if (images.length) this.#shown.set(submissionId, { images });
    return { ...prepared, ...(images.length ? { images } : {}) };
  }

  /** What was prepared for `submissionId`; null before it is. */
  prepared(submissionId: string): Prepared | null {
    return this.#deps.storage.get<Prepared>(preparedKey(submissionId)) ?? null;
  }

  /** The write policy of a prepared submission, for the command guard; null before it is prepared. */
  policy(submissionId: string): WritePolicy | null {
    return this.#deps.storage.get<Prepared>(preparedKey(submissionId))?.policy ?? null;
  }

  /** The sandbox's network policy for `submissionId`: known once its policy and configuration were read, before the clone. */
  egressPolicy(submissionId: string): EgressPolicy | null {
    return this.#deps.storage.get<EgressPolicy>(egressKey(submissionId)) ?? null;
  }

  /** The repository's run settings for `submissionId`: known once its configuration was read, before the clone; null before. */
  settings(submissionId: string): RunSettings | null {
    return this.#deps.storage.get<RunSettings>(settingsKey(submissionId)) ?? null;
  }

  forget(submissionId: string): void {
    this.#shown.delete(submissionId);
    this.#deps.storage.delete(preparedKey(submissionId));
    this.#deps.storage.delete(egressKey(submissionId));
    this.#deps.storage.delete(settingsKey(submissionId));
  }

  /** The shown images of a kept preparation: this isolate's, or fetched again (a recovered turn in a new isolate). */
  async #images(submissionId: string, kept: Prepared): Promise<Pick<Prepared, "images" | "imageNotes">> {
    if (!kept.attachments?.some((attachment) => attachment.image)) return {};
    let shown = this.#shown.get(submissionId);
    if (!shown) {
      const reader = await this.#deps.reader().catch(() => null);
      const again = reader ? await refetchImages(kept.attachments, reader) : { images: [], notes: ["The issue's images could not be fetched again after the run restarted: none is shown."] };
      shown = { images: again.images, ...(again.notes.length ? { notes: again.notes } : {}) };
      this.#shown.set(submissionId, shown);
      this.#deps.log("prepare:images-refetched", { submissionId, shown: again.images.length, failed: again.notes.length });
    }
    return { ...(shown.images.length ? { images: shown.images } : {}), ...(shown.notes ? { imageNotes: shown.notes } : {}) };
  }

  async #read(run: PrepareRun) {
    const unread: string[] = [];
    const result: {
      config?: { config: RepoConfig } | { errors: string[] };
      guidance?: { path: string; text: string; bytes: number; truncated: boolean };
      openPullRequest?: OpenPullRequest;
      issue?: IssueFacts;
      attachments?: Gathered;
      bodyEdited?: boolean;
      unread: string[];
    } = { unread };
    const reader = await this.#deps.reader();
    if (!reader) return result;
    const attempt = async <T>(what: string, read: () => Promise<T>): Promise<T | undefined> => {
      try {
        return await read();
      } catch (error) {
        const message = this.#deps.redact(error instanceof Error ? error.message : String(error));
        this.#deps.log("prepare:read-failed", { what, error: message });
        unread.push(`${what}: ${message}`);
        return undefined;
      }
    };
    const file = await attempt(REPO_CONFIG_PATH, () => reader.readFile(run.repo, REPO_CONFIG_PATH, DEFAULT_BRANCH, MAX_REPO_CONFIG_BYTES + 1));
    if (file) {
      const parsed = file.truncated ? { ok: false as const, errors: [`the file is larger than ${MAX_REPO_CONFIG_BYTES / 1024} KB`] } : parseRepoConfig(file.text);
      result.config = parsed.ok ? { config: parsed.config } : { errors: parsed.errors };
    }
    for (const path of GUIDANCE_FILES) {
      const found = await attempt(path, () => reader.readFile(run.repo, path, DEFAULT_BRANCH, MAX_GUIDANCE_BYTES));
      if (found === undefined) break; // GitHub is not answering: the next file would not be read either
      if (found) {
        result.guidance = { path, ...found, text: this.#deps.redact(found.text) };
        break;
      }
    }
    if (!run.pullRequest && run.botLogin) {
      const open = await attempt("open pull requests", () => reader.openPullRequest(run.repo, issueBranch(run.issueNumber), run.botLogin!));
      if (open) result.openPullRequest = open;
    }
    // One read of the issue serves the block and the digest check.
    const issue = await attempt("the issue", () => reader.issue(run.repo, run.issueNumber));
    if (issue) {
      if (run.issueBodySha256) result.bodyEdited = (await bodySha256(issue.body)) !== run.issueBodySha256;
      const comments = issue.comments > 0 ? await attempt("the issue's comments", () => reader.latestComments(run.repo, run.issueNumber, issue.comments, MAX_COMMENTS_SHOWN)) : [];
      // Redacted like everything else the model is shown from outside the run (the guidance, command output).
      const redact = this.#deps.redact;
      const shown = (comments ?? []).slice(-MAX_COMMENTS_SHOWN).map((comment) => ({ ...comment, body: redact(comment.body) }));
      result.issue = issueFacts({ ...issue, title: redact(issue.title), body: redact(issue.body) }, shown);
      // The same texts the issue field shows: the body, then each comment shown, numbered as there.
      const texts = [
        { where: "body", text: redact(issue.body), ...(issue.bodyHtml ? { html: issue.bodyHtml } : {}) },
        ...shown.map((comment, index) => ({ where: `comment ${index + 1}`, text: comment.body, ...(comment.bodyHtml ? { html: comment.bodyHtml } : {}) }))
      ];
      result.attachments = await gatherAttachments(texts, reader);
    }
    return result;
  }

  /** Clone afresh in the container, and check out a pull request's head. False when there is no container to do it in. */
  async #checkout(step: Step, run: PrepareRun, facts: WorkspaceFacts): Promise<boolean> {
    const target = { github: this.#deps.github?.() ?? GITHUB_COM, repo: run.repo, dir: CLONE_DIR };
    const cloned = await this.#run(step, "clone", freshCloneScript(target), "container", CLONE_TIMEOUT_MS);
    if ("unavailable" in cloned) {
      // Once per run: why there is no clone (no engine in local dev, or containers off).
      this.#deps.log("prepare:no-container", { reason: cloned.unavailable });
      return false;
    }
    if (!cloned.ok) throw new SetupFailedError({ kind: "checkout", command: `git clone ${canonicalRemote(target.github, run.repo)}`, exitCode: cloned.exitCode, output: cloned.output });
    facts.clone = CLONE_DIR;
    const pull = run.pullRequest;
    if (pull) {
      const command = `gh pr checkout ${pull.number} --repo ${run.repo}`;
      const checkout = await this.#run(step, "checkout", pullRequestCheckoutScript(target, pull.number), "container", CLONE_TIMEOUT_MS);
      if ("unavailable" in checkout || !checkout.ok) {
        throw new SetupFailedError({ kind: "checkout", command, ...("unavailable" in checkout ? { output: checkout.unavailable } : { exitCode: checkout.exitCode, output: checkout.output }) });
      }
      facts.checkout = { command, ...(pull.headRef ? { branch: pull.headRef } : {}) };
    }
    return true;
  }

  /** What the run may use of the repository's registries; the container's npmrc names their scopes (no credential). */
  async #registries(step: Step, repo: string, entries: readonly RegistryEntry[]): Promise<RegistryFacts> {
    const resolved = this.#deps.registries?.(repo, entries) ?? { grants: [], repositories: [], refusals: ["registries: this deployment resolves none"] };
    const facts = registryFacts(entries, new Set(resolved.grants.map((grant) => `${grant.host}${grant.path}`)), resolved.refusals, resolved.repositories)!;
    const script = npmrcScript(facts.usable);
    if (!script) return facts;
    const written = await this.#run(step, "registries", script, "container", REGISTRY_SETUP_TIMEOUT_MS);
    if ("unavailable" in written) return facts;
    return written.ok ? facts : { ...facts, refused: [...facts.refused, `registries: the container's ~/.npmrc could not be written: ${written.output}`] };
  }

  async #setup(step: Step, config: RepoConfig, cloned: boolean): Promise<NonNullable<WorkspaceFacts["setup"]>> {
    const { backend, commands } = config.setup;
    const ran: NonNullable<WorkspaceFacts["setup"]>["ran"] = [];
    for (const [index, command] of commands.entries()) {
      // In the clone when there is one; the shell backend sees the same files.
      const script = cloned ? `cd ${CLONE_DIR} && ${command.run}` : command.run;
      const result = await this.#run(step, `setup ${index + 1}`, script, backend, command.timeoutS * 1000);
      const failure = (extra: Partial<Extract<SetupFailure, { kind: "step" }>>): SetupFailedError =>
        new SetupFailedError({ kind: "step", file: REPO_CONFIG_PATH, index: index + 1, of: commands.length, command: command.run, output: "", ...extra });
      if ("unavailable" in result) throw failure({ output: result.unavailable });
      if (!result.ok) throw failure({ exitCode: result.exitCode, timedOut: result.timedOut, durationMs: result.durationMs, output: result.output });
      ran.push({ run: command.run, exitCode: 0, durationMs: result.durationMs });
    }
    return { file: REPO_CONFIG_PATH, backend, ran };
  }

  /** One command, timed and reported; its output redacted and bounded. */
  async #run(
    { submissionId, signal }: Step,
    name: string,
    command: string,
    backend: BashInput["backend"],
    timeoutMs: number
  ): Promise<{ unavailable: string } | { ok: boolean; exitCode?: number; timedOut?: boolean; durationMs: number; output: string }> {
    signal?.throwIfAborted();
    const started = this.#deps.now();
    // The first line says where the command came from, in the container's logs and the recording tests.
    const result = await this.#deps.exec({ command: `# agent-think prepare: ${name}\n${command}`, backend, timeoutMs });
    const durationMs = this.#deps.now() - started;
    if ("error" in result) {
      const error = this.#deps.redact(result.error);
      // No container engine (local dev): the run goes on, and the skill clones if it can.
      if (backend === "container" && isContainerAbsent(result.error)) return { unavailable: error };
      await this.#deps.onStep(submissionId, { name, ok: false, durationMs });
      return { ok: false, durationMs, output: error };
    }
    const ok = result.exitCode === 0 && !result.timedOut;
    await this.#deps.onStep(submissionId, { name, ok, durationMs });
    this.#deps.log("prepare:step", { step: name, exitCode: result.exitCode, durationMs, ...(result.timedOut ? { timedOut: true } : {}) });
    const output = [result.stdout.text, result.stderr.text].filter((text) => text.trim() !== "").join("\n");
    return { ok, exitCode: result.exitCode, timedOut: result.timedOut, durationMs, output: this.#deps.redact(output).slice(-MAX_FAILURE_OUTPUT_CHARS) };
  }
}
