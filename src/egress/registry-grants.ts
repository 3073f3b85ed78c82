/**
 * A repository's private registries (src/run/registries.ts) as the egress gateway uses them:
 * each entry the operator's REGISTRY_SECRETS lets the repository name, with its secret set,
 * becomes a credential for one origin, one path prefix and its methods; the gateway attaches
 * it in place of whatever the sandbox sent, over HTTPS only, and never after a redirect (it
 * follows none). An entry that cannot be used says why. Pure.
 */
import { parseRegistryRepos, parseRegistrySecrets, registryRefusal, type RegistryEntry, type SecretRegistry } from "../run/registries";

/** A registry's credential as the grant carries it: the Authorization value, for requests to `origin` under `path`. */
export type RegistryGrant = { host: string; origin: string; path: string; methods: readonly string[]; authorization: string };

/** The credentials of the usable secret entries, the other repositories the usable git entries name, and why any entry is not usable. */
export type RegistryResolution = { grants: RegistryGrant[]; repositories: string[]; refusals: string[] };

/** The grants for a repository's entries, reading each named secret with `secret`; the entries that cannot be used, with why. */
export function registryGrants(
  entries: readonly RegistryEntry[],
  repo: string,
  settings: { registrySecrets?: string; registryRepos?: string },
  secret: (name: string) => string | undefined
): RegistryResolution {
  const allowed = { secrets: parseRegistrySecrets(settings.registrySecrets).grants, repos: parseRegistryRepos(settings.registryRepos).grants };
  const out: RegistryResolution = { grants: [], repositories: [], refusals: [] };
  for (const entry of entries) {
    if (entry.kind === "git") {
      const why = registryRefusal(entry, repo, allowed, () => false);
      if (why) out.refusals.push(why);
      else out.repositories.push(...entry.repositories.filter((name) => !out.repositories.includes(name)));
      continue;
    }
    const value = secret(entry.secret);
    const why = registryRefusal(entry, repo, allowed, () => value !== undefined && value !== "");
    if (why) {
      out.refusals.push(why);
      continue;
    }
    const authorization = authorizationFor(entry, value!);
    if (authorization === null) {
      out.refusals.push(`registries: ${entry.host} is a basic entry, so its secret ${entry.secret} must be user:password`);
      continue;
    }
    out.grants.push({ host: entry.host, origin: `https://${entry.host}`, path: entry.path, methods: entry.methods, authorization });
  }
  return out;
}

function authorizationFor(entry: SecretRegistry, value: string): string | null {
  if (entry.kind !== "basic") return `Bearer ${value}`;
  if (!value.includes(":")) return null;
  return `Basic ${btoa(String.fromCharCode(...new TextEncoder().encode(value)))}`;
}

/**
 * The path as a server that decodes it would read it, or null when that reading could leave a
 * prefix: a `.` or `..` segment (encoded or not), a backslash, or bad encoding. npm's encoded
 * slash (`@scope%2fname`) decodes to a plain segment and stays.
 */
function decodedPath(path: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return null;
  }
  if (decoded.includes("\\") || decoded.split("/").some((segment) => segment === "." || segment === "..")) return null;
  return decoded;
}

/** The registry a request is for: with its credential, or refused for its method; null when it is for none. */
export function registryMatch(grants: readonly RegistryGrant[], url: URL, method: string): { kind: "credential" | "method"; grant: RegistryGrant } | null {
  if (url.username || url.password) return null;
  const path = decodedPath(url.pathname);
  if (path === null) return null;
  for (const grant of grants) {
    if (url.origin !== grant.origin || !url.pathname.startsWith(grant.path) || !path.startsWith(grant.path)) continue;
    return { kind: grant.methods.includes(method) ? "credential" : "method", grant };
  }
  return null;
}

/** Only the grants a request to `url` could use: a grant holds no credential another host's request does not need. */
export function registryGrantsFor(grants: readonly RegistryGrant[], url: string): RegistryGrant[] {
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    return [];
  }
  return grants.filter((grant) => grant.origin === origin);
}
