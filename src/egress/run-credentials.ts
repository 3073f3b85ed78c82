/**
 * A run's GitHub credentials, on the Worker's side of the sandbox: the run's write token
 * (RunToken: the Worker's own posts, and an allowed push), the read-only token the gateway
 * attaches to reads (ReadOnlyToken), a reporter run's issues-only posting token, and the end of
 * each: a token the run no longer holds is revoked. `grant` is what the egress gateway may do
 * for the sandbox now (grant.ts): nothing credentialed without a running turn, no push before
 * the write policy is known, a write token only with a push branch. A reporter session's runs
 * never hold the write token. When each token is revoked: docs/security.md. Pure apart from
 * its dependencies.
 */
import type { Logger } from "../run/log";
import { ReadOnlyToken } from "../run/read-token";
import type { RunContextStore } from "../run/run-context";
import { RunToken, type MintedToken } from "../run/run-token";
import type { Revocation } from "../github/token-revocation";
import { grantFor, type EgressGrant } from "./grant";
import type { AllowRule } from "../run/host-allowlist";
import type { CredentialNeed } from "./github-routes";
import type { RegistryEntry } from "../run/registries";
import { registryGrants, registryGrantsFor } from "./registry-grants";

type TokenKind = "run" | "read" | "report";

/** What the run's preparation decided for the sandbox's network (prepare.ts); null before it is known. A host string allows every method. */
/** `pushRefusal`: why there is no push branch, when it is not the usual reason (the commits must be signed). */
export type EgressPolicy = { pushBranch: string | null; allow: readonly AllowRule[]; registries?: readonly RegistryEntry[]; pushRefusal?: string };

export type RunCredentialsDeps = {
  runs: Pick<RunContextStore, "get" | "setToken">;
  /** A fresh installation token for `repo` from the token broker: the run's (write), a read-only one, or an issues-only one for the Worker's posts. */
  mint: (repo: string, access: "write" | "read" | "report", also?: readonly string[]) => Promise<MintedToken>;
  /** Whether the session is a reporter session, whose runs hold no write token at all. */
  reporter: () => boolean;
  /** Revoke `token` on GitHub. */
  revoke: (token: string) => Promise<Revocation>;
  /** Where every token is registered for the console guard. */
  secrets: { add(secret: string): void };
  /** EGRESS, EGRESS_ALLOW and REGISTRY_SECRETS, as configured. */
  settings: () => { egress?: string; egressAllow?: string; registrySecrets?: string; registryRepos?: string };
  /** A Worker secret by name, for a private registry the operator let the repository name. */
  secret: (name: string) => string | undefined;
  /** Keeps the isolate alive for a revocation nobody waits for. */
  waitUntil: (promise: Promise<unknown>) => void;
  now: () => number;
  log: Logger;
};

export class RunCredentials {
  /** The run's write token: the Worker's posts use it; the gateway attaches it only to an allowed push. */
  readonly token: RunToken;
  readonly #read: ReadOnlyToken;
  /** The read token that also reads the repositories of the policy's git registry entries. */
  readonly #readWide: ReadOnlyToken;
  /** A reporter session's issues-only token for the Worker's posts (never the sandbox's). */
  readonly #posting: ReadOnlyToken;
  readonly #deps: RunCredentialsDeps;

