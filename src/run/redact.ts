/**
 * What a token looks like, and taking it out of text and data before they leave a run (tool
 * results, the closing comment, command-center events, log lines, published pages): the exact
 * values a caller knows (the run's token, whatever its shape) and anything shaped like a GitHub
 * token (`ghs_`, `ghp_`, `gho_`, `ghu_`, `ghr_`, `github_pat_`), which catches one the run never
 * held. An encoded token is not found (docs/security.md, "Deliberately out of scope"). Pure.
 */
export const REDACTED = "[redacted]";

/** GitHub token shapes: installation (ghs_), OAuth/user/refresh (gho_, ghu_, ghr_), classic and fine-grained PATs. */
const GITHUB_TOKEN = /(?:gh[opsur]_|github_pat_)[A-Za-z0-9_]{16,}/g;

/** Exact secrets shorter than this are not replaced: they would match ordinary text. */
export const MIN_SECRET_CHARS = 8;

/** `text` with every known secret and every GitHub-token-shaped string replaced by "[redacted]". */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_CHARS) out = out.replaceAll(secret, REDACTED);
  }
  return out.replace(GITHUB_TOKEN, REDACTED);
}

/** Whether `text` holds a known secret or anything shaped like a GitHub token. */
export function holdsSecret(text: string, secrets: readonly string[] = []): boolean {
  GITHUB_TOKEN.lastIndex = 0;
  if (GITHUB_TOKEN.test(text)) return true;
  return secrets.some((secret) => secret.length >= MIN_SECRET_CHARS && text.includes(secret));
}

/**
 * Every string inside `value` (plain objects and arrays, to any depth)
 * redacted, in a copy; a value with nothing to redact comes back as it was.
 * Keys are left alone: they are ours, not data.
 */
export function redactDeep<T>(value: T, secrets: readonly string[] = []): T {
  return walk(value, secrets) as T;
}

function walk(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === "string") return redactSecrets(value, secrets);
  if (Array.isArray(value)) {
    const items = value.map((item) => walk(item, secrets));
    return items.every((item, i) => item === value[i]) ? value : items;
  }
  if (value !== null && typeof value === "object" && isPlain(value)) {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) {
      out[key] = walk(field, secrets);
      if (out[key] !== field) changed = true;
    }
    return changed ? out : value;
  }
  return value;
}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
