/**
 * The one CommandCenterAgent's name, apart from the command center's zod
 * schemas (command-center.ts) so the dashboard's entry chunk can import it
 * without zod's runtime. The dashboard's socket is
 * `/agents/command-center-agent/main`.
 */
export const COMMAND_CENTER_NAME = "main";
