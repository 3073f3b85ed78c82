/**
 * Private package sources a repository names in `.github/agent-think.yml` (`registries:`), and
 * the operator's REGISTRY_SECRETS, which says which Worker secret each repository may name. The
 * file names a secret, never holds one; the gateway attaches it outside the sandbox, per request
 * (src/egress/registry-grants.ts). docs/security.md, "Private registries". Pure.
 */
import { z } from "zod";
import { hostPatternProblem } from "./host-allowlist";
import { shellQuote } from "./command-report";

export const REGISTRY_KINDS = ["npm", "bearer", "basic"] as const;
export type RegistryKind = (typeof REGISTRY_KINDS)[number];
export const MAX_REGISTRIES = 10;
/** The methods a registry entry may name; GET and HEAD when it names none. */
export const REGISTRY_METHODS = ["GET", "HEAD", "POST", "PUT"] as const;
export type RegistryMethod = (typeof REGISTRY_METHODS)[number];

/** A Worker secret's name as wrangler takes it. */
const SECRET_NAME = /^[A-Z][A-Z0-9_]{0,63}$/;
/** The Worker's own secrets and settings: never a registry's credential. */
const RESERVED_SECRET = /^(?:GITHUB_|CLOUDFLARE_|CF_|OPENAI_|ANTHROPIC_|AI_GATEWAY_)|^(?:LOCAL_DEV|EGRESS|EGRESS_ALLOW|ALLOWED_REPOS|REGISTRY_SECRETS)$/;
const REPO = /^[a-z0-9](?:[a-z0-9-]{0,38})\/[a-z0-9._-]{1,100}$/;
const SCOPE = /^@[a-z0-9][a-z0-9._-]{0,213}$/;

/** One private source as the run's policy keeps it: `npm` and `bearer` send the secret as a bearer token, `basic` as `user:password`. */
export type RegistryEntry = { kind: RegistryKind; host: string; path: string; secret: string; methods: RegistryMethod[]; scope?: string };

const secretName = z
  .string({ error: "must be the name of a Worker secret, such as NPM_TOKEN" })
  .regex(SECRET_NAME, "must be a Worker secret's name: capital letters, digits and _, such as NPM_TOKEN")
  .refine((name) => !RESERVED_SECRET.test(name), "names one of agent-think's own secrets or settings, which no repository may use");

const host = z.string({ error: "must be a host name" }).superRefine((value, ctx) => {
  if (value.includes("*")) ctx.addIssue({ code: "custom", message: "must be one host, not a pattern: a credential goes to exactly one host" });
  else {
    const problem = hostPatternProblem(value);
    if (problem) ctx.addIssue({ code: "custom", message: problem.message });
  }
});

