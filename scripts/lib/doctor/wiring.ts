/**
 * The two Workers' configs against each other, and the webhook app's own
 * settings: the service bindings each names, one GitHub for both, one
 * compatibility date, one allowlist, the mention and size settings, and
 * BOT_LOGIN. Where a Worker already has the rule (the webhook app's
 * readConfig, the agent's parseGitHubApiUrl and githubHealth), the check
 * calls it instead of restating it. Pure.
 */
import { ConfigError, parseAllowedRepos, readConfig } from "../../../ingress/src/config";
import { githubHealth } from "../../../src/health/github";
import { HEALTH_LABELS } from "../../../src/health/labels";
import { resolveAllowlist } from "../../../src/run/repo-allowlist";
import { parseGitHubApiUrl } from "../../../src/shared/github-urls";
import { checkBotLogin } from "../../../src/shared/repo";
import { AGENT_CONFIG, INGRESS_CONFIG, line, listNames, varsOf, type DoctorCheck, type WorkerConfig } from "./types";

/** The entrypoints each Worker exports for the other (src/index.ts, ingress/src/index.ts). */
export const AGENT_ENTRYPOINT = "AgentThink";
export const BROKER_ENTRYPOINT = "AgentThinkTokenBroker";

type Pair = { agent: WorkerConfig; ingress: WorkerConfig };

/**
 * The agent's GITHUB_AUTH names the webhook app and its token broker; the
 * webhook app's AGENT_THINK names the agent and its AgentThink entrypoint;
 * and each entrypoint is exported by the Worker it names.
 */
