/**
 * Private package sources a repository names in `.github/agent-think.yml` (`registries:`), and
 * the operator's REGISTRY_SECRETS, which says which Worker secret each repository may name. The
 * file names a secret, never holds one; the gateway attaches it outside the sandbox, per request
 * (src/egress/registry-grants.ts). A `git` entry names private repositories of the same owner,
 * read with the run's read-only token minted for them too. docs/security.md, "Private
 * registries". Pure.
 */
import { z } from "zod";
import { hostPatternProblem } from "./host-allowlist";
import { shellQuote } from "./command-report";

export const REGISTRY_KINDS = ["npm", "bearer", "basic", "git"] as const;
export type RegistryKind = (typeof REGISTRY_KINDS)[number];
export const MAX_REGISTRIES = 10;
/** The most repositories `git` entries may name in all: the read token is minted for these and the run's. */
export const MAX_REGISTRY_REPOSITORIES = 10;
/** The methods a registry entry may name; GET and HEAD when it names none. */
export const REGISTRY_METHODS = ["GET", "HEAD", "POST", "PUT"] as const;
export type RegistryMethod = (typeof REGISTRY_METHODS)[number];

/** A Worker secret's name as wrangler takes it. */
const SECRET_NAME = /^[A-Z][A-Z0-9_]{0,63}$/;
/** The Worker's own secrets and settings: never a registry's credential. */
const RESERVED_SECRET = /^(?:GITHUB_|CLOUDFLARE_|CF_|OPENAI_|ANTHROPIC_|AI_GATEWAY_)|^(?:LOCAL_DEV|EGRESS|EGRESS_ALLOW|ALLOWED_REPOS|REGISTRY_SECRETS)$/;
const REPO = /^[a-z0-9](?:[a-z0-9-]{0,38})\/[a-z0-9._-]{1,100}$/;
const SCOPE = /^@[a-z0-9][a-z0-9._-]{0,213}$/;

/** A registry reached with a Worker secret: `npm` and `bearer` send it as a bearer token, `basic` as `user:password`. */
export type SecretRegistry = { kind: "npm" | "bearer" | "basic"; host: string; path: string; secret: string; methods: RegistryMethod[]; scope?: string };
/** Private repositories of the run's owner, cloned and fetched with the run's read-only token. */
export type GitRegistry = { kind: "git"; repositories: string[] };
/** One private source as the run's policy keeps it. */
export type RegistryEntry = SecretRegistry | GitRegistry;

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

const secretEntry = z.strictObject({
  kind: z.enum(["npm", "bearer", "basic"]),
  host,
  path: path.default("/"),
  secret: secretName,
  methods: methods.default(["GET", "HEAD"]),
  scope: z.string({ error: "must be an npm scope, such as @acme" }).regex(SCOPE, "must be an npm scope, such as @acme").optional()
});

const gitEntry = z.strictObject({
  kind: z.literal("git"),
  repositories: z
    .array(z.string({ error: "must be owner/name" }).transform((name) => name.toLowerCase()).pipe(z.string().regex(REPO, "must be owner/name")), {
      error: "must be a list of owner/name"
    })
    .min(1, "must name at least one repository")
    .max(MAX_REGISTRY_REPOSITORIES, `must name at most ${MAX_REGISTRY_REPOSITORIES} repositories`)
    .transform((names) => [...new Set(names)])
});

