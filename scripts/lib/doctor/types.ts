/**
 * What `npm run doctor` checks and answers: a checkout as read from disk
 * (checkout.ts reads it; every check takes the part it needs), and the
 * lines it reports. A line has the health report's shape
 * (src/shared/health.ts), so the Worker's own checks can answer for a
 * config; checkout-only checks add their own ids. Types and one helper.
 */
import type { HealthCheck, HealthStatus } from "../../../src/shared/health";

/** A line of the doctor's report: the health report's, with the checkout's own ids too. */
export type DoctorCheck = Omit<HealthCheck, "id"> & { id: string };

export type ServiceBinding = { binding: string; service: string; entrypoint?: string };

/** The parts of a wrangler config the checks read (wrangler's raw config, unvalidated). */
export type WorkerConfig = {
  name?: string;
  main?: string;
  compatibility_date?: string;
  compatibility_flags?: string[];
  services?: ServiceBinding[];
  r2_buckets?: Array<{ binding: string; bucket_name?: string }>;
  containers?: Array<{ class_name: string }>;
  vars?: Record<string, unknown>;
  secrets?: { required?: string[] };
};

/** What workerd said about one config's date and flags, or why it could not be asked. */
export type FlagsVerdict = { experimental: string[]; unknown: string[]; failure?: string };

/** The skills as `npm run seed:r2` reads them: the skill directories, or why it would refuse. */
export type SkillsTree = { ok: true; skills: string[] } | { ok: false; problems: string[] };

/** A dotenv file that exists: which one, and what it sets. */
export type LocalVars = { file: string; vars: Record<string, string> };

export type Checkout = {
  /** Where it was read from, for the report's title. */
  root: string;
  /** wrangler.jsonc */
  agent: WorkerConfig;
  /** ingress/wrangler.jsonc */
  ingress: WorkerConfig;
  /** The names each Worker's main module exports (classes and re-exports). */
  agentExports: string[];
  ingressExports: string[];
  /** workerd's answer for each config's date and flags (deployable-flags.ts). */
  agentFlags: FlagsVerdict;
  ingressFlags: FlagsVerdict;
  /** The secret names `.env_example` and `ingress/.env_example` list. */
  agentSecrets: string[];
  ingressSecrets: string[];
  /** What `wrangler dev` would load as local secrets for each Worker; null when there is no such file. */
  agentLocal: LocalVars | null;
  ingressLocal: LocalVars | null;
  skills: SkillsTree;
};

export const AGENT_CONFIG = "wrangler.jsonc";
export const INGRESS_CONFIG = "ingress/wrangler.jsonc";

/** A line; the fix is kept only where the health report keeps it, on warn and block. */
export function line(id: string, label: string, status: HealthStatus, detail: string, fix?: string): DoctorCheck {
  return fix === undefined || status === "ok" ? { id, label, status, detail } : { id, label, status, detail, fix };
}

/** A config's vars as strings (a JSON var is not something these checks read). */
export function varsOf(config: WorkerConfig): Record<string, string> {
  return Object.fromEntries(Object.entries(config.vars ?? {}).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}

export function listNames(names: readonly string[]): string {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}
