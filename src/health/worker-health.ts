/**
 * The agent Worker's health report, wired from its `env`: each check of
 * src/shared/health.ts gets the binding or settings it reads, and
 * run-checks.ts runs them side by side with their deadlines. Used by
 * `GET /api/health` (src/index.ts → src/http/api-routes.ts). Nothing here
 * writes; the model's check makes one small model call through the gateway,
 * and the installations check has the broker mint read-only tokens it drops
 * unread, both cached. The secrets named by `secretValues` are redacted.
 */
import { liveModelHealth } from "../model/health";
import { probeGateway } from "../model/probe";
import { createProbeCache } from "../model/probe-cache";
import { containerEngine, ENGINE_PROBE_SANDBOX } from "../pool/engine";
import { listSkills, skillSource } from "../run/skills";
import { HEALTH_CHECK_IDS, type HealthCheckId, type HealthReport } from "../shared/health";
import { sandboxStub } from "../sandbox";
import { warmPool } from "../warm-pool";
import { commandCenter } from "../command-center";
import { accessHealth } from "./access";
import { allowedReposHealth } from "./allowed-repos";
import { containersHealth } from "./containers";
import { costsHealth } from "./costs";
import { egressHealth } from "./egress";
import { githubHealth } from "./github";
import { HEALTH_LABELS } from "./labels";
import { createInstallationCache, installationsHealth, type InstallationBroker } from "./installations";
import { localDevHealth } from "./local-dev";
import { publicUrlHealth } from "./public-url";
import { reprosHealth } from "./repros";
import { errorText, HEALTH_PROBE_TIMEOUT_MS, runHealthChecks, withTimeout, type HealthProbe } from "./run-checks";
import { skillsHealth, type SkillsProbe } from "./skills";
import { tokenBrokerHealth, type TokenBrokerProbe } from "./token-broker";

/** Env vars whose values are secrets (or close enough: the Access AUD tag), by name. */
const SECRET_NAME = /(?:TOKEN|KEY|SECRET|PASSWORD|AUD)$/;

/** The string values of `env` held under a secret's name. */
export function secretValues(env: object): string[] {
  return Object.entries(env)
    .filter(([name, value]) => SECRET_NAME.test(name) && typeof value === "string" && value !== "")
    .map(([, value]) => value as string);
}

/** The gateway probe's answers, per isolate (src/model/probe-cache.ts). */
const gatewayProbes = createProbeCache();
/** The App installations line's answers per repository, per isolate (src/health/installations.ts). */
const installations = createInstallationCache();

export type WorkerHealthOptions = { now?: () => number; probeTimeoutMs?: number; checkTimeoutMs?: number };

export async function workerHealth(env: Env, options: WorkerHealthOptions = {}): Promise<HealthReport> {
  const localDev = env.LOCAL_DEV === "1";
  const secrets = secretValues(env);
  const timeoutMs = options.probeTimeoutMs ?? HEALTH_PROBE_TIMEOUT_MS;
  // Bindings are read loosely: a deploy that lacks one has `undefined` where Env promises it.
  const bindings = env as Partial<Env>;
  const run: Record<HealthCheckId, HealthProbe["run"]> = {
    model: () =>
      liveModelHealth(env, (config) =>
        gatewayProbes.get(config, () => probeGateway(config, { fetch: (input, init) => fetch(input, init), timeoutMs, now: () => Date.now() }))
      ),
    github: () => githubHealth(env),
    "allowed-repos": () => allowedReposHealth(env),
    "token-broker": () => tokenBrokerHealth(bindings.GITHUB_AUTH as unknown as TokenBrokerProbe | undefined, { localDev, timeoutMs, secrets }),
    installations: () =>
      installationsHealth(env, bindings.GITHUB_AUTH as unknown as InstallationBroker | undefined, { localDev, now: Date.now(), cache: installations, timeoutMs, secrets }),
    skills: async () => skillsHealth(await probeSkills(bindings.SKILLS_BUCKET, timeoutMs, secrets), { localDev }),
    repros: () => reprosHealth(bindings.REPROS, { timeoutMs, secrets }),
    containers: async () => containersHealth(await probeContainers(env, timeoutMs), { localDev, timeoutMs, secrets }),
    costs: async () =>
      costsHealth(env, async () => (await commandCenter(env)).monthlySpend(), {
        now: Date.now(),
        timeoutMs,
        secrets,
        // Today's reporter-tier runs apart, from the metrics the dashboard reads.
        reporterSpend: async () => (await (await commandCenter(env)).snapshot({ limit: 1 })).metrics.reporterSpendToday ?? []
      }),
    egress: () => egressHealth(env, (name) => typeof (env as unknown as Record<string, unknown>)[name] === "string" && (env as unknown as Record<string, string>)[name] !== ""),
    access: () => accessHealth(env, { localDev }),
    "public-url": () => publicUrlHealth(env, { localDev }),
    "local-dev": () => localDevHealth(env)
  };
  const probes = HEALTH_CHECK_IDS.map((id): HealthProbe => ({ id, label: HEALTH_LABELS[id], run: run[id] }));
  return await runHealthChecks(probes, {
    now: options.now ?? (() => Date.now()),
    secrets,
    ...(options.checkTimeoutMs !== undefined ? { timeoutMs: options.checkTimeoutMs } : {})
  });
}

/** Containers off, on with the pool's stats, or (local dev only) on without an engine: a Sandbox is asked. */
async function probeContainers(env: Env, timeoutMs: number): Promise<Parameters<typeof containersHealth>[0]> {
  const engine = await containerEngine(env, () => withTimeout(sandboxStub(env, ENGINE_PROBE_SANDBOX).hasContainer(), timeoutMs, "the Sandbox"));
  if (engine === "off") return { enabled: false };
  if (engine === "absent") return { enabled: false, engine: "absent" };
  return { enabled: true, stats: () => warmPool(env).stats() };
}

async function probeSkills(bucket: R2Bucket | undefined, timeoutMs: number, secrets: readonly string[]): Promise<SkillsProbe> {
  if (bucket === undefined) return { kind: "unbound" };
  try {
    return { kind: "listed", listing: await withTimeout(listSkills(skillSource(bucket)), timeoutMs, "SKILLS_BUCKET") };
  } catch (error) {
    return { kind: "failed", error: errorText(error, secrets) };
  }
}
