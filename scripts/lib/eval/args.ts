/**
 * `npm run eval` arguments: parsed and checked before anything is sent, each
 * error naming the flag. Pure: the environment is passed in.
 */
import { parseArgs } from "node:util";

export const USAGE = `npm run eval -- --target local|github [options]

  --target local           the local Worker (npm start) through the dispatch contract
  --target github          a deployed bot, through GitHub: needs --owner and --dashboard
  --owner NAME             github: the account or organization each case's repository is created under,
                           as NAME/agent-think-eval-<case id>: the only repositories written to
  --repo owner/name        local: run every case against this repository instead of its own
  --url URL                local: the Worker (default AGENT_THINK_URL or http://127.0.0.1:8787)
  --dashboard URL          github: the deployed agent Worker (its dashboard API gives each run's figures)
  --github-api URL         github: GitHub's API (default GITHUB_API_URL or https://api.github.com)
  --source-git BASE        github: where the cases' source repositories are cloned from, as
                           BASE/<owner>/<name>.git (default https://github.com; a directory works)
  --git-cache DIR          github: where the sources' mirrors are kept between runs
                           (default <the system's temporary directory>/agent-think-eval-sources)
  --push-to DIR            github: push each case's commit to a bare repository under DIR instead of
                           the repository created on GitHub (offline runs: the stand-in has no git server)
  --mention @handle        github: how the bot is mentioned (default @agent-think)
  --cases PATH             a directory of cases or one case file; repeatable (default evals/cases)
  --case ID                only this case; repeatable
  --scripted               append each case's scripted directives (the offline scripted model)
  --model ID               run every case on this model: model: in the repository's
                           .github/agent-think.yml (the Worker's MODELS_ALLOWED must allow it);
                           github: one commit to the sandbox, put back after; local: seeded in the stand-in
  --standin URL            local: the GitHub stand-in the local Worker reads (its GITHUB_API_URL),
                           where each case's issue is opened and --model seeds its repository's config
                           (default npm start's: http://127.0.0.1:GITHUB_STANDIN_PORT, 8790)
  --concurrency N          cases at a time (default 2)
  --cost-cap USD           no case starts once the runs cost this much in all (default 10)
  --out DIR                where report.json and report.html go (default eval-results/<time>)
  --compare FILE           an earlier report.json: show what changed
  --keep-open              github: keep each case's repository, its issue open and labelled

Environment: GITHUB_TOKEN (github: a token that may create, push to and delete
repositories under --owner; docs/eval.md lists its scopes),
CF_ACCESS_CLIENT_ID and CF_ACCESS_CLIENT_SECRET (github: an Access service
token for the dashboard API, when the Worker is behind Access).
Exit codes: 0 every case passed; 1 some did not; 2 a bad argument or case.`;

export type EvalArgs = {
  target: "local" | "github";
  /** local: every case against this repository. */
  repo?: string;
  /** github: where each case's repository is created. */
  owner?: string;
  /** github: where sources are cloned from (`<base>/<owner>/<name>.git`). */
  sourceGit: string;
  /** github: a directory of bare repositories to push to instead of GitHub. */
  pushTo?: string;
  /** github: where the sources' mirrors are kept. */
  gitCache?: string;
  url: string;
  dashboard?: string;
  githubApi: string;
  mention: string;
  cases: string[];
  only: string[];
  scripted: boolean;
  /** Every case on this model (`model:` in the repository's config). */
  model?: string;
  /** local: the GitHub stand-in's origin, where each case's issue is opened and `--model` seeds the config. */
  standin?: string;
  concurrency: number;
  costCapUsd: number;
  out?: string;
  compare?: string;
  keepOpen: boolean;
  token?: string;
  accessHeaders?: Record<string, string>;
};

export type ParsedEvalArgs = { ok: true; kind: "help" } | { ok: true; kind: "run"; args: EvalArgs } | { ok: false; error: string };

const REPO = /^[A-Za-z0-9-]+\/[A-Za-z0-9._-]+$/;
/** GitHub's account names: letters, digits and single hyphens. */
const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;
/** As repo-config.ts reads `model:`. */
const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$/;
const MENTION = /^@[A-Za-z0-9][A-Za-z0-9-]*(\[bot\])?$/;

