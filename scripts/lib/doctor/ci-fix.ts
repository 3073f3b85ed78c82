/**
 * CI_FIX_REPOS, the operator's yes to a repository's `ci: { fix }`, in
 * `npm run doctor`'s two places: the checkout's line (both Workers' values
 * the same, parsed as the Workers parse them, src/shared/ci-fix-repos.ts,
 * and naming only allowed repositories) and, with --remote, one line per
 * repository that puts the repository's own file beside the operator's
 * list and the CI secrets verdict (ci-secrets.ts): a follow-up's push runs
 * the repository's CI. Pure.
 */
import { repoCiFixes, REPO_CONFIG_PATH, type RepoFile } from "../../../ingress/src/repo-triggers";
import { readAllowedRepos } from "../../../src/shared/allowed-repos";
import { parseCiFixRepos, type CiFixRepos } from "../../../src/shared/ci-fix-repos";
import { CI_DOCS, NEEDS, refusal, type CiVerdict, type Read } from "./ci-secrets";
import { AGENT_CONFIG, INGRESS_CONFIG, line, listNames, varsOf, type DoctorCheck, type WorkerConfig } from "./types";

const LABEL = "CI follow-up repositories";
const REMOTE_HINT = "npm run doctor -- --remote says whether their CI can reach secrets";

function describe(accepted: CiFixRepos): string {
  if (accepted.kind === "all") return '"*" (every allowed repository)';
  if (accepted.kind === "invalid") return "a value that does not parse";
  return accepted.repos.size === 0 ? "none" : [...accepted.repos].join(", ");
}

function same(a: CiFixRepos, b: CiFixRepos): boolean {
  if (a.kind === "listed" && b.kind === "listed") return a.repos.size === b.repos.size && [...a.repos].every((repo) => b.repos.has(repo));
  return a.kind === b.kind;
}

/** The checkout's line: CI_FIX_REPOS parses in both configs, says the same in both, and names only allowed repositories. */
export function ciFixReposCheck({ agent, ingress }: { agent: WorkerConfig; ingress: WorkerConfig }): DoctorCheck {
  const configs = [
    { path: AGENT_CONFIG, vars: varsOf(agent) },
    { path: INGRESS_CONFIG, vars: varsOf(ingress) }
  ].map((config) => ({ ...config, accepted: parseCiFixRepos(config.vars.CI_FIX_REPOS) }));
  const fix = 'set the same CI_FIX_REPOS in wrangler.jsonc and ingress/wrangler.jsonc: owner/name entries of ALLOWED_REPOS, "*", or empty';
  const invalid = configs.filter((config) => config.accepted.kind === "invalid");
  if (invalid.length > 0) {
    const said = invalid.map((config) => `${config.path}: ${(config.accepted as { error: string }).error}`).join("; ");
    return line("ci-fix-repos", LABEL, "warn", `${said}: the agent Worker accepts no CI follow-up, and the webhook app refuses the value (Webhook app settings)`, fix);
  }
  const [agentSide, ingressSide] = configs as [(typeof configs)[0], (typeof configs)[0]];
  if (!same(agentSide.accepted, ingressSide.accepted)) {
    return line(
      "ci-fix-repos",
      LABEL,
      "warn",
      `CI_FIX_REPOS differs: ${AGENT_CONFIG} accepts ${describe(agentSide.accepted)}, ${INGRESS_CONFIG} ${describe(ingressSide.accepted)}: a follow-up one Worker accepts, the other refuses or never starts`,
      fix
    );
  }
  const unlisted = configs.flatMap((config) => {
    const allowed = readAllowedRepos(config.vars.ALLOWED_REPOS ?? "");
    if (!allowed.ok || config.accepted.kind !== "listed") return [];
    return [...config.accepted.repos].filter((repo) => !allowed.repos.has(repo)).map((repo) => ({ repo, path: config.path }));
  });
  if (unlisted.length > 0) {
    const repos = [...new Set(unlisted.map((entry) => entry.repo))];
    const where = [...new Set(unlisted.map((entry) => entry.path))];
    return line(
      "ci-fix-repos",
      LABEL,
      "warn",
      `CI_FIX_REPOS names ${listNames(repos)}, which ALLOWED_REPOS in ${listNames(where)} does not list: no run, follow-up or not, starts there`,
      `take ${repos.length > 1 ? "them" : "it"} out of CI_FIX_REPOS, or add ${repos.length > 1 ? "them" : "it"} to ALLOWED_REPOS in both configs`
    );
  }
  const accepted = agentSide.accepted;
  if (accepted.kind === "all") return line("ci-fix-repos", LABEL, "ok", `"*" in both: CI follow-ups wherever a repository's ${REPO_CONFIG_PATH} asks (${REMOTE_HINT})`);
  if (accepted.kind === "listed" && accepted.repos.size > 0) return line("ci-fix-repos", LABEL, "ok", `both accept CI follow-ups on ${listNames([...accepted.repos])} (${REMOTE_HINT})`);
  return line("ci-fix-repos", LABEL, "ok", "empty in both: no CI follow-ups, whatever a repository's file asks");
}

