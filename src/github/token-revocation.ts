/**
 * Revoking an installation token when its run no longer needs it:
 * `DELETE /installation/token`, authenticated with the token itself
 * (GitHub's REST reference, "Revoke an installation access token": 204
 * when revoked). A token GitHub no longer accepts (401) is already as good
 * as revoked. Never throws: a revocation that fails is reported, and the
 * token still expires within its hour.
 */
import { callGitHub, GitHubCallError, octokitFor } from "./client";

export type Revocation = "revoked" | "already-invalid" | "no-github" | { failed: string };

export async function revokeInstallationToken(apiUrl: string, token: string, send?: typeof fetch): Promise<Revocation> {
  if (!apiUrl.trim() || !token) return "no-github";
  const octokit = octokitFor({ baseUrl: apiUrl, token, ...(send ? { fetch: send } : {}) });
  try {
    await callGitHub("revoke token", () => octokit.rest.apps.revokeInstallationAccessToken());
    return "revoked";
  } catch (error) {
    if (error instanceof GitHubCallError && error.status === 401) return "already-invalid";
    return { failed: error instanceof Error ? error.message : String(error) };
  }
}
