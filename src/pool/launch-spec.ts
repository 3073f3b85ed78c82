/**
 * The one launch spec every container of this Worker starts with.
 *
 * The WarmPool pre-starts a container through `Sandbox.warm()`, and later the
 * WorkspaceAgent's `ContainerBackend` (@cloudflare/computer) calls
 * `host.start()` on the same Sandbox. The host ADOPTS the running container
 * only when the spec it is given has the same enableInternet, env digest,
 * instance and image name as the one it was launched with; any difference
 * makes it destroy the warm container and boot a new one, which silently
 * turns every claim into a cold start. So both sides build their spec here:
 * the WorkspaceAgent spreads `containerBackendOptions()` into its
 * `ContainerBackend`, the Sandbox warms with `warmLaunchSpec()`, and
 * test/pool/launch-spec.test.ts runs the real backend to check that the spec
 * it passes to `start()` equals `warmLaunchSpec()`.
 *
 * Only static values belong here: a per-run value (a token, an issue number)
 * would change the env digest per turn and defeat adoption. Pure.
 */

/** computerd's HTTP and WebSocket port (the backend's default). */
export const CONTAINER_PORT = 8080;
/** The key of the image in wrangler.jsonc `containers[].images`. */
export const CONTAINER_IMAGE_NAME = "app";
/** Where computerd mounts the workspace (the backend always sends this). */
export const WORKSPACE_MOUNT_POINT = "/workspace";

/** The subset of @cloudflare/computer's `ContainerLaunchSpec` this Worker sets. */
export type LaunchSpec = {
  env: Record<string, string>;
  enableInternet: boolean;
  name: string;
};

/**
 * The extra container environment (`ContainerBackend` option `containerEnv`).
 *
 * computerd hands a shell command only PATH, HOME, TMPDIR, TZ, LANG, TERM,
 * LC_* and variables prefixed `COMPUTER_VAR_` (prefix stripped), so that is
 * the prefix that reaches `git` and `gh`. The agent's shell has no terminal:
 * a credential prompt would hang a command until its timeout instead of
 * failing.
 */
export function containerLaunchEnv(): Record<string, string> {
  return {
    COMPUTER_VAR_GIT_TERMINAL_PROMPT: "0",
    COMPUTER_VAR_GH_PROMPT_DISABLED: "1"
  };
}

/**
 * The launch options for the WorkspaceAgent's ContainerBackend:
 * `new ContainerBackend({ ...containerBackendOptions(), container, workspace })`.
 * Adding `ignore`, `instance` or `launch` there changes the spec; add them
 * here (and to `warmLaunchSpec`) instead.
 */
export function containerBackendOptions() {
  return {
    containerPort: CONTAINER_PORT,
    containerEnv: containerLaunchEnv(),
    // gh, npm and git need the network; the backend's own default is "none".
    egress: { mode: "direct" } as const,
    name: CONTAINER_IMAGE_NAME
  };
}

/** The spec `ContainerBackend.connect()` passes to `host.start()` for `containerBackendOptions()`. */
export function warmLaunchSpec(): LaunchSpec {
  return {
    env: { PORT: String(CONTAINER_PORT), MOUNT_POINT: WORKSPACE_MOUNT_POINT, ...containerLaunchEnv() },
    enableInternet: true,
    name: CONTAINER_IMAGE_NAME
  };
}
