/**
 * The console, redacted: our own log lines are redacted by the logger (log.ts); this catches
 * what libraries print inside our objects (Think's "Submission failed" quoting a token, an AI
 * SDK provider error). Installed once per isolate by the Worker's main module. The secrets are
 * the isolate's: each object holding a run's token registers it in `isolateSecrets` (a short
 * list, the newest win), and anything shaped like a GitHub token is redacted whoever held it.
 * An argument holding no secret passes untouched, so the console formats it as before.
 * Pure apart from the console it is given.
 */
import { holdsSecret, MIN_SECRET_CHARS, redactSecrets } from "./redact";

/** The isolate's known secrets: the tokens of the runs its objects hold. */
export class SecretRegistry {
  readonly #secrets: string[] = [];
  constructor(readonly capacity = 64) {}

  /** Remember a secret (kept until `capacity` newer ones push it out). */
  add(secret: string): void {
    if (secret.length < MIN_SECRET_CHARS) return;
    const at = this.#secrets.indexOf(secret);
    if (at >= 0) this.#secrets.splice(at, 1);
    this.#secrets.push(secret);
    if (this.#secrets.length > this.capacity) this.#secrets.shift();
  }

  list(): readonly string[] {
    return this.#secrets;
  }
}

export const isolateSecrets = new SecretRegistry();

const METHODS = ["log", "info", "warn", "error", "debug", "trace"] as const;
type ConsoleMethod = (typeof METHODS)[number];
export type GuardableConsole = Record<ConsoleMethod, (...args: unknown[]) => void>;

/** The redacting wrappers already installed: guarding twice wraps nothing twice. */
const guards = new WeakSet<object>();

/**
 * Replace the console's printing methods with ones that redact first.
 * Idempotent; a method someone replaced since (a test's spy) is wrapped
 * again, so what it records has been redacted too.
 */
export function guardConsole(target: GuardableConsole, secrets: () => readonly string[] = () => isolateSecrets.list()): void {
  for (const method of METHODS) {
    const print = target[method];
    if (typeof print !== "function" || guards.has(print)) continue;
    const guard = (...args: unknown[]) => {
      const known = secrets();
      print.apply(target, args.map((arg) => redactArgument(arg, known)));
    };
    guards.add(guard);
    target[method] = guard;
  }
}

/** The argument itself, or its redacted text when it holds a secret. */
export function redactArgument(arg: unknown, secrets: readonly string[]): unknown {
  if (typeof arg === "string") return redactSecrets(arg, secrets);
  if (arg === null || (typeof arg !== "object" && typeof arg !== "function")) return arg;
  const text = describe(arg);
  return holdsSecret(text, secrets) ? redactSecrets(text, secrets) : arg;
}

/** Everything of an object a console would print: an error's stack, message, cause and own fields; any other value's JSON. */
function describe(value: object, depth = 0): string {
  if (value instanceof Error) {
    const parts = [value.stack ?? `${value.name}: ${value.message}`];
    if (!parts[0]!.includes(value.message)) parts.push(value.message);
    const fields = json(Object.fromEntries(Object.entries(value)));
    if (fields !== "{}") parts.push(fields);
    const cause = (value as { cause?: unknown }).cause;
    if (cause !== undefined && depth < 3) parts.push(`cause: ${typeof cause === "object" && cause !== null ? describe(cause, depth + 1) : String(cause)}`);
    return parts.join("\n");
  }
  return json(value);
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