  constructor(deps: RunCredentialsDeps) {
    this.#deps = deps;
    const retired = (kind: TokenKind) => (token: string) => this.#revokeLater(token, kind);
    const onDemand = (access: "read" | "report") =>
      new ReadOnlyToken({
        mint: (repo, also) => deps.mint(repo, access, also),
        secrets: deps.secrets,
        now: deps.now,
        log: deps.log,
        retired: retired(access),
        ...(access === "report" ? { kind: "report" } : {})
      });
    this.#read = onDemand("read");
    this.#readWide = onDemand("read");
    this.#posting = onDemand("report");
    this.token = new RunToken({
      runs: deps.runs,
      // A reporter session's token is renewed as what it was dispatched with: read-only.
      mint: (repo) => deps.mint(repo, deps.reporter() ? "read" : "write"),
      secrets: deps.secrets,
      now: deps.now,
      log: deps.log,
      alsoSecret: () => [...this.#read.secrets(), ...this.#readWide.secrets(), ...this.#posting.secrets()],
      retired: retired("run")
    });
  }

  /** The token the Worker posts the run's reactions and comments with: the run's, or a reporter session's issues-only one. */
  async posting(): Promise<string> {
    if (!this.#deps.reporter()) return await this.token.fresh();
    const run = await this.#deps.runs.get();
    // Local dev without a GitHub token posts with none, as the run's own would.
    return run?.installationToken ? await this.#posting.fresh(run.repo) : "";
  }

  /** After a 401 on a post: a fresh posting token; null when none can be had. */
  async refreshPosting(repo: string): Promise<string | null> {
    if (!this.#deps.reporter()) return await this.token.refresh(repo);
    const stale = this.#posting.take();
    if (stale) this.#revokeLater(stale, "report");
    return (await this.#posting.fresh(repo)) || null;
  }

  /** A read-only token for the run's repository (the Worker's own reads on the run's behalf: attachments); "" without a run or a GitHub token. */
  async readOnly(): Promise<string> {
    const run = await this.#deps.runs.get();
    return run?.installationToken ? await this.#read.fresh(run.repo) : "";
  }

  /**
   * What the gateway may do for the sandbox now: for `submissionId`'s turn
   * under `policy` (null: not known yet, so no push), or nothing credentialed
   * when no turn is running. It holds only the credential `need` says the
   * request may use: a read-only token for a read, the run's for a push.
   */
  /** `url`: the request's, so only the registry credential it could use is in the grant. */
  async grant(submissionId: string | undefined, policy: EgressPolicy | null, need: CredentialNeed, url = ""): Promise<EgressGrant> {
    const settings = this.#deps.settings();
    const base = { egress: settings.egress, egressAllow: settings.egressAllow, readToken: "", writeToken: "" };
    const run = submissionId === undefined ? undefined : await this.#deps.runs.get();
    if (!run || submissionId === undefined) return grantFor({ ...base, repositoryAllow: policy?.allow });
    const pushBranch = policy?.pushBranch ?? null;
    const runToken = need === "none" ? "" : await this.token.fresh();
    // A reporter run's policy holds no registries (prepare.ts); this is the second lock on that door.
    const resolution = policy?.registries?.length && !this.#deps.reporter() ? this.registryResolution(run.repo, policy.registries) : null;
    const alsoRead = resolution?.repositories ?? [];
    // Without a token of the run's own there is no GitHub to read with (local dev): nothing to mint.
    const readToken = need === "read" && runToken ? await this.#readToken(run.repo, alsoRead) : "";
    const writeToken = need === "write" ? runToken : "";
    return grantFor({
      ...base,
      submissionId,
      repo: run.repo,
      headRepo: run.pullRequest?.headRepo,
      pushBranch,
      repositoryAllow: policy?.allow,
      readToken,
      writeToken,
      alsoRead,
      ...(policy?.pushRefusal ? { pushRefusal: policy.pushRefusal } : {}),
      registries: registryGrantsFor(resolution?.grants ?? [], url)
    });
  }

  /**
   * The sandbox's read token: one that also reads the git entries' repositories when there are
   * some and GitHub mints it, else the run's repository's alone (an installation without them
   * must not cost the run its own clone; the mint's failure is logged).
   */
  async #readToken(repo: string, also: readonly string[]): Promise<string> {
    if (also.length > 0) {
      const wide = await this.#readWide.fresh(repo, also);
      if (wide) return wide;
    }
    return await this.#read.fresh(repo);
  }

  /** The credentials of a repository's registries, and why any entry cannot be used. */
  registryResolution(repo: string, entries: readonly RegistryEntry[]) {
    return registryGrants(entries, repo, this.#deps.settings(), this.#deps.secret);
  }

  /** A turn ended: the read-only token it read with is revoked (the next turn mints its own). */
  turnEnded(): void {
    const wide = this.#readWide.take();
    if (wide) this.#revokeLater(wide, "read");
    const token = this.#read.take();
    if (token) this.#revokeLater(token, "read");
  }

  /**
   * The run's closing message settled (or it has none): its token is
   * revoked, unless `stillNeeded` (another turn of the issue is queued or
   * running, and the token is its too). The next dispatch brings a new one.
   */
  async runSettled(stillNeeded: boolean): Promise<void> {
    if (stillNeeded) return;
    const posting = this.#posting.take();
    if (posting) this.#revokeLater(posting, "report");
    const run = await this.#deps.runs.get();
    const token = run?.installationToken ?? "";
    if (!token) return;
    await this.#revoke(token, "run");
  }

  /** Forget every token this holds (the session was reset), revoking them. */
  clear(): void {
    const run = this.token.clear();
    if (run) this.#revokeLater(run, "run");
    const posting = this.#posting.take();
    if (posting) this.#revokeLater(posting, "report");
    this.turnEnded();
  }

  /** Every token a run's output must not hold. */
  secrets(): string[] {
    return this.token.secrets();
  }

  redact(text: string): string {
    return this.token.redact(text);
  }

  redactDeep<T>(value: T): T {
    return this.token.redactDeep(value);
  }

  #revokeLater(token: string, kind: TokenKind): void {
    this.#deps.waitUntil(this.#revoke(token, kind));
  }

  async #revoke(token: string, kind: TokenKind): Promise<void> {
    const outcome = await this.#deps.revoke(token).catch((error: unknown) => ({ failed: error instanceof Error ? error.message : String(error) }));
    if (typeof outcome === "string") this.#deps.log(`token:${outcome}`, { token: kind });
    else this.#deps.log("token:revoke-failed", { token: kind, error: outcome.failed });
  }
}