export function parseEvalArgs(argv: string[], env: Record<string, string | undefined>): ParsedEvalArgs {
  let values: Record<string, string | string[] | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        target: { type: "string" },
        repo: { type: "string" },
        owner: { type: "string" },
        "source-git": { type: "string" },
        "push-to": { type: "string" },
        "git-cache": { type: "string" },
        url: { type: "string" },
        dashboard: { type: "string" },
        "github-api": { type: "string" },
        mention: { type: "string" },
        cases: { type: "string", multiple: true },
        case: { type: "string", multiple: true },
        scripted: { type: "boolean" },
        model: { type: "string" },
        standin: { type: "string" },
        concurrency: { type: "string" },
        "cost-cap": { type: "string" },
        out: { type: "string" },
        compare: { type: "string" },
        "keep-open": { type: "boolean" },
        help: { type: "boolean", short: "h" }
      }
    }));
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
  if (values.help) return { ok: true, kind: "help" };
  const target = values.target;
  if (target !== "local" && target !== "github") return { ok: false, error: "--target must be local or github" };
  const repo = values.repo as string | undefined;
  if (repo !== undefined && !REPO.test(repo)) return { ok: false, error: '--repo must be "owner/name"' };
  const owner = values.owner as string | undefined;
  if (owner !== undefined && !OWNER.test(owner)) return { ok: false, error: "--owner must be a GitHub account or organization name" };
  const sourceGit = (values["source-git"] as string | undefined) ?? "https://github.com";
  if (sourceGit === "" || sourceGit.startsWith("-")) return { ok: false, error: "--source-git must be a URL or a directory" };
  const concurrency = Number(values.concurrency ?? 2);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 16) return { ok: false, error: "--concurrency must be a whole number from 1 to 16" };
  const costCapUsd = Number(values["cost-cap"] ?? 10);
  if (!Number.isFinite(costCapUsd) || costCapUsd <= 0) return { ok: false, error: "--cost-cap must be an amount in US dollars above 0" };
  const mention = (values.mention as string | undefined) ?? "@agent-think";
  if (!MENTION.test(mention)) return { ok: false, error: "--mention must be an @handle, such as @agent-think" };
  const model = values.model as string | undefined;
  if (model !== undefined && !MODEL_ID.test(model)) return { ok: false, error: "--model must be a model id, such as gpt-5.5 or claude-opus-4-5" };
  const standin = values.standin === undefined ? undefined : checkedUrl(values.standin as string, "--standin");
  if (standin && !standin.ok) return standin;
  const url = checkedUrl((values.url as string | undefined) ?? (env.AGENT_THINK_URL || "http://127.0.0.1:8787"), "--url");
  if (!url.ok) return url;
  const githubApi = checkedUrl((values["github-api"] as string | undefined) ?? (env.GITHUB_API_URL || "https://api.github.com"), "--github-api");
  if (!githubApi.ok) return githubApi;
  const args: EvalArgs = {
    target,
    ...(repo === undefined ? {} : { repo }),
    ...(owner === undefined ? {} : { owner }),
    sourceGit,
    ...(values["push-to"] === undefined ? {} : { pushTo: values["push-to"] as string }),
    ...(values["git-cache"] === undefined ? {} : { gitCache: values["git-cache"] as string }),
    url: url.value,
    githubApi: githubApi.value,
    mention,
    cases: (values.cases as string[] | undefined) ?? ["evals/cases"],
    only: (values.case as string[] | undefined) ?? [],
    scripted: values.scripted === true,
    ...(model === undefined ? {} : { model }),
    ...(standin ? { standin: standin.value } : {}),
    concurrency,
    costCapUsd,
    ...(values.out === undefined ? {} : { out: values.out as string }),
    ...(values.compare === undefined ? {} : { compare: values.compare as string }),
    keepOpen: values["keep-open"] === true
  };
  if (target === "local") {
    for (const flag of ["dashboard", "keep-open", "owner", "source-git", "push-to", "git-cache"]) {
      if (values[flag] !== undefined) return { ok: false, error: `--${flag} is for --target github` };
    }
    // npm start runs the stand-in the local Worker reads on GITHUB_STANDIN_PORT (scripts/start.ts).
    return { ok: true, kind: "run", args: { ...args, standin: standin?.value ?? `http://127.0.0.1:${env.GITHUB_STANDIN_PORT || "8790"}` } };
  }
  if (standin !== undefined) return { ok: false, error: "--standin is for --target local" };
  if (repo !== undefined) return { ok: false, error: "--repo is for --target local: --target github creates each case's repository under --owner" };
  if (owner === undefined) return { ok: false, error: "--target github needs --owner NAME: the account or organization the harness creates each case's repository under" };
  if (values.dashboard === undefined) return { ok: false, error: "--target github needs --dashboard: the deployed agent Worker's URL" };
  const dashboard = checkedUrl(values.dashboard as string, "--dashboard");
  if (!dashboard.ok) return dashboard;
  const token = env.GITHUB_TOKEN;
  if (!token) return { ok: false, error: "--target github needs GITHUB_TOKEN: a token that may create and delete repositories under --owner (e.g. GITHUB_TOKEN=$(gh auth token))" };
  const id = env.CF_ACCESS_CLIENT_ID;
  const secret = env.CF_ACCESS_CLIENT_SECRET;
  if ((id === undefined) !== (secret === undefined)) return { ok: false, error: "set both CF_ACCESS_CLIENT_ID and CF_ACCESS_CLIENT_SECRET, or neither" };
  return {
    ok: true,
    kind: "run",
    args: {
      ...args,
      dashboard: dashboard.value,
      token,
      ...(id && secret ? { accessHeaders: { "CF-Access-Client-Id": id, "CF-Access-Client-Secret": secret } } : {})
    }
  };
}

function checkedUrl(text: string, flag: string): { ok: true; value: string } | { ok: false; error: string } {
  try {
    const url = new URL(text);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error();
    return { ok: true, value: text.replace(/\/+$/, "") };
  } catch {
    return { ok: false, error: `${flag} must be an http(s) URL` };
  }
}
