/**
 * WorkspaceAgent: the Workspace. (Being built: see issue 3.)
 */
import { Agent } from "agents";

export class WorkspaceAgent extends Agent<Env> {}
