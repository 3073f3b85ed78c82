/**
 * CommandCenterAgent: the registry of every thread. (Being built: issue 4.)
 */
import { Agent } from "agents";
import type { CommandCenterState } from "./shared/command-center";

export const COMMAND_CENTER_NAME = "main";

export class CommandCenterAgent extends Agent<Env, CommandCenterState> {}