export type CiFixInput = {
  repo: string;
  defaultBranch: string;
  /** The repository's `.github/agent-think.yml`, as GitHub answered. */
  configFile: Read<RepoFile>;
  /** CI_FIX_REPOS as the doctor took it (the environment's, else the webhook app's config). */
  ciFixRepos: string | undefined;
  /** The CI secrets line's verdict for the repository. */
  ci: CiVerdict;
};

/** --remote: whether CI follow-ups run on the repository, and whether each would run CI that can reach secrets. */
export function ciFixCheck(input: CiFixInput): DoctorCheck {
  const label = `CI follow-ups (${input.repo})`;
  const accepted = parseCiFixRepos(input.ciFixRepos);
  if (accepted.kind === "invalid") return line("ci-fix", label, "warn", `${accepted.error}: no CI follow-up is accepted`, "fix CI_FIX_REPOS (the checkout's CI follow-up repositories line says where)");
  const listed = accepted.kind === "all" || accepted.repos.has(input.repo.toLowerCase());
  const asked = input.configFile.ok ? repoCiFixes(input.configFile.value) : null;
  const asks = asked?.ok && asked.fix > 0 ? `ci: { fix: ${asked.fix} }` : null;
  const file = `${REPO_CONFIG_PATH} on ${input.defaultBranch}`;
  if (listed && input.ci === "unsafe") {
    const state = asks ? `and ${file} asks for ${asks}` : asked?.ok ? `and ${file} does not ask for them yet` : `whatever ${file} asks`;
    const check = line(
      "ci-fix",
      label,
      "warn",
      `CI_FIX_REPOS accepts CI follow-ups here, ${state}, while the repository's CI can reach secrets (the CI secrets line): each follow-up's push runs it`,
      `confine the secrets as the CI secrets line says, or take ${input.repo} out of CI_FIX_REPOS in both configs (${CI_DOCS})`
    );
    return { ...check, unsafe: true };
  }
  if (!input.configFile.ok) {
    return line("ci-fix", label, "warn", `could not read ${file} (${refusal(input.configFile, NEEDS.contents)})`, "run again with a token that can read the repository's contents");
  }
  if (asked && !asked.ok) {
    return line("ci-fix", label, "warn", `${file} does not parse (${asked.errors[0]}): no CI follow-up starts`, "fix the file (docs/skills.md lists its fields)");
  }
  if (asks && !listed) {
    return line(
      "ci-fix",
      label,
      "warn",
      `${file} asks for ${asks}, but CI_FIX_REPOS does not list ${input.repo}: CI follow-ups are off there, since each would push to the App's branch and run the repository's CI`,
      input.ci === "safe"
        ? `the CI secrets line is ok: add ${input.repo} to CI_FIX_REPOS in wrangler.jsonc and ingress/wrangler.jsonc to turn them on`
        : `once the CI secrets line is ok, add ${input.repo} to CI_FIX_REPOS in wrangler.jsonc and ingress/wrangler.jsonc (${CI_DOCS})`
    );
  }
  if (asks && input.ci === "unknown") {
    return line("ci-fix", label, "warn", `on (${asks}, accepted by CI_FIX_REPOS), and whether each follow-up's CI can reach secrets could not be told (the CI secrets line)`, "see the CI secrets line");
  }
  if (asks) return line("ci-fix", label, "ok", `on (${asks}, accepted by CI_FIX_REPOS); no secret reaches the App's branches`);
  return line("ci-fix", label, "ok", `off: ${file} asks for none${listed ? " (CI_FIX_REPOS would accept them)" : ""}`);
}