const path = z
  .string({ error: 'must be a path, such as "/npm/"' })
  .regex(/^\/[A-Za-z0-9._~!$&'()*+,;=:@/-]*$/, 'must start with "/" and hold no query, fragment or percent-encoding')
  .refine((value) => !value.split("/").some((segment) => segment === ".." || segment === "."), "must hold no . or .. segment")
  .transform((value) => (value.endsWith("/") ? value : `${value}/`));

const methods = z
  .array(z.string().transform((name) => name.toUpperCase()).pipe(z.enum(REGISTRY_METHODS, { error: `must be one of ${REGISTRY_METHODS.join(", ")}` })), {
    error: "must be a list of methods, such as [GET, HEAD]"
  })
  .min(1, "must name at least one method")
  .transform((names): RegistryMethod[] => [...new Set(names)]);

const registryEntry = z.strictObject({
  kind: z.enum(REGISTRY_KINDS, { error: `must be one of ${REGISTRY_KINDS.join(", ")}` }),
  host,
  path: path.default("/"),
  secret: secretName,
  methods: methods.default(["GET", "HEAD"]),
  scope: z.string({ error: "must be an npm scope, such as @acme" }).regex(SCOPE, "must be an npm scope, such as @acme").optional()
}, { error: "must be { kind, host, secret }, with path, methods and scope if needed" });

export const registriesSchema = z
  .array(registryEntry, { error: "must be a list of registries, each { kind, host, secret }" })
  .max(MAX_REGISTRIES, `must have at most ${MAX_REGISTRIES} entries`);

/** REGISTRY_SECRETS: which repositories may name which secret (`owner/name:SECRET`, `owner/*:SECRET`), comma- or space-separated. */
export type RegistrySecretGrants = { grants: { repo: string; secret: string }[]; errors: string[] };

export function parseRegistrySecrets(value: string | undefined): RegistrySecretGrants {
  const grants: RegistrySecretGrants["grants"] = [];
  const errors: string[] = [];
  for (const item of (value ?? "").split(/[\s,]+/).filter(Boolean)) {
    const colon = item.lastIndexOf(":");
    const repo = colon < 0 ? "" : item.slice(0, colon).toLowerCase();
    const secret = colon < 0 ? "" : item.slice(colon + 1);
    const repoOk = REPO.test(repo) || /^[a-z0-9](?:[a-z0-9-]{0,38})\/\*$/.test(repo);
    if (!repoOk || !SECRET_NAME.test(secret)) errors.push(`REGISTRY_SECRETS: ${JSON.stringify(item)} is not owner/name:SECRET or owner/*:SECRET`);
    else if (RESERVED_SECRET.test(secret)) errors.push(`REGISTRY_SECRETS: ${secret} is one of agent-think's own secrets or settings, which no repository may use`);
    else grants.push({ repo, secret });
  }
  return { grants, errors };
}

/** Whether the operator lets `repo` name `secret`. */
export function secretAllowed(grants: RegistrySecretGrants["grants"], repo: string, secret: string): boolean {
  const name = repo.toLowerCase();
  const owner = name.split("/")[0];
  return grants.some((grant) => grant.secret === secret && (grant.repo === name || grant.repo === `${owner}/*`));
}

/** Why a repository's entry cannot be used as written, for its run's setup notice; null when it can. */
export function registryRefusal(entry: RegistryEntry, repo: string, grants: RegistrySecretGrants["grants"], secretSet: (name: string) => boolean): string | null {
  if (!secretAllowed(grants, repo, entry.secret)) {
    return `registries: ${entry.host} names the secret ${entry.secret}, which the operator's REGISTRY_SECRETS does not give ${repo.toLowerCase()} (ask for ${repo.toLowerCase()}:${entry.secret} there)`;
  }
  if (!secretSet(entry.secret)) return `registries: ${entry.host} names the secret ${entry.secret}, which is not set on the agent Worker (npx wrangler secret put ${entry.secret})`;
  return null;
}

/** What the workspace block tells the model of the registries: each usable one's address and scope, and why any other is not. */
export type RegistryFacts = { usable: { host: string; path: string; scope?: string }[]; refused: string[] };

/** The facts for the entries a run may use (`usable`, as the resolution kept them) and the reasons for the others. */
export function registryFacts(entries: readonly RegistryEntry[], usableHosts: ReadonlySet<string>, refused: readonly string[]): RegistryFacts | undefined {
  if (entries.length === 0) return undefined;
  const usable = entries
    .filter((entry) => usableHosts.has(`${entry.host}${entry.path}`))
    .map((entry) => ({ host: entry.host, path: entry.path, ...(entry.scope ? { scope: entry.scope } : {}) }));
  return { usable, refused: [...refused] };
}

/**
 * The container's user npmrc (npm, pnpm and yarn 1 read it) pointing each usable scope at its
 * registry, with no credential: the gateway attaches it. Null when no usable entry names a scope.
 */
export function npmrcScript(usable: RegistryFacts["usable"]): string | null {
  const lines = usable.filter((entry) => entry.scope).map((entry) => `${entry.scope}:registry=https://${entry.host}${entry.path}`);
  if (lines.length === 0) return null;
  return `printf '%s\\n' ${lines.map(shellQuote).join(" ")} > "$HOME/.npmrc"`;
}
