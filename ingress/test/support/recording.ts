/**
 * The recording agent's switches (ingress/test/worker.ts), kept out of the
 * worker's main module, whose every export workerd takes for an entrypoint.
 */
/** A stop whose instruction contains this finds a run to stop (any other stop finds nothing running). */
export const SOMETHING_RUNNING = "[something running]";
/** `GET` on the test worker: what the recording agent received (the bench reads it). */
export const RECORDED_PATH = "/__recorded/dispatches";
