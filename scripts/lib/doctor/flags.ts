/**
 * The compatibility flags of both configs, as Cloudflare will judge them on
 * deploy: the installed workerd's answer without --experimental
 * (deployable-flags.ts, the same run test/unit/compat-flags.test.ts makes)
 * and the table of flags with a recorded reason. Experimental or unknown:
 * the deploy is refused, so it blocks. A flag workerd accepts but nobody
 * recorded a reason for warns (compat-flags.test.ts fails until one is).
 * Pure: the workerd runs happen in checkout.ts.
 */
import { DEPLOYABLE_FLAGS } from "../deployable-flags";
import { AGENT_CONFIG, INGRESS_CONFIG, line, listNames, type DoctorCheck, type FlagsVerdict, type WorkerConfig } from "./types";

const LABEL = "Compatibility flags";

type ConfigFlags = { path: string; config: WorkerConfig; verdict: FlagsVerdict };

export function flagsCheck(input: { agent: WorkerConfig; ingress: WorkerConfig; agentFlags: FlagsVerdict; ingressFlags: FlagsVerdict }): DoctorCheck {
  const configs: ConfigFlags[] = [
    { path: AGENT_CONFIG, config: input.agent, verdict: input.agentFlags },
    { path: INGRESS_CONFIG, config: input.ingress, verdict: input.ingressFlags }
  ];
  const refused = configs.flatMap(({ path, verdict }) => [
    ...verdict.experimental.map((flag) => `${path}: ${flag} is experimental`),
    ...verdict.unknown.map((flag) => `${path}: ${flag} is not a compatibility flag`)
  ]);
  if (refused.length > 0) {
    return line(
      "flags",
      LABEL,
      "block",
      `${refused.join("; ")}: Cloudflare refuses to deploy it, although wrangler dev runs it`,
      "remove the flag from compatibility_flags (docs/containers.md says why each flag is there)"
    );
  }
  const failures = configs.filter(({ verdict }) => verdict.failure !== undefined).map(({ path, verdict }) => `${path}: ${verdict.failure}`);
  if (failures.length > 0) {
    return line("flags", LABEL, "warn", `workerd could not judge the flags: ${failures.join("; ")}`, "npm run test:unit -- compat-flags runs the same check");
  }
  const unrecorded = configs.flatMap(({ path, config }) =>
    (config.compatibility_flags ?? []).filter((flag) => !(flag in DEPLOYABLE_FLAGS)).map((flag) => `${path}: ${flag}`)
  );
  if (unrecorded.length > 0) {
    return line(
      "flags",
      LABEL,
      "warn",
      `workerd accepts them, but no reason is recorded for ${listNames(unrecorded)}`,
      "add each flag with its reason to scripts/lib/deployable-flags.ts and docs/containers.md"
    );
  }
  const flags = [...new Set(configs.flatMap(({ config }) => config.compatibility_flags ?? []))];
  return line("flags", LABEL, "ok", flags.length === 0 ? "none" : `${flags.join(", ")}: deployable (workerd agrees without --experimental)`);
}
