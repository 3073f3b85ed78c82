/**
 * The allowed-repositories line: which repositories the agent Worker will
 * run on, by the rule dispatch and Continue apply (src/run/repo-allowlist.ts).
 * A list that does not parse blocks, and so does an empty one outside local
 * dev (every run refused); an empty one under LOCAL_DEV=1 allows any, which
 * the local-dev line already warns about. The webhook app keeps its own
 * copy of the list: `npm run doctor` compares the two. Pure.
 */
import type { HealthCheck } from "../shared/health";
import { resolveAllowlist, type AllowlistConfig } from "../run/repo-allowlist";
import { HEALTH_LABELS } from "./labels";

const LABEL = HEALTH_LABELS["allowed-repos"];
const FIX = 'set ALLOWED_REPOS in wrangler.jsonc to "owner/name,owner/other", the same list as the webhook app\'s';

export function allowedReposHealth(env: AllowlistConfig): HealthCheck {
  const line = (status: HealthCheck["status"], detail: string, fix?: string): HealthCheck => ({
    id: "allowed-repos",
    label: LABEL,
    status,
    detail,
    ...(fix ? { fix } : {})
  });
  const allowlist = resolveAllowlist(env);
  switch (allowlist.kind) {
    case "listed":
      return line("ok", [...allowlist.repos].join(", "));
    case "any":
      return line("ok", "ALLOWED_REPOS is empty: with LOCAL_DEV=1 runs may be on any repository");
    case "none":
      return line("block", "ALLOWED_REPOS is empty: the agent Worker refuses every dispatch and Continue", FIX);
    case "invalid":
      return line("block", `${allowlist.error}: the agent Worker refuses every dispatch and Continue`, FIX);
  }
}
