/**
 * Sandbox: one container host, dialed by the WorkspaceAgent's container
 * backend. (Being built: see issue 3.)
 */
import { DurableObject } from "cloudflare:workers";

export class Sandbox extends DurableObject<Env> {}
