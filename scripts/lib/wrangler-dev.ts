/**
 * How the local agent-think is started: the `wrangler dev` command line, the
 * port, spotting readiness in wrangler's output, and the banner `npm start`
 * prints, and a free port to run it on. Pure apart from `freePort`, which
 * asks the OS; used by `scripts/start.ts`, the chaos suite and the e2e
 * fixture, which own the processes.
 */
import { createServer } from "node:net";

export const DEFAULT_PORT = 8787;
export const LOCAL_HOST = "127.0.0.1";

export type WranglerDevOptions = {
  port: number;
  /** `LOCAL_DEV=1` opens /dev/* and lets the scripted model run without credentials. */
  localDev: boolean;
  /** Where Durable Object state lives; wrangler's default (`.wrangler/state`) when omitted. */
  persistTo?: string;
  /** The devtools port; wrangler picks 9229 or the next free one when omitted. */
  inspectorPort?: number;
  /** Run the Sandbox's container (needs a Docker engine); off by default. */
  containers?: boolean;
  /**
   * Where the Worker posts reactions and comments: the local GitHub stand-in.
   * With LOCAL_DEV and no URL, nothing is posted (a local run never reaches
   * the real GitHub by accident).
   */
  githubApiUrl?: string;
  /**
   * More `--var NAME:value` pairs, after the ones above (a later `--var`
   * wins), e.g. the Cloudflare Access settings for the e2e tests.
   */
  vars?: Record<string, string>;
  /**
   * The Worker already bundled (`wrangler deploy --dry-run --outdir`),
   * served as it is (`--no-bundle`) instead of bundled again at start, with
   * its config named (wrangler would otherwise look for one beside the script).
   */
  bundle?: { script: string; config: string };
};

export function wranglerDevArgs(options: WranglerDevOptions): string[] {
  const args = [
    "dev",
    ...(options.bundle ? [options.bundle.script, "--no-bundle", "-c", options.bundle.config] : []),
    "--local",
    "--ip",
    LOCAL_HOST,
    "--port",
    String(options.port),
    "--show-interactive-dev-session=false",
    // Thread links must point at this server, not at the configured default port.
    "--var",
    `PUBLIC_BASE_URL:${localUrl(options.port)}`
  ];
  // Local dev's GitHub is the stand-in, whose CI holds no secret: CI follow-ups are accepted there (as `npm run dev:ingress` does).
  if (options.localDev) args.push("--var", "LOCAL_DEV:1", "--var", "CI_FIX_REPOS:*");
  if (options.githubApiUrl !== undefined || options.localDev) {
    args.push("--var", `GITHUB_API_URL:${options.githubApiUrl ?? ""}`);
  }
  if (options.containers) {
    args.push("--enable-containers=true", "--var", "CONTAINERS_ENABLED:1");
  } else {
    // No Docker engine locally: no container backend (wrangler.jsonc also
    // sets dev.enable_containers to false).
    args.push("--var", "CONTAINERS_ENABLED:");
  }
  for (const [name, value] of Object.entries(options.vars ?? {})) args.push("--var", `${name}:${value}`);
  if (options.persistTo !== undefined) args.push("--persist-to", options.persistTo);
  if (options.inspectorPort !== undefined) args.push("--inspector-port", String(options.inspectorPort));
  return args;
}

export function localUrl(port: number): string {
  return `http://${LOCAL_HOST}:${port}`;
}

export type PortParse = { ok: true; port: number } | { ok: false; error: string };

/** `PORT` from the environment, or the default. */
export function parsePort(value: string | undefined): PortParse {
  if (value === undefined || value.trim() === "") return { ok: true, port: DEFAULT_PORT };
  const port = Number(value);
  if (!/^\d+$/.test(value.trim()) || port < 1 || port > 65_535) {
    return { ok: false, error: `PORT must be a port number (1-65535), got "${value}"` };
  }
  return { ok: true, port };
}

const ANSI_ESCAPE = /\u001b\[[0-9;]*m/g;

/** The URL in wrangler's "Ready on <url>" line, or null when `text` has none. */
export function findReadyUrl(text: string): string | null {
  const match = /Ready on (https?:\/\/\S+)/.exec(text.replace(ANSI_ESCAPE, ""));
  return match ? match[1]! : null;
}

export function startBanner(url: string, githubStandinUrl?: string): string {
  // dispatch defaults to the default port; any other needs --url.
  const urlOption = url === localUrl(DEFAULT_PORT) ? "" : ` --url ${url}`;
  return [
    "",
    `agent-think is running at ${url}`,
    "(LOCAL_DEV=1: /dev/* is open; the scripted model runs unless model credentials are set)",
    "",
    `  dispatch a run:     npm run dispatch -- owner/repo#123 "reproduce this issue"${urlOption}`,
    `  read a transcript:  curl ${url}/dev/messages/<session>`,
    ...(githubStandinUrl ? [`  what it posted:     curl ${githubStandinUrl}/_standin/records   (the local GitHub stand-in)`] : []),
    "  stop:               Ctrl-C",
    ""
  ].join("\n");
}

/** A port nothing on 127.0.0.1 listens on right now (the e2e fixture, the chaos suite). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, LOCAL_HOST, () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : null;
      server.close(() => (port === null ? reject(new Error("no free port")) : resolve(port)));
    });
  });
}
