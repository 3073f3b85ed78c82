/**
 * The GitHub line of the health report: which GitHub `GITHUB_API_URL` names
 * (src/shared/github-urls.ts decides), or why it names none. Only the
 * setting is read; whether GitHub answers is not asked, so opening the
 * dashboard never spends the App's rate limit. Pure.
 */
import type { HealthCheck } from "../shared/health";
import { HEALTH_LABELS } from "./labels";
import { isLoopbackHost, parseGitHubApiUrl } from "../shared/github-urls";

const LABEL = HEALTH_LABELS.github;
const FIX = "set GITHUB_API_URL to https://api.github.com, https://api.<subdomain>.ghe.com or https://<host>/api/v3";

export function githubHealth(env: { GITHUB_API_URL?: string; LOCAL_DEV?: string }): HealthCheck {
  const raw = (env.GITHUB_API_URL ?? "").trim();
  const localDev = env.LOCAL_DEV === "1";
  if (raw === "") {
    return {
      id: "github",
      label: LABEL,
      status: "warn",
      detail: "GITHUB_API_URL is empty: runs post nothing to GitHub (no reactions, no closing comment)",
      fix: localDev ? "npm start runs the local GitHub stand-in and sets GITHUB_API_URL to it" : FIX
    };
  }
  const parsed = parseGitHubApiUrl(raw);
  if (!parsed.ok) return { id: "github", label: LABEL, status: "block", detail: parsed.error, fix: FIX };
  const { kind, host } = parsed.github;
  const local = isLoopbackHost(new URL(raw).hostname);
  if (local && !localDev) {
    return {
      id: "github",
      label: LABEL,
      status: "block",
      detail: `GITHUB_API_URL is a loopback address (${host}), which a deployed Worker cannot reach`,
      fix: FIX
    };
  }
  const what = local ? `a local GitHub stand-in at ${new URL(raw).host}` : kind === "github.com" ? "github.com" : `${kind === "ghe.com" ? "GHE.com" : "GitHub Enterprise Server"} at ${host}`;
  return { id: "github", label: LABEL, status: "ok", detail: `posts to ${what}` };
}
