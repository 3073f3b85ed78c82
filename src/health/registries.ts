/**
 * The registries' part of the sandbox network's line: the operator's REGISTRY_SECRETS and
 * REGISTRY_REPOS read as the runs read them (src/run/registries.ts), and every secret named
 * there set on the Worker. A malformed item or an unset secret is a problem (runs whose
 * repositories name it get a refusal, not a credential); none is a summary. Pure.
 */
import { parseRegistryRepos, parseRegistrySecrets } from "../run/registries";

export type RegistriesPart = { summary: string | null; problems: string[] };

export function registriesPart(env: { REGISTRY_SECRETS?: string; REGISTRY_REPOS?: string }, secretSet: (name: string) => boolean): RegistriesPart {
  const secrets = parseRegistrySecrets(env.REGISTRY_SECRETS);
  const repos = parseRegistryRepos(env.REGISTRY_REPOS);
  const names = [...new Set(secrets.grants.map((grant) => grant.value))].sort();
  const unset = names.filter((name) => !secretSet(name));
  const problems = [
    ...secrets.errors,
    ...repos.errors,
    ...unset.map((name) => `REGISTRY_SECRETS names ${name}, which is not set on this Worker (npx wrangler secret put ${name})`)
  ];
  if (names.length === 0 && repos.grants.length === 0) return { summary: null, problems };
  const parts = [
    ...(names.length ? [`${names.length} registry secret${names.length === 1 ? "" : "s"} (${names.join(", ")})`] : []),
    ...(repos.grants.length ? [`${repos.grants.length} other repositor${repos.grants.length === 1 ? "y" : "ies"} to read`] : [])
  ];
  return { summary: `private registries: ${parts.join(" and ")} given by the operator`, problems };
}
