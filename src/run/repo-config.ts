/**
 * `.github/agent-think.yml`: a repository's own setup for agent-think runs, read from its
 * default branch (src/steps/prepare.ts; the webhook app for `triggers`, `reporters`, `ci`),
 * never a pull request's head or base: `version: 1`, `setup` (backend, timeout, commands),
 * `network.allow`, `registries`, `progress`, `model`, `reporters`, `ci.fix`, `triggers`, `commits.signed`. The schema, with an
 * example: docs/skills.md, "The repository's setup". Unknown fields are errors, so a misspelt
 * `timout` is not silently ignored, and every error names the field it is about. Pure.
 */
import { parse, YAMLParseError } from "yaml";
import { z } from "zod";
import { ALLOW_METHODS, hostPatternProblem, MAX_ALLOW_ENTRIES, type AllowMethod, type AllowRule } from "./host-allowlist";
import { registriesSchema, type RegistryEntry } from "./registries";

export const REPO_CONFIG_PATH = ".github/agent-think.yml";
export const REPO_CONFIG_VERSION = 1;
/** A config file longer than this is refused, not cut: half a config is a different config. */
export const MAX_REPO_CONFIG_BYTES = 16 * 1024;
export const DEFAULT_SETUP_TIMEOUT_S = 600;
export const MAX_SETUP_TIMEOUT_S = 30 * 60;
export const MAX_SETUP_COMMANDS = 20;
const MAX_COMMAND_CHARS = 2_000;

const timeout = z
  .number({ error: "must be a number of seconds" })
  .int("must be a whole number of seconds")
  .min(1, "must be at least 1 second")
  .max(MAX_SETUP_TIMEOUT_S, `must be at most ${MAX_SETUP_TIMEOUT_S} seconds`);

const commandText = z
  .string({ error: "must be a command line (a string)" })
  .min(1, "must not be empty")
  .max(MAX_COMMAND_CHARS, `must be at most ${MAX_COMMAND_CHARS} characters`)
  .refine((text) => text.trim() !== "", "must not be blank");

const command = z.union(
  [commandText, z.strictObject({ run: commandText, timeout: timeout.optional() })],
  { error: "must be a command line, or { run, timeout }" }
);

const hostPattern = z
  .string({ error: 'must be a host name, or "*." and a domain' })
  .superRefine((entry, ctx) => {
    const problem = hostPatternProblem(entry);
    if (!problem) return;
    const readOnly = problem.kind === "wide" ? " (to only read from it: { host: <the host>, methods: [GET, HEAD] })" : "";
    ctx.addIssue({ code: "custom", message: `${problem.message}${readOnly}` });
  });

const METHOD_NAMES = ALLOW_METHODS.join(", ");
const method = z
  .string({ error: `must be one of ${METHOD_NAMES}` })
  .transform((name) => name.toUpperCase())
  .pipe(z.enum(ALLOW_METHODS, { error: `must be one of ${METHOD_NAMES}` }));

const methodEntry = z.strictObject(
  {
    host: hostPattern,
    methods: z
      .array(method, { error: "must be a list of methods, such as [GET, HEAD]" })
      .min(1, "must name at least one method")
      .transform((methods): AllowMethod[] => [...new Set(methods)])
  },
  { error: "must be a host name, or { host, methods }" }
);

