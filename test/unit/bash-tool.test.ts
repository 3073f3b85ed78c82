/**
 * The `bash` tool's input as the model sees it: where a deployment has
 * containers, a command without `backend` runs in the container (where the
 * skills' gh, git, node and /temp are); without them, in the worker shell.
 * The description says which backend is the default and which /temp is whose.
 */
import { describe, expect, it } from "vitest";
import { bashInputSchema, createBashTool } from "../../src/tools/bash-tool";
import { DEFAULT_TIMEOUT_MS, type BashInput } from "../../src/run/bash-command";

describe("the bash tool's input", () => {
  it("defaults to the container where the deployment has one, and to the shell where it has none", () => {
    expect(bashInputSchema("container").parse({ command: "npm test" })).toEqual({ command: "npm test", backend: "container", timeoutMs: DEFAULT_TIMEOUT_MS });
    expect(bashInputSchema("shell").parse({ command: "ls" })).toEqual({ command: "ls", backend: "shell", timeoutMs: DEFAULT_TIMEOUT_MS });
    // Asked for explicitly, either backend is used as asked.
    expect(bashInputSchema("container").parse({ command: "ls", backend: "shell" }).backend).toBe("shell");
    expect(bashInputSchema("container").safeParse({ command: "ls", backend: "docker" }).success).toBe(false);
  });

  it("says which backend is the default and that each has its own /temp", () => {
    const described = (schema: ReturnType<typeof bashInputSchema>) => schema.shape.backend.description ?? "";
    expect(described(bashInputSchema("container"))).toMatch(/^container \(default\): /);
    expect(described(bashInputSchema("shell"))).toContain("shell (default): ");
    for (const backend of ["container", "shell"] as const) {
      expect(described(bashInputSchema(backend))).toContain("its /temp is the container's own scratch");
      expect(described(bashInputSchema(backend))).toContain("a /temp of its own the container does not see");
    }
  });

  it("passes the default to the command that runs", async () => {
    const seen: BashInput[] = [];
    const bash = createBashTool({ containerAvailable: true, run: async (input) => (seen.push(input), { backend: input.backend, error: "recorded" }) });
    const input = (bash.inputSchema as ReturnType<typeof bashInputSchema>).parse({ command: "git status" });
    await bash.execute!(input, { toolCallId: "t1", messages: [] } as unknown as Parameters<NonNullable<typeof bash.execute>>[1]);
    expect(seen).toEqual([{ command: "git status", backend: "container", timeoutMs: DEFAULT_TIMEOUT_MS }]);
  });
});
