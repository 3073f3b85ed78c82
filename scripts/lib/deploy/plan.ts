/**
 * `npm run deploy`'s command line and the steps it runs once nothing
 * blocks, in the README's order: the dashboard build (assets.directory),
 * the agent Worker (after the webhook app's secrets, which a check
 * requires), the skills into the bucket that deploy created, then the
 * webhook app, which goes live last. Pure.
 */
import { INGRESS_CONFIG } from "../doctor/types";

export const DEPLOY_USAGE = `usage: npm run deploy [-- --dry-run] [--no-seed]

Checks Docker, the Cloudflare login and account (Workers Paid, R2, a
workers.dev subdomain), both Workers' secrets and npm run doctor's checkout
lines, then builds the dashboard and deploys both Workers in order.

options:
  --dry-run   check and print what would run; run nothing (exit 1 if anything blocks)
  --no-seed   leave the skills bucket as it is (no npm run seed:r2)
  -h, --help  show this help

exit codes: 0 deployed (or, with --dry-run, nothing blocks), 1 a check
blocks or a step failed, 2 a bad argument. docs/deploy.md describes each check.`;

export type DeployArgs = { dryRun: boolean; seed: boolean };

export function parseDeployArgs(argv: readonly string[]): { ok: true; kind: "run"; args: DeployArgs } | { ok: true; kind: "help" } | { ok: false; error: string } {
  const args: DeployArgs = { dryRun: false, seed: true };
  for (const arg of argv) {
    if (arg === "-h" || arg === "--help") return { ok: true, kind: "help" };
    if (arg === "--dry-run") args.dryRun = true;
    else if (arg === "--no-seed") args.seed = false;
    else return { ok: false, error: `unknown argument ${JSON.stringify(arg)}` };
  }
  return { ok: true, kind: "run", args };
}

export type DeployStep = { id: "build" | "agent" | "seed" | "ingress"; what: string; command: string; args: string[] };

export function deploySteps(args: DeployArgs): DeployStep[] {
  const steps: DeployStep[] = [
    { id: "build", what: "the dashboard into dist/client", command: "npm", args: ["run", "build"] },
    { id: "agent", what: "the agent Worker, which builds and pushes the container image", command: "npx", args: ["wrangler", "deploy"] },
    { id: "seed", what: "skills/ into the skills bucket", command: "npm", args: ["run", "seed:r2"] },
    { id: "ingress", what: "the webhook app", command: "npx", args: ["wrangler", "deploy", "-c", INGRESS_CONFIG] }
  ];
  return args.seed ? steps : steps.filter((step) => step.id !== "seed");
}

export const shown = (step: Pick<DeployStep, "command" | "args">) => [step.command, ...step.args].join(" ");
