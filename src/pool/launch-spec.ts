/**
 * The one launch spec every container of this Worker starts with: the
 * WorkspaceAgent's `ContainerBackend` spreads `containerBackendOptions()`,
 * the Sandbox warms with `warmLaunchSpec()`, and the host adopts a warm
 * container only when the two match (else every claim is a cold start;
 * test/pool/launch-spec.test.ts checks it). Only static values belong here,
 * never a per-run value or a credential. Pure. docs/containers.md,
 * "The launch spec couples the pool and the backend".
 */
import { INSTANCE_TYPES, type InstanceType } from "../shared/container-pricing";
import type { ContainerInstanceSize } from "@cloudflare/computer/backends/container";
import { githubHost } from "../shared/github-urls";

/** computerd's HTTP and WebSocket port (the backend's default). */
export const CONTAINER_PORT = 8080;
/** The key of the image in wrangler.jsonc `containers[].images`. */
export const CONTAINER_IMAGE_NAME = "app";
/** Where computerd mounts the workspace (the backend always sends this). */
export const WORKSPACE_MOUNT_POINT = "/workspace";

/**
 * Paths under /workspace the container keeps on its own disk instead of
 * syncing them into the WorkspaceAgent's storage (computerd's MOUNT_IGNORE,
 * the backend's `ignore`): dependency trees and caches, which are large, are
 * rebuilt by `npm install`, and would otherwise be held in the Durable
 * Object and in the container's memory. Never `dist` (publish_reproduction
 * reads the built page from the workspace) and never `.git` (a later run's
 * container gets the clone, history included, only through the
 * sync). A new container therefore has no node_modules: the skills say to
 * install before running.
 */
export const WORKSPACE_SYNC_IGNORE: readonly string[] = [
  "**/node_modules",
  "**/.cache",
  "**/.next",
  "**/.turbo",
  "**/__pycache__"
];

/** The instance types Cloudflare Containers offer (ContainerStartupOptions["instance"]). */
/** Builds and installs of users' repositories want 1 vCPU and 6 GiB or more: standard-2. */
export const DEFAULT_INSTANCE_TYPE: InstanceType = "standard-2";

/** The configuration the launch spec reads. */
export type LaunchEnv = { CONTAINER_INSTANCE_TYPE?: string; GITHUB_API_URL?: string };

/** `CONTAINER_INSTANCE_TYPE`, or the default when it is blank. Throws, naming the variable, on an unknown type. */
export function containerInstance(env: LaunchEnv = {}): InstanceType {
  const configured = (env.CONTAINER_INSTANCE_TYPE ?? "").trim();
  if (configured === "") return DEFAULT_INSTANCE_TYPE;
  if ((INSTANCE_TYPES as readonly string[]).includes(configured)) return configured as InstanceType;
  throw new Error(`CONTAINER_INSTANCE_TYPE must be one of ${INSTANCE_TYPES.join(", ")}; got ${JSON.stringify(configured)}`);
}

/**
 * How long a WorkspaceAgent's backend waits for a container, from before
 * start() to the /api upgrade: a stale-container reconcile (up to about 20 s),
 * a cold boot with an image pull, and one restart after a boot that never
 * turned healthy. The backend splits it evenly over its attempts, so each
 * attempt gets 90 s, not the package's 15 s, and a slow first boot is not
 * destroyed and restarted halfway.
 */
export const CONTAINER_CONNECT_TIMEOUT_MS = 180_000;
/** One restart after a boot that never answered its health check. */
export const CONTAINER_RESTART_ATTEMPTS = 1;
/** A single health probe may take this long (a booting daemon answers slowly). */
export const CONTAINER_HEALTH_PROBE_TIMEOUT_MS = 5_000;

/** The subset of @cloudflare/computer's `ContainerLaunchSpec` this Worker sets. */
export type LaunchSpec = {
  env: Record<string, string>;
  enableInternet: boolean;
  name: string;
  instance: ContainerInstanceSize;
};

/**
 * What `gh` is given as its token in the sandbox: not a credential. gh
 * refuses to run without one; the egress gateway drops whatever
 * Authorization the sandbox sends to GitHub and attaches the run's own,
 * outside the container. So `gh auth token` prints this.
 */
export const SANDBOX_GH_TOKEN = "no-token-in-sandbox";

/**
 * The extra container environment (`ContainerBackend` option `containerEnv`).
 *
 * computerd hands a shell command only PATH, HOME, TMPDIR, TZ, LANG, TERM,
 * LC_* and variables prefixed `COMPUTER_VAR_` (prefix stripped), so that is
 * the prefix that reaches `git` and `gh`. The agent's shell has no terminal:
 * a credential prompt would hang a command until its timeout instead of
 * failing. GH_HOST is the deploy's GitHub (from GITHUB_API_URL): gh uses it
 * for every command that names no host (`gh issue view --repo owner/name`,
 * `gh repo clone owner/name`). GH_TOKEN and GH_ENTERPRISE_TOKEN are
 * SANDBOX_GH_TOKEN, which is no credential (gh needs some token to start).
 * Throws, naming GITHUB_API_URL, when it names no GitHub.
 */
export function containerLaunchEnv(env: LaunchEnv = {}): Record<string, string> {
  return {
    COMPUTER_VAR_GIT_TERMINAL_PROMPT: "0",
    COMPUTER_VAR_GH_PROMPT_DISABLED: "1",
    COMPUTER_VAR_GH_HOST: githubHost(env.GITHUB_API_URL).host,
    COMPUTER_VAR_GH_TOKEN: SANDBOX_GH_TOKEN,
    COMPUTER_VAR_GH_ENTERPRISE_TOKEN: SANDBOX_GH_TOKEN
  };
}

/**
 * The launch options for the WorkspaceAgent's ContainerBackend:
 * `new ContainerBackend({ ...containerBackendOptions(env, gateway), container, workspace })`.
 * Adding `launch` or changing `ignore` or `instance` changes the spec; do it
 * here (and in `warmLaunchSpec`) instead.
 *
 * `gateway` is where every HTTP and HTTPS request of the container goes
 * (the backend's "http-gateway" egress: the container starts without
 * internet, and the platform hands each request to the gateway with its
 * original URL; src/egress/). Nothing else leaves the container.
 */
export function containerBackendOptions(env: LaunchEnv, gateway: Fetcher) {
  return {
    containerPort: CONTAINER_PORT,
    containerEnv: containerLaunchEnv(env),
    egress: { mode: "http-gateway", gateway } as const,
    name: CONTAINER_IMAGE_NAME,
    instance: containerInstance(env),
    ignore: WORKSPACE_SYNC_IGNORE,
    connectTimeoutMs: CONTAINER_CONNECT_TIMEOUT_MS,
    restartAttempts: CONTAINER_RESTART_ATTEMPTS,
    healthProbeTimeoutMs: CONTAINER_HEALTH_PROBE_TIMEOUT_MS
  };
}

/** The spec `ContainerBackend.connect()` passes to `host.start()` for `containerBackendOptions(env)`. */
export function warmLaunchSpec(env: LaunchEnv = {}): LaunchSpec {
  return {
    env: {
      PORT: String(CONTAINER_PORT),
      MOUNT_POINT: WORKSPACE_MOUNT_POINT,
      MOUNT_IGNORE: WORKSPACE_SYNC_IGNORE.join(","),
      ...containerLaunchEnv(env)
    },
    // The gateway's egress: no direct internet, every HTTP(S) request intercepted.
    enableInternet: false,
    name: CONTAINER_IMAGE_NAME,
    instance: containerInstance(env)
  };
}
