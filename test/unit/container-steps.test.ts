/**
 * The real-container suite's steps up to the engine's seam
 * (scripts/lib/container-steps.ts): each step's instructions are what the
 * scripted model plays (container commands, writes whose text arrives
 * byte for byte), its scripts parse with bash and node, the UDP sender
 * really sends, and every judge passes what the step should see and names
 * each thing that would be wrong. What runs only where Docker does:
 * tests-container/steps.test.ts.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { createSocket } from "node:dgram";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EMPTY_OBSERVATION, observedCommands, observedTools, writeLine, type ObservedCommand, type Observation } from "../../scripts/lib/container-observe";
import { CONTAINER_STEPS, stepContext, type ContainerStep } from "../../scripts/lib/container-steps";
import { forcePushScript, pushBranchScript, pushMainScript, tokenScanScript, udpScript } from "../../scripts/lib/container-step-scripts";
import { planScript } from "../../src/model/script";

const SUITE = { tokenMark: "ghs_containersuite", udp: { port: 45_999, targets: ["192.0.2.10"] }, blockedUrl: "https://example.com/" };
const step = (id: string): ContainerStep => CONTAINER_STEPS.find((candidate) => candidate.id === id)!;
const ctxOf = (id: string) => stepContext(step(id), 7, SUITE);
const MAIN = "a".repeat(40);
const PUSHED = "b".repeat(40);

function observed(fields: Partial<Observation>, ...commands: Partial<ObservedCommand>[]): Observation {
  return {
    ...EMPTY_OBSERVATION,
    statuses: ["completed"],
    refs: { before: { "refs/heads/main": MAIN }, after: { "refs/heads/main": MAIN } },
    commands: commands.map((command) => ({ command: "c", stdout: "", stderr: "", exitCode: 0, ...command })),
    ...fields
  };
}

describe("each step's runs, as the scripted model plays them", () => {
  it.each(CONTAINER_STEPS.map((candidate) => [candidate.id, candidate] as const))("%s: every run plays its directives to a reply", (_id, candidate) => {
    const ctx = stepContext(candidate, 7, SUITE);
    for (const instruction of candidate.runs(ctx)) {
      expect(instruction.length).toBeLessThanOrEqual(8_000);
      const steps = planScript(instruction);
      expect(steps.at(-1)).toMatchObject({ kind: "reply" });
      const bash = steps.filter((played) => played.kind === "tool" && played.toolName === "bash");
      for (const played of bash) expect(played).toMatchObject({ input: { backend: "container" } });
    }
  });

  it.each([
    ["push", "/workspace/container-suite/push.sh", pushBranchScript("agent-think/issue-7")],
    ["main-refused", "/workspace/container-suite/push-main.sh", pushMainScript()],
    ["force-refused", "/workspace/container-suite/force.sh", forcePushScript("agent-think/issue-7")],
    ["no-token", "/workspace/container-suite/scan.sh", tokenScanScript("agent-think/issue-7", "acme/widgets")],
    ["dns-udp", "/workspace/container-suite/udp.mjs", udpScript()]
  ])("%s: its script reaches the workspace byte for byte", (id, path, text) => {
    const writes = step(id)
      .runs(ctxOf(id))
      .flatMap((instruction) => planScript(instruction))
      .filter((played) => played.kind === "tool" && played.toolName === "write");
    expect(writes.map((played) => (played as { input: unknown }).input)).toContainEqual({ path, content: text });
  });

  it("the token scan reads the mark from a file, so the mark is in no process's arguments", () => {
    const [instruction] = step("no-token").runs(ctxOf("no-token"));
    const commands = planScript(instruction!).filter((played) => played.kind === "tool" && played.toolName === "bash");
    expect(JSON.stringify(commands)).not.toContain(SUITE.tokenMark);
    expect(tokenScanScript("agent-think/issue-7", "acme/widgets")).not.toContain(SUITE.tokenMark);
  });

  it("a scripted write refuses a backslash, which the scripted model would turn into something else", () => {
    expect(() => writeLine("/workspace/x", "a\\nb")).toThrow(/backslash/);
    expect(writeLine("/workspace/x", "a\nb")).toBe("TEST: write /workspace/x a\\nb");
  });
});

describe("the scripts, parsed and run where this machine can", () => {
  it.each([
    ["push", pushBranchScript("agent-think/issue-7")],
    ["push to main", pushMainScript()],
    ["force push", forcePushScript("agent-think/issue-7")],
    ["token scan", tokenScanScript("agent-think/issue-7", "acme/widgets")]
  ])("bash parses the %s script", (_name, text) => {
    expect(spawnSync("bash", ["-n"], { input: text, encoding: "utf8" })).toMatchObject({ status: 0, stderr: "" });
  });

  it("the UDP sender sends a DNS query and a datagram to each address, and a listener that hears them fails the step", async () => {
    const dir = mkdtempSync(join(tmpdir(), "container-steps-"));
    writeFileSync(join(dir, "udp.mjs"), udpScript());
    const listener = createSocket("udp4");
    const heard: Buffer[] = [];
    listener.on("message", (message) => heard.push(message));
    await new Promise<void>((resolve) => listener.bind(0, "127.0.0.1", resolve));
    const port = listener.address().port;
    const stdout = execFileSync("node", [join(dir, "udp.mjs"), String(port), "127.0.0.1"], { encoding: "utf8" });
    await expect.poll(() => heard.length).toBe(2);
    listener.close();

    const report = JSON.parse(stdout.trim()) as { sent: { address: string }[] };
    expect(report.sent.filter((sent) => sent.address === "127.0.0.1")).toHaveLength(2);
    // The first is a DNS query: id 0x1234, one question, for ct-dns.example.
    expect(heard[0]!.subarray(0, 2)).toEqual(Buffer.from([0x12, 0x34]));
    expect(heard[0]!.includes(Buffer.from("ct-dns"))).toBe(true);
    const judged = step("dns-udp").judge(observed({ udp: { received: heard.length, control: true } }, { stdout }), ctxOf("dns-udp"));
    expect(judged).toEqual(["the host's listener heard 2 datagram(s) from the container: UDP leaves it"]);
    expect(step("dns-udp").judge(observed({ udp: { received: 0, control: true } }, { stdout }), ctxOf("dns-udp"))).toEqual([]);
  });
});

describe("the transcript, read back", () => {
  it("finds the container commands with their exit codes and outputs, and every tool call", () => {
    const messages = [
      { id: "1", role: "user", parts: [{ type: "text" }] },
      {
        id: "2",
        role: "assistant",
        parts: [
          { type: "text" },
          { type: "tool-bash", input: { command: "ls", backend: "shell" }, output: { exitCode: 0, stdout: { text: "x" } } },
          { type: "tool-bash", input: { command: "node -v", backend: "container" }, output: { exitCode: 0, stdout: { text: "v22.1.0\n", totalBytes: 8 }, stderr: { text: "" } } },
          { type: "tool-bash", input: { command: "git", backend: "container" }, output: { backend: "container", error: "container backend unavailable" } },
          { type: "tool-publish_reproduction", input: { directory: "/workspace/repro/dist" }, output: { published: true, url: "http://x/repro" } }
        ]
      }
    ];
    const tools = observedTools(messages);
    expect(tools.map((call) => call.tool)).toEqual(["bash", "bash", "bash", "publish_reproduction"]);
    expect(observedCommands(tools)).toEqual([
      { command: "node -v", exitCode: 0, stdout: "v22.1.0\n", stderr: "" },
      { command: "git", stdout: "", stderr: "", error: "container backend unavailable" }
    ]);
  });
});

describe("the judges", () => {
  it("command: Node 22 and the marker pass; another Node, a failed run or a backend error do not", () => {
    const judge = (fields: Partial<Observation>, command: Partial<ObservedCommand>) => step("command").judge(observed(fields, command), ctxOf("command"));
    expect(judge({}, { stdout: "v22.12.0\nfrom-the-container\n" })).toEqual([]);
    expect(judge({}, { stdout: "v20.1.0\nfrom-the-container\n" })).toEqual([expect.stringMatching(/Node 22's version/)]);
    expect(judge({ statuses: ["failed"] }, { stdout: "v22.12.0\nfrom-the-container\n" })).toEqual([expect.stringMatching(/the runs ended \["failed"\]/)]);
    expect(judge({}, { exitCode: undefined, error: "container backend unavailable: …" })).toEqual(
      expect.arrayContaining([expect.stringMatching(/^a command could not run/), expect.stringMatching(/should exit 0/)])
    );
  });

  it("clone: main's commit and a plain origin pass; another commit or a credential in the URL do not", () => {
    const judge = (stdout: string) => step("clone").judge(observed({}, { stdout }), ctxOf("clone"));
    expect(judge(`${MAIN}\nhttps://github.com/acme/widgets.git\n`)).toEqual([]);
    expect(judge(`${PUSHED}\nhttps://github.com/acme/widgets.git\n`)).toEqual([expect.stringMatching(/is not main's commit/)]);
    expect(judge(`${MAIN}\nhttps://x-access-token:ghs_x@github.com/acme/widgets.git\n`)).toEqual([expect.stringMatching(/no credential/)]);
  });

  it("push: the branch at the pushed commit with the write token passes; main moving or no write token does not", () => {
    const branch = "refs/heads/agent-think/issue-7";
    const landed = { refs: { before: { "refs/heads/main": MAIN }, after: { "refs/heads/main": MAIN, [branch]: PUSHED } }, pushes: [{ token: "write", status: 200 }] };
    const judge = (fields: Partial<Observation>) => step("push").judge(observed(fields, { stdout: `pushed=${PUSHED}\n` }), ctxOf("push"));
    expect(judge(landed)).toEqual([]);
    expect(judge({ ...landed, pushes: [{ token: "none", status: 401 }] })).toEqual([expect.stringMatching(/with the write token/)]);
    expect(judge({ ...landed, refs: { before: landed.refs.before, after: { "refs/heads/main": PUSHED, [branch]: PUSHED } } })).toEqual(["main moved"]);
    expect(judge({ ...landed, refs: { before: landed.refs.before, after: { "refs/heads/main": MAIN } } })).toEqual([expect.stringMatching(/not the pushed/)]);
  });

  it("main-refused: git failing with the gateway's words passes; a push that succeeded, or failed for another reason, does not", () => {
    const refusal = "! [remote rejected] HEAD -> main (push refused: this run may update only refs/heads/agent-think/issue-7, not refs/heads/main)\n";
    const judge = (fields: Partial<Observation>, command: Partial<ObservedCommand>) => step("main-refused").judge(observed(fields, command), ctxOf("main-refused"));
    expect(judge({}, { exitCode: 1, stderr: refusal })).toEqual([]);
    expect(judge({}, { exitCode: 128, stderr: "fatal: unable to access: Could not resolve host\n" })).toEqual([expect.stringMatching(/gateway's refusal/)]);
    expect(judge({ refs: { before: { "refs/heads/main": MAIN }, after: { "refs/heads/main": PUSHED } }, pushes: [{ token: "write", status: 200 }] }, { exitCode: 0 })).toEqual([
      expect.stringMatching(/should fail/),
      expect.stringMatching(/gateway's refusal/),
      "main moved",
      expect.stringMatching(/a receive-pack reached the server/)
    ]);
  });

  it("force-refused: the branch kept at the first push, git failing with the gateway's words, passes; a landed force push does not", () => {
    const branch = "refs/heads/agent-think/issue-7";
    const stdout = `pushed=${PUSHED}\nforce-exit=1\n`;
    const stderr = "! [remote rejected] HEAD -> agent-think/issue-7 (push refused: not a fast-forward of agent-think/issue-7 (the gateway refuses force pushes; …))\n";
    const kept = { refs: { before: { "refs/heads/main": MAIN }, after: { "refs/heads/main": MAIN, [branch]: PUSHED } } };
    const judge = (fields: Partial<Observation>, command: Partial<ObservedCommand>) => step("force-refused").judge(observed(fields, command), ctxOf("force-refused"));
    expect(judge(kept, { stdout, stderr })).toEqual([]);
    expect(judge({ refs: { before: kept.refs.before, after: { "refs/heads/main": MAIN, [branch]: "c".repeat(40) } } }, { stdout: `pushed=${PUSHED}\nforce-exit=0\n` })).toEqual([
      expect.stringMatching(/force push should fail/),
      expect.stringMatching(/gateway's refusal/),
      expect.stringMatching(/moved from the first push/)
    ]);
  });

  it("no-token: every place read with no hit and the canary hit passes; a hit, a place not read or a blind canary does not", () => {
    const clean = "pushed=yes\nscan env files=1 hits=0\nscan proc-environ files=14 hits=0\nscan proc-cmdline files=14 hits=0\nscan gh files=1 hits=0\nscan git-config files=1 hits=0\nscan git-credential files=1 hits=0\nscan canary files=1 hits=1\n";
    const judge = (stdout: string) => step("no-token").judge(observed({}, { stdout }), ctxOf("no-token"));
    expect(judge(clean)).toEqual([]);
    expect(judge(clean.replace("proc-environ files=14 hits=0", "proc-environ files=14 hits=2"))).toEqual(["a token is visible in proc-environ (2 of 14 files)"]);
    expect(judge(clean.replace("scan gh files=1 hits=0\n", ""))).toEqual([expect.stringMatching(/read nothing of gh/)]);
    expect(judge(clean.replace("canary files=1 hits=1", "canary files=1 hits=0"))).toEqual([expect.stringMatching(/not known to look/)]);
    expect(judge(clean.replace("pushed=yes\n", ""))).toEqual([expect.stringMatching(/no token was attached/)]);
  });

  it("allowlist: the gateway's 403 passes; a 200, or a 403 from elsewhere, does not", () => {
    const judge = (stdout: string) => step("allowlist").judge(observed({}, { stdout }), ctxOf("allowlist"));
    expect(judge("HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\nx-agent-think-egress: refused\r\n\r\n")).toEqual([]);
    expect(judge("HTTP/2 200\r\ncontent-type: text/html\r\n\r\n")).toEqual([expect.stringMatching(/should be a 403/), expect.stringMatching(/gateway's/)]);
    expect(judge("HTTP/2 403\r\nserver: cloudflare\r\n\r\n")).toEqual([expect.stringMatching(/gateway's \(x-agent-think-egress/)]);
  });

  it("dns-udp: a listener that could not hear its control datagram shows nothing", () => {
    const stdout = `${JSON.stringify({ gateway: "172.17.0.1", sent: [{}, {}], lookup: { error: "EAI_AGAIN" } })}\n`;
    expect(step("dns-udp").judge(observed({ udp: { received: 0, control: false } }, { stdout }), ctxOf("dns-udp"))).toEqual([expect.stringMatching(/control datagram/)]);
    expect(step("dns-udp").judge(observed({ udp: { received: 0, control: true } }, { stdout: "" }), ctxOf("dns-udp"))).toEqual([expect.stringMatching(/report what it sent/)]);
  });

  it("template: copy, a differing check, a build, a published page that answers pass; a check that could not run does not", () => {
    const published = [{ tool: "publish_reproduction", input: {}, output: { published: true, url: "http://127.0.0.1/repro/x" } }];
    const judge = (fields: Partial<Observation>, check: Partial<ObservedCommand>) =>
      step("template").judge(observed({ tools: published, page: { status: 200, body: "<html>" }, ...fields }, {}, check, {}), ctxOf("template"));
    expect(judge({}, { exitCode: 1, stderr: "Differs from expected\n" })).toEqual([]);
    expect(judge({}, { exitCode: 2, stderr: "check: src/repro.ts is still the template\n" })).toEqual([expect.stringMatching(/should exit 1/), expect.stringMatching(/Differs from expected/)]);
    expect(judge({ tools: [], page: { status: 404, body: "" } }, { exitCode: 1, stderr: "Differs from expected\n" })).toEqual([
      expect.stringMatching(/was not published/),
      "the published page answers 404, not 200"
    ]);
  });

  it("fix-proof: both runs completed and one pull request proven red then green passes; an unproven one does not", () => {
    const ctx = ctxOf("fix-proof");
    expect(ctx.repo).toBe("acme/widgets-proof");
    const proven = "Fixes #7\n\n### Proof of the fix\n\n✅ **Proven:** the reproduction's check fails on the base and passes with this change.\n\n**Before (base)**, `aaaaaaa`: exit 1\n\n**After (head)**, `bbbbbbb`: exit 0";
    const refs = { before: { "refs/heads/main": MAIN }, after: { "refs/heads/main": MAIN, "refs/heads/agent-think/issue-7": PUSHED } };
    const judge = (fields: Partial<Observation>) => step("fix-proof").judge(observed({ statuses: ["completed", "completed"], refs, ...fields }, {}), ctx);
    expect(judge({ pullRequests: [proven] })).toEqual([]);
    expect(judge({ pullRequests: [proven.replace("✅ **Proven:**", "⚠️ **Not proven:**").replace("exit 0", "exit 1")] })).toEqual([
      expect.stringMatching(/should say the fix is proven/),
      expect.stringMatching(/exit 1 on the base and exit 0 on the head/)
    ]);
    expect(judge({ pullRequests: [proven], statuses: ["completed"] })).toEqual([expect.stringMatching(/not 2 × "completed"/)]);
  });
});