export function bindingsCheck(input: Pair & { agentExports: readonly string[]; ingressExports: readonly string[] }): DoctorCheck {
  const { agent, ingress } = input;
  const problems: string[] = [];
  const expectBinding = (from: string, config: WorkerConfig, binding: string, target: { config: WorkerConfig; what: string; exports: readonly string[] }, entrypoint: string) => {
    const found = (config.services ?? []).find((service) => service.binding === binding);
    const wanted = `${target.config.name ?? "(no name)"}#${entrypoint}`;
    if (!found) problems.push(`${from} has no ${binding} service binding (wanted ${wanted})`);
    else if (found.service !== target.config.name || found.entrypoint !== entrypoint) {
      problems.push(`${from}'s ${binding} names ${found.service}${found.entrypoint ? `#${found.entrypoint}` : " (no entrypoint)"}, not ${wanted}`);
    }
    if (!target.exports.includes(entrypoint)) problems.push(`${target.what}'s main module does not export ${entrypoint}`);
  };
  expectBinding(AGENT_CONFIG, agent, "GITHUB_AUTH", { config: ingress, what: "the webhook app", exports: input.ingressExports }, BROKER_ENTRYPOINT);
  expectBinding(INGRESS_CONFIG, ingress, "AGENT_THINK", { config: agent, what: "the agent Worker", exports: input.agentExports }, AGENT_ENTRYPOINT);
  if (problems.length === 0) {
    return line("bindings", "Service bindings", "ok", `${agent.name} binds ${ingress.name}#${BROKER_ENTRYPOINT}; ${ingress.name} binds ${agent.name}#${AGENT_ENTRYPOINT}`);
  }
  return line(
    "bindings",
    "Service bindings",
    "block",
    `${problems.join("; ")}: dispatch or token renewal cannot reach the other Worker`,
    `bind GITHUB_AUTH to { "service": "${ingress.name}", "entrypoint": "${BROKER_ENTRYPOINT}" } and AGENT_THINK to { "service": "${agent.name}", "entrypoint": "${AGENT_ENTRYPOINT}" }`
  );
}

const FIX_SAME_URL = "set the same GITHUB_API_URL in wrangler.jsonc and ingress/wrangler.jsonc";
const normalizeUrl = (value: string | undefined) => (value ?? "").trim().replace(/\/+$/, "");

/**
 * One GitHub for both: the webhook app mints tokens there, the agent posts
 * and pushes there. The agent's own value is judged as its health report
 * judges a deploy (githubHealth: empty warns, a value that names no GitHub
 * or a loopback address blocks).
 */
export function githubCheck({ agent, ingress }: Pair): DoctorCheck {
  const agentUrl = normalizeUrl(varsOf(agent).GITHUB_API_URL);
  const ingressUrl = normalizeUrl(varsOf(ingress).GITHUB_API_URL);
  const own = { ...githubHealth({ GITHUB_API_URL: agentUrl, LOCAL_DEV: "" }), label: HEALTH_LABELS.github };
  if (own.status === "block") return { ...own, detail: `wrangler.jsonc: ${own.detail}` };
  const ingressParsed = ingressUrl === "" ? { ok: false as const, error: "GITHUB_API_URL is empty" } : parseGitHubApiUrl(ingressUrl);
  if (!ingressParsed.ok) {
    return line("github", HEALTH_LABELS.github, "block", `ingress/wrangler.jsonc: ${ingressParsed.error}: the webhook app cannot mint tokens`, FIX_SAME_URL);
  }
  if (agentUrl === "") {
    return line(
      "github",
      HEALTH_LABELS.github,
      "warn",
      `the agent Worker's GITHUB_API_URL is empty: runs post nothing to GitHub, while the webhook app works on ${ingressParsed.github.host}`,
      FIX_SAME_URL
    );
  }
  if (agentUrl.toLowerCase() !== ingressUrl.toLowerCase()) {
    return line(
      "github",
      HEALTH_LABELS.github,
      "block",
      `the agent Worker's GITHUB_API_URL is ${agentUrl}, the webhook app's ${ingressUrl}: tokens minted on one GitHub are used on the other`,
      FIX_SAME_URL
    );
  }
  return line("github", HEALTH_LABELS.github, "ok", `both Workers on ${agentUrl} (${own.detail})`);
}

/** Both Workers on one runtime behaviour (ingress/wrangler.jsonc says why it keeps the agent's date). */
export function compatibilityDateCheck({ agent, ingress }: Pair): DoctorCheck {
  const label = "Compatibility date";
  const missing = [agent.compatibility_date ? null : AGENT_CONFIG, ingress.compatibility_date ? null : INGRESS_CONFIG].filter((path) => path !== null);
  if (missing.length > 0) {
    return line("compatibility-date", label, "block", `${listNames(missing)} sets no compatibility_date`, "set the same compatibility_date in both configs");
  }
  if (agent.compatibility_date !== ingress.compatibility_date) {
    return line(
      "compatibility-date",
      label,
      "warn",
      `the agent Worker runs on ${agent.compatibility_date}, the webhook app on ${ingress.compatibility_date}: the two behave as different runtimes`,
      "set the same compatibility_date in both configs"
    );
  }
  return line("compatibility-date", label, "ok", `both on ${agent.compatibility_date}`);
}

/**
 * ALLOWED_REPOS in both configs: the webhook app's as it parses it, the
 * agent Worker's as dispatch and Continue apply it with LOCAL_DEV off
 * (src/run/repo-allowlist.ts). Either one unparseable blocks. The two
 * should be one list: a repository only the webhook app allows blocks (its
 * mentions are accepted, then the agent refuses the run), and so does one
 * only the agent allows (its mentions are ignored). Both empty, as the
 * template ships, blocks: every mention is ignored.
 */
export function allowlistCheck({ agent, ingress }: Pair): DoctorCheck {
  const label = HEALTH_LABELS["allowed-repos"];
  const fix = 'set the same ALLOWED_REPOS, "owner/name,owner/other", in wrangler.jsonc and ingress/wrangler.jsonc';
  let webhook: ReadonlySet<string>;
  try {
    webhook = parseAllowedRepos(varsOf(ingress).ALLOWED_REPOS ?? "");
  } catch (error) {
    return line("allowlist", label, "block", `${INGRESS_CONFIG}: ${configErrorText(error)}: the webhook app answers 500 to every delivery`, fix);
  }
  const own = resolveAllowlist({ ALLOWED_REPOS: varsOf(agent).ALLOWED_REPOS ?? "", LOCAL_DEV: "" });
  if (own.kind === "invalid") return line("allowlist", label, "block", `${AGENT_CONFIG}: ${own.error}: the agent Worker refuses every dispatch and Continue`, fix);
  const runs = own.kind === "listed" ? own.repos : new Set<string>();
  if (webhook.size === 0 && runs.size === 0) {
    return line("allowlist", label, "block", "ALLOWED_REPOS is empty in both configs: the webhook app ignores every repository and the agent Worker refuses every run", fix);
  }
  const refused = [...webhook].filter((repo) => !runs.has(repo));
  if (refused.length > 0) {
    return line(
      "allowlist",
      label,
      "block",
      `the webhook app allows ${refused.join(", ")}, which the agent Worker's ALLOWED_REPOS (${AGENT_CONFIG}) ${runs.size === 0 ? "leaves empty" : "lacks"}: its mentions are accepted, then the agent Worker refuses their runs`,
      fix
    );
  }
  const ignored = [...runs].filter((repo) => !webhook.has(repo));
  if (ignored.length > 0) {
    return line(
      "allowlist",
      label,
      "block",
      `the agent Worker allows ${ignored.join(", ")}, which the webhook app's ALLOWED_REPOS (${INGRESS_CONFIG}) ${webhook.size === 0 ? "leaves empty" : "lacks"}: mentions there are ignored`,
      fix
    );
  }
  return line("allowlist", label, "ok", `both Workers allow ${[...webhook].join(", ")}`);
}

/**
 * The webhook app's other settings (MENTION_HANDLE, MAX_BODY_BYTES, ...)
 * through its own readConfig. The allowlist, GITHUB_API_URL and BOT_LOGIN
 * have lines of their own, so valid stand-ins replace them here and one
 * mistake is reported once.
 */
export function webhookSettingsCheck({ ingress }: Pick<Pair, "ingress">): DoctorCheck {
  const label = "Webhook app settings";
  try {
    const config = readConfig({ ...varsOf(ingress), ALLOWED_REPOS: "", GITHUB_API_URL: "https://api.github.com", BOT_LOGIN: "" });
    const handle = config.handle || "the App's own @<slug> (MENTION_HANDLE unset)";
    return line("webhook-settings", label, "ok", `mention ${handle}; deliveries up to ${config.maxBodyBytes} bytes`);
  } catch (error) {
    return line("webhook-settings", label, "block", `${configErrorText(error)}: the webhook app answers 500 to every delivery`, "fix that variable in ingress/wrangler.jsonc");
  }
}

/** BOT_LOGIN is no longer needed: the webhook app learns the App's bot from GitHub and sends it with each dispatch. */
export function botLoginCheck({ agent, ingress }: Pair): DoctorCheck {
  const label = "Bot login";
  const set = [
    { path: AGENT_CONFIG, value: varsOf(agent).BOT_LOGIN?.trim() ?? "" },
    { path: INGRESS_CONFIG, value: varsOf(ingress).BOT_LOGIN?.trim() ?? "" }
  ].filter((entry) => entry.value !== "");
  if (set.length === 0) return line("bot-login", label, "ok", "not set: the webhook app learns the App's bot from GitHub");
  const invalid = set.find((entry) => !checkBotLogin(entry.value.toLowerCase()).ok);
  if (invalid) {
    const reason = checkBotLogin(invalid.value.toLowerCase());
    return line(
      "bot-login",
      label,
      "block",
      `${invalid.path}: BOT_LOGIN ${reason.ok ? "" : reason.reason}`,
      "remove BOT_LOGIN (the App's bot is learned from GitHub), or set it to <app-slug>[bot]"
    );
  }
  return line(
    "bot-login",
    label,
    "warn",
    `BOT_LOGIN is set in ${listNames(set.map((entry) => entry.path))}: no longer needed, since the webhook app learns the App's bot from GitHub; a stale value only logs a mismatch`,
    "remove BOT_LOGIN, unless a caller other than the webhook app dispatches (README, Configuration)"
  );
}

function configErrorText(error: unknown): string {
  if (error instanceof ConfigError) return error.message;
  throw error;
}