/** One entry: a host (every method) or `{ host, methods }`, each judged by its own shape so every error names its field. */
const allowEntry = z.unknown().transform((value, ctx): AllowRule => {
  const schema = typeof value === "string" ? hostPattern : value !== null && typeof value === "object" && !Array.isArray(value) ? methodEntry : null;
  if (!schema) {
    ctx.addIssue({ code: "custom", message: "must be a host name, or { host, methods }" });
    return z.NEVER;
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.addIssue({ ...issue } as Parameters<typeof ctx.addIssue>[0]);
  return z.NEVER;
});

export const DEFAULT_TRIGGER_INSTRUCTION = "reproduce this issue";
export const DEFAULT_TRIGGER_LABEL = "agent-think";
const MAX_INSTRUCTION_CHARS = 2_000;
/** GitHub's limit on a label's name. */
const MAX_LABEL_CHARS = 50;
/** A model id as the providers spell them: letters, digits, dots, dashes, underscores, slashes, colons. */
const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$/;
/** The most CI follow-up runs a repository may ask for on one of the App's pull requests (docs/ingress.md, CI follow-ups). */
export const MAX_CI_FIXES = 3;
const ciFixes = z
  .number({ error: `must be a whole number from 0 to ${MAX_CI_FIXES}` })
  .int(`must be a whole number from 0 to ${MAX_CI_FIXES}`)
  .min(0, `must be a whole number from 0 to ${MAX_CI_FIXES}`)
  .max(MAX_CI_FIXES, `must be at most ${MAX_CI_FIXES}`);

const instruction = z
  .string({ error: "must be an instruction (a string), or false" })
  .max(MAX_INSTRUCTION_CHARS, `must be at most ${MAX_INSTRUCTION_CHARS} characters`)
  .refine((text) => text.trim() !== "", "must not be blank");

const configSchema = z.strictObject({
  version: z.literal(REPO_CONFIG_VERSION, { error: `must be ${REPO_CONFIG_VERSION} (the only version this agent-think reads)` }),
  setup: z
    .strictObject({
      backend: z.enum(["container", "shell"], { error: 'must be "container" or "shell"' }).default("container"),
      timeout: timeout.default(DEFAULT_SETUP_TIMEOUT_S),
      commands: z
        .array(command, { error: "must be a list of commands" })
        .max(MAX_SETUP_COMMANDS, `must have at most ${MAX_SETUP_COMMANDS} commands`)
    })
    .optional(),
  network: z
    .strictObject({
      allow: z
        .array(allowEntry, { error: "must be a list of host names" })
        .max(MAX_ALLOW_ENTRIES, `must have at most ${MAX_ALLOW_ENTRIES} hosts`)
        .default([])
    })
    .optional(),
  registries: registriesSchema.optional(),
  progress: z.boolean({ error: "must be true or false" }).optional(),
  reporters: z.enum(["reproduce", "off"], { error: 'must be "reproduce" or "off"' }).optional(),
  ci: z.strictObject({ fix: ciFixes.optional() }, { error: "must be { fix }" }).optional(),
  commits: z.strictObject({ signed: z.boolean({ error: "must be true or false" }).optional() }, { error: "must be { signed }" }).optional(),
  model: z
    .string({ error: "must be a model id (a string)" })
    .regex(MODEL_ID, "must be a model id such as gpt-5.5")
    .optional(),
  triggers: z
    .strictObject({
      assign: z.union([z.literal(false), instruction], { error: "must be an instruction, or false" }).optional(),
      label: z
        .union([
          z.literal(false),
          z.strictObject({
            name: z
              .string({ error: "must be a label name" })
              .min(1, "must not be empty")
              .max(MAX_LABEL_CHARS, `must be at most ${MAX_LABEL_CHARS} characters`)
              .optional(),
            instruction: instruction.optional()
          })
        ], { error: "must be { name, instruction }, or false" })
        .optional()
    })
    .optional()
});

export type SetupCommand = { run: string; timeoutS: number };
/** A way of asking other than a mention: the instruction it starts, or null when the repository turned it off. */
export type TriggerConfig = { assign: string | null; label: { name: string; instruction: string } | null };
export type RepoConfig = {
  version: 1;
  setup: { backend: "container" | "shell"; commands: SetupCommand[] };
  /** Hosts beyond the defaults (src/run/host-allowlist.ts): a host allows every method, `{ host, methods }` only those. */
  network: { allow: AllowRule[] };
  /** Private package sources and repositories, with the Worker secret each names (src/run/registries.ts). */
  registries: RegistryEntry[];
  /** The live progress comment (docs/reporting.md); on unless the file says `progress: false`. */
  progress: boolean;
  /** The model the repository asks for; the operator's MODELS_ALLOWED decides whether it may have it. */
  model?: string;
  triggers: TriggerConfig;
  /** What an issue's author without write access may ask for: a reproduction, under the reporter tier, or nothing (the default). */
  reporters: "reproduce" | "off";
  /** CI follow-ups: how many runs a failing CI on one of the App's own pull requests may start (0, the default: none). */
  ci: { fix: number };
  /** `signed`: the run's commits are made through GitHub's API, which signs them (docs/verified-commits.md); false by default. */
  commits: { signed: boolean };
};

/** What a repository without the file, or without the fields, gets. */
export const DEFAULT_TRIGGERS: TriggerConfig = {
  assign: DEFAULT_TRIGGER_INSTRUCTION,
  label: { name: DEFAULT_TRIGGER_LABEL, instruction: DEFAULT_TRIGGER_INSTRUCTION }
};

export type RepoConfigParse = { ok: true; config: RepoConfig } | { ok: false; errors: string[] };

/** The file's text as a config, or every problem with it, each naming its field (`setup.commands[1].run: …`). */
export function parseRepoConfig(text: string): RepoConfigParse {
  if (new TextEncoder().encode(text).length > MAX_REPO_CONFIG_BYTES) {
    return { ok: false, errors: [`the file is larger than ${MAX_REPO_CONFIG_BYTES / 1024} KB`] };
  }
  let data: unknown;
  try {
    data = parse(text, { uniqueKeys: true, maxAliasCount: 10 });
  } catch (error) {
    const where = error instanceof YAMLParseError && error.linePos ? ` (line ${error.linePos[0].line})` : "";
    return { ok: false, errors: [`not valid YAML${where}: ${firstLine(error)}`] };
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    return { ok: false, errors: ["must be a mapping with at least `version: 1`"] };
  }
  const parsed = configSchema.safeParse(data);
  if (!parsed.success) return { ok: false, errors: parsed.error.issues.map(describeIssue) };
  const setup = parsed.data.setup;
  return {
    ok: true,
    config: {
      version: 1,
      setup: {
        backend: setup?.backend ?? "container",
        commands: (setup?.commands ?? []).map((entry) =>
          typeof entry === "string"
            ? { run: entry, timeoutS: setup!.timeout }
            : { run: entry.run, timeoutS: entry.timeout ?? setup!.timeout }
        )
      },
      network: { allow: parsed.data.network?.allow ?? [] },
      registries: parsed.data.registries ?? [],
      progress: parsed.data.progress ?? true,
      ...(parsed.data.model === undefined ? {} : { model: parsed.data.model }),
      triggers: triggersOf(parsed.data.triggers),
      reporters: parsed.data.reporters ?? "off",
      ci: { fix: parsed.data.ci?.fix ?? 0 },
      commits: { signed: parsed.data.commits?.signed ?? false }
    }
  };
}

function triggersOf(triggers: z.infer<typeof configSchema>["triggers"]): TriggerConfig {
  const label = triggers?.label;
  return {
    assign: triggers?.assign === false ? null : (triggers?.assign?.trim() ?? DEFAULT_TRIGGERS.assign),
    label:
      label === false
        ? null
        : { name: label?.name ?? DEFAULT_TRIGGER_LABEL, instruction: label?.instruction?.trim() ?? DEFAULT_TRIGGER_INSTRUCTION }
  };
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const field = fieldPath(issue.path);
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => `${fieldPath([...issue.path, key])}: is not a field this version knows`).join("; ");
  }
  return `${field || "the file"}: ${issue.message}`;
}

/** `setup.commands[1].run`, as a reader of the YAML would name it. */
function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, part) => (typeof part === "number" ? `${text}[${part}]` : text ? `${text}.${String(part)}` : String(part)), "");
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!.slice(0, 200);
}