/** One entry, judged by its kind so every error names its field. */
const registryEntry = z.unknown().transform((value, ctx): RegistryEntry => {
  const isObject = value !== null && typeof value === "object" && !Array.isArray(value);
  const kind = isObject ? (value as { kind?: unknown }).kind : undefined;
  const schema = kind === "git" ? gitEntry : kind === "npm" || kind === "bearer" || kind === "basic" ? secretEntry : null;
  if (!schema) {
    const message = isObject ? `must be one of ${REGISTRY_KINDS.join(", ")}` : "must be { kind, host, secret } or { kind: git, repositories }";
    ctx.addIssue({ code: "custom", path: isObject ? ["kind"] : [], message });
    return z.NEVER;
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data as RegistryEntry;
  for (const issue of parsed.error.issues) ctx.addIssue({ ...issue } as Parameters<typeof ctx.addIssue>[0]);
  return z.NEVER;
});

export const registriesSchema = z
  .array(registryEntry, { error: "must be a list of registries" })
  .max(MAX_REGISTRIES, `must have at most ${MAX_REGISTRIES} entries`)
  .refine((entries) => new Set(entries.flatMap((entry) => (entry.kind === "git" ? entry.repositories : []))).size <= MAX_REGISTRY_REPOSITORIES, {
    message: `git entries must name at most ${MAX_REGISTRY_REPOSITORIES} repositories in all`
  });

/** One operator grant: `repo` (`owner/name` or `owner/*`) may use `value` (a secret's name, or another repository). */
export type OperatorGrant = { repo: string; value: string };
export type OperatorGrants = { grants: OperatorGrant[]; errors: string[] };
/** What the operator lets each repository use: REGISTRY_SECRETS (secrets' names) and REGISTRY_REPOS (other repositories). */
export type RegistryOperator = { secrets: readonly OperatorGrant[]; repos: readonly OperatorGrant[] };

const WILDCARD_REPO = /^[a-z0-9](?:[a-z0-9-]{0,38})\/\*$/;

/** `owner/name:VALUE` and `owner/*:VALUE` items, comma- or space-separated; `check` says what is wrong with a value, or null. */
function parseGrants(name: string, value: string | undefined, shape: string, check: (value: string) => string | null): OperatorGrants {
  const grants: OperatorGrant[] = [];
  const errors: string[] = [];
  for (const item of (value ?? "").split(/[\s,]+/).filter(Boolean)) {
    const colon = item.indexOf(":");
    const repo = colon < 0 ? "" : item.slice(0, colon).toLowerCase();
    const granted = colon < 0 ? "" : item.slice(colon + 1);
    const problem = REPO.test(repo) || WILDCARD_REPO.test(repo) ? check(granted) : "";
    if (problem === "") errors.push(`${name}: ${JSON.stringify(item)} is not ${shape}`);
    else if (problem !== null) errors.push(`${name}: ${problem}`);
    else grants.push({ repo, value: granted });
  }
  return { grants, errors };
}

/** REGISTRY_SECRETS: which repositories may name which Worker secret. */
export function parseRegistrySecrets(value: string | undefined): OperatorGrants {
  return parseGrants("REGISTRY_SECRETS", value, "owner/name:SECRET or owner/*:SECRET", (secret) =>
    !SECRET_NAME.test(secret) ? "" : RESERVED_SECRET.test(secret) ? `${secret} is one of agent-think's own secrets or settings, which no repository may use` : null
  );
}

/** REGISTRY_REPOS: which repositories' runs may also read which other repository of the same owner. */
export function parseRegistryRepos(value: string | undefined): OperatorGrants {
  return parseGrants("REGISTRY_REPOS", value, "owner/name:owner/other or owner/*:owner/other", (other) => (REPO.test(other.toLowerCase()) ? null : ""));
}

/** Whether the operator's grants let `repo` use `value`. */
export function granted(grants: readonly OperatorGrant[], repo: string, value: string): boolean {
  const name = repo.toLowerCase();
  const owner = name.split("/")[0];
  return grants.some((grant) => grant.value.toLowerCase() === value.toLowerCase() && (grant.repo === name || grant.repo === `${owner}/*`));
}

/** Why a repository's entry cannot be used as written, for its run's setup notice; null when it can. */
export function registryRefusal(entry: RegistryEntry, repo: string, operator: RegistryOperator, secretSet: (name: string) => boolean): string | null {
  const name = repo.toLowerCase();
  if (entry.kind === "git") {
    const owner = name.split("/")[0];
    const other = entry.repositories.find((listed) => listed.split("/")[0] !== owner);
    if (other) return `registries: ${other} is not ${owner}'s: a git entry names private repositories of the run's own owner (the App's installation there)`;
    if (entry.repositories.includes(name)) return `registries: a git entry names ${name} itself, which every run reads already`;
    const ungiven = entry.repositories.find((listed) => !granted(operator.repos, name, listed));
    return ungiven ? `registries: ${name} may not read ${ungiven}: the operator's REGISTRY_REPOS does not give it (ask for ${name}:${ungiven} there)` : null;
  }
  if (!granted(operator.secrets, name, entry.secret)) {
    return `registries: ${entry.host} names the secret ${entry.secret}, which the operator's REGISTRY_SECRETS does not give ${name} (ask for ${name}:${entry.secret} there)`;
  }
  if (!secretSet(entry.secret)) return `registries: ${entry.host} names the secret ${entry.secret}, which is not set on the agent Worker (npx wrangler secret put ${entry.secret})`;
  return null;
}

/** What the workspace block tells the model: each usable registry's address and scope, the other repositories it may read, and why any entry is not usable. */
export type RegistryFacts = { usable: { host: string; path: string; scope?: string }[]; repositories?: string[]; refused: string[] };

/** The facts for the entries a run may use (`usable`, as the resolution kept them; `repositories`, the git entries kept) and the reasons for the others. */
export function registryFacts(entries: readonly RegistryEntry[], usableHosts: ReadonlySet<string>, refused: readonly string[], repositories: readonly string[] = []): RegistryFacts | undefined {
  if (entries.length === 0) return undefined;
  const usable = entries
    .filter((entry): entry is SecretRegistry => entry.kind !== "git" && usableHosts.has(`${entry.host}${entry.path}`))
    .map((entry) => ({ host: entry.host, path: entry.path, ...(entry.scope ? { scope: entry.scope } : {}) }));
  return { usable, ...(repositories.length ? { repositories: [...repositories] } : {}), refused: [...refused] };
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
