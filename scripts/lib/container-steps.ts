/**
 * The real-container suite's steps (tests-container/steps.test.ts runs them
 * through wrangler dev with containers on, the real ContainerBackend and the
 * egress gateway): each says what it shows, the runs it dispatches (scripted
 * model directives) and how it judges what was observed (container-observe.ts).
 * A judge returns the problems it found, none when the step holds. Pure, so
 * test/unit/container-steps.test.ts drives every judge up to the engine's seam.
 */
import { described, keyValues, writeLine, type ObservedCommand, type Observation } from "./container-observe";
import {
  forcePushScript,
  MARK_FILE,
  PROOF_CHECK,
  PROOF_REPO_FILES,
  pushBranchScript,
  pushMainScript,
  reproSource,
  SCANNED_PLACES,
  STEP_DIR,
  tokenScanScript,
  udpScript
} from "./container-step-scripts";

export type StepContext = {
  /** The step's repository, `owner/name`, on the git server and the stand-in. */
  repo: string;
  issueNumber: number;
  /** The run's push branch, `agent-think/issue-<n>`. */
  branch: string;
  /** The start every token of the suite shares; not itself a token. */
  tokenMark: string;
  /** The host's UDP listener: its port, and the host's addresses a container might reach. */
  udp: { port: number; targets: string[] };
  /** A URL off the allowlist. */
  blockedUrl: string;
};

export type ContainerStep = {
  id: string;
  /** What the step shows, in a sentence: the test's title. */
  shows: string;
  /** The step's repository when not the default one, with the files of its first commit. */
  repo?: { name: string; files: Record<string, string> };
  /** One instruction per run, dispatched in order on the step's issue. */
  runs: (ctx: StepContext) => string[];
  judge: (observed: Observation, ctx: StepContext) => string[];
};

export const DEFAULT_STEP_REPO = "acme/widgets";

const REPLY = "TEST: reply done";
const MAIN = "refs/heads/main";
const heads = (branch: string) => `refs/heads/${branch}`;

/** Problems common to every step: a run that did not complete, a command that could not run at all. */
function ranProblems(observed: Observation, runs: number): string[] {
  const problems: string[] = [];
  if (observed.statuses.length !== runs || observed.statuses.some((status) => status !== "completed")) {
    problems.push(`the runs ended ${JSON.stringify(observed.statuses)}, not ${runs} × "completed"`);
  }
  for (const command of observed.commands) if (command.error !== undefined) problems.push(`a command could not run: ${described(command)}`);
  return problems;
}

function expectExit(command: ObservedCommand | undefined, code: number, what: string): string[] {
  return command?.exitCode === code ? [] : [`${what} should exit ${code}: ${described(command)}`];
}

const script = (name: string) => `${STEP_DIR}/${name}`;

const command: ContainerStep = {
  id: "command",
  shows: "a command runs in the container: computerd's handshake, its callback and the real ContainerBackend, under wrangler dev",
  runs: () => [["TEST: container node --version && echo from-the-container", REPLY].join("\n")],
  judge: (observed) => {
    const [ran] = observed.commands;
    return [
      ...ranProblems(observed, 1),
      ...expectExit(ran, 0, "the command"),
      ...(ran && /^v22\.\d+\.\d+\nfrom-the-container\n$/.test(ran.stdout) ? [] : [`the command should print Node 22's version, then from-the-container: ${described(ran)}`])
    ];
  }
};

const clone: ContainerStep = {
  id: "clone",
  shows: "the preparation clones the repository through the gateway: the clone is at main's commit, and its origin holds no credential",
  runs: () => [["TEST: container git -C /workspace/repo rev-parse HEAD && git -C /workspace/repo remote get-url origin", REPLY].join("\n")],
  judge: (observed, ctx) => {
    const [ran] = observed.commands;
    const [head, origin] = (ran?.stdout ?? "").trim().split("\n");
    const main = observed.refs.before[MAIN];
    return [
      ...ranProblems(observed, 1),
      ...expectExit(ran, 0, "reading the clone"),
      ...(main !== undefined && head === main ? [] : [`the clone's HEAD ${JSON.stringify(head)} is not main's commit ${JSON.stringify(main)}`]),
      ...(origin === `https://github.com/${ctx.repo}.git` || origin === `https://github.com/${ctx.repo}` ? [] : [`origin should be the repository's plain https URL, with no credential: ${JSON.stringify(origin)}`])
    ];
  }
};

const push: ContainerStep = {
  id: "push",
  shows: "a push to the run's branch lands through the gateway, which attached the write token; main does not move",
  runs: (ctx) => [[writeLine(script("push.sh"), pushBranchScript(ctx.branch)), `TEST: container bash ${script("push.sh")}`, REPLY].join("\n")],
  judge: (observed, ctx) => {
    const [ran] = observed.commands;
    const pushed = keyValues(ran?.stdout ?? "").pushed;
    return [
      ...ranProblems(observed, 1),
      ...expectExit(ran, 0, "the push"),
      ...(pushed !== undefined && observed.refs.after[heads(ctx.branch)] === pushed ? [] : [`${ctx.branch} on the server is ${JSON.stringify(observed.refs.after[heads(ctx.branch)])}, not the pushed ${JSON.stringify(pushed)}`]),
      ...(observed.refs.after[MAIN] === observed.refs.before[MAIN] ? [] : ["main moved"]),
      ...(observed.pushes.some((request) => request.token === "write" && request.status === 200) ? [] : [`no receive-pack reached the server with the write token: ${JSON.stringify(observed.pushes)}`])
    ];
  }
};

const mainRefused: ContainerStep = {
  id: "main-refused",
  shows: "a push to main, from a script the Worker's guard cannot read, is refused by the gateway: git says why, and main does not move",
  runs: () => [[writeLine(script("push-main.sh"), pushMainScript()), `TEST: container bash ${script("push-main.sh")}`, REPLY].join("\n")],
  judge: (observed, ctx) => {
    const [ran] = observed.commands;
    const output = `${ran?.stdout ?? ""}${ran?.stderr ?? ""}`;
    return [
      ...ranProblems(observed, 1),
      ...(ran?.exitCode !== undefined && ran.exitCode !== 0 ? [] : [`the push to main should fail: ${described(ran)}`]),
      ...(output.includes(`push refused: this run may update only ${heads(ctx.branch)}, not ${MAIN}`) ? [] : [`git should print the gateway's refusal: ${described(ran)}`]),
      ...(observed.refs.after[MAIN] === observed.refs.before[MAIN] ? [] : ["main moved"]),
      ...(observed.pushes.some((request) => request.status === 200) ? [`a receive-pack reached the server: ${JSON.stringify(observed.pushes)}`] : [])
    ];
  }
};

const forceRefused: ContainerStep = {
  id: "force-refused",
  shows: "a force push of an amended commit to the run's branch is refused by the gateway; the branch stays at the first push",
  runs: (ctx) => [[writeLine(script("force.sh"), forcePushScript(ctx.branch)), `TEST: container bash ${script("force.sh")}`, REPLY].join("\n")],
  judge: (observed, ctx) => {
    const [ran] = observed.commands;
    const values = keyValues(ran?.stdout ?? "");
    const output = `${ran?.stdout ?? ""}${ran?.stderr ?? ""}`;
    return [
      ...ranProblems(observed, 1),
      ...(values.pushed ? [] : [`the first push did not land: ${described(ran)}`]),
      ...(values["force-exit"] !== undefined && values["force-exit"] !== "0" ? [] : [`the force push should fail: ${described(ran)}`]),
      ...(output.includes(`push refused: not a fast-forward of ${ctx.branch}`) ? [] : [`git should print the gateway's refusal: ${described(ran)}`]),
      ...(values.pushed !== undefined && observed.refs.after[heads(ctx.branch)] === values.pushed ? [] : [`${ctx.branch} moved from the first push ${JSON.stringify(values.pushed)} to ${JSON.stringify(observed.refs.after[heads(ctx.branch)])}`])
    ];
  }
};

const noToken: ContainerStep = {
  id: "no-token",
  shows: "after a push and an API read through the gateway, no token is in env, /proc, gh's config or git's credential helpers",
  runs: (ctx) => [
    [writeLine(MARK_FILE, ctx.tokenMark), writeLine(script("scan.sh"), tokenScanScript(ctx.branch, ctx.repo)), `TEST: container bash ${script("scan.sh")}`, REPLY].join("\n")
  ],
  judge: (observed) => {
    const [ran] = observed.commands;
    const scans = new Map([...(ran?.stdout ?? "").matchAll(/^scan (\S+) files=(\d+) hits=(\d+)$/gm)].map((match) => [match[1]!, { files: Number(match[2]), hits: Number(match[3]) }]));
    const problems = [...ranProblems(observed, 1)];
    if (keyValues(ran?.stdout ?? "").pushed !== "yes") problems.push(`the push before the scan did not land, so no token was attached: ${described(ran)}`);
    if ((scans.get("canary")?.hits ?? 0) !== 1) problems.push(`the scan did not find the mark in its canary, so it is not known to look: ${described(ran)}`);
    for (const place of SCANNED_PLACES) {
      const scan = scans.get(place);
      if (!scan || scan.files === 0) problems.push(`the scan read nothing of ${place}: ${described(ran)}`);
      else if (scan.hits > 0) problems.push(`a token is visible in ${place} (${scan.hits} of ${scan.files} files)`);
    }
    return problems;
  }
};

const allowlist: ContainerStep = {
  id: "allowlist",
  shows: "a GET to a host off the allowlist is refused by the gateway: a 403 it marks as its own",
  runs: (ctx) => [[`TEST: container curl -sS -o /dev/null -D - ${ctx.blockedUrl}`, REPLY].join("\n")],
  judge: (observed) => {
    const [ran] = observed.commands;
    const headers = ran?.stdout ?? "";
    return [
      ...ranProblems(observed, 1),
      ...(/^HTTP\/[\d.]+ 403\b/m.test(headers) ? [] : [`the answer should be a 403: ${described(ran)}`]),
      ...(/^x-agent-think-egress: refused\r?$/im.test(headers) ? [] : [`the 403 should be the gateway's (x-agent-think-egress: refused): ${described(ran)}`])
    ];
  }
};

const dnsUdp: ContainerStep = {
  id: "dns-udp",
  shows: "a DNS query and a UDP datagram to the host's addresses do not leave the container: the host's listener, which hears its own control datagram, hears nothing",
  runs: (ctx) => [[writeLine(script("udp.mjs"), udpScript()), `TEST: container node ${script("udp.mjs")} ${[ctx.udp.port, ...ctx.udp.targets].join(" ")}`, REPLY].join("\n")],
  judge: (observed) => {
    const [ran] = observed.commands;
    let report: { sent?: unknown[] } = {};
    try {
      report = JSON.parse((ran?.stdout ?? "").trim().split("\n").at(-1) ?? "") as typeof report;
    } catch {
      // Reported below.
    }
    return [
      ...ranProblems(observed, 1),
      ...expectExit(ran, 0, "the sender"),
      ...(Array.isArray(report.sent) && report.sent.length >= 2 ? [] : [`the sender should report what it sent: ${described(ran)}`]),
      ...(observed.udp.control ? [] : ["the host's listener did not hear its own control datagram, so hearing nothing shows nothing"]),
      ...(observed.udp.received === 0 ? [] : [`the host's listener heard ${observed.udp.received} datagram(s) from the container: UDP leaves it`])
    ];
  }
};

const template: ContainerStep = {
  id: "template",
  shows: "the reproduction template is copied from the image, its check runs (differs: exit 1), the page builds and is published",
  runs: (ctx) => [
    [
      "TEST: container mkdir -p /workspace/repro && cp -a /opt/agent-think/repro-app/. /workspace/repro/",
      writeLine("/workspace/repro/src/repro.ts", reproSource(`https://github.com/${ctx.repo}/issues/${ctx.issueNumber}`)),
      "TEST: container cd /workspace/repro && npm run repro",
      "TEST: container cd /workspace/repro && npm run build",
      "TEST: publish /workspace/repro/dist",
      REPLY
    ].join("\n")
  ],
  judge: (observed) => {
    const [copied, check, build] = observed.commands;
    const published = observed.tools.find((call) => call.tool === "publish_reproduction")?.output as { published?: boolean; url?: string } | undefined;
    return [
      ...ranProblems(observed, 1),
      ...expectExit(copied, 0, "copying the template"),
      ...expectExit(check, 1, "the check (actual 5, expected 4)"),
      ...(`${check?.stdout ?? ""}${check?.stderr ?? ""}`.includes("Differs from expected") ? [] : [`the check should say "Differs from expected": ${described(check)}`]),
      ...expectExit(build, 0, "the build"),
      ...(published?.published === true && typeof published.url === "string" ? [] : [`the page was not published: ${JSON.stringify(published)}`]),
      ...(observed.page?.status === 200 ? [] : [`the published page answers ${observed.page?.status ?? "nothing"}, not 200`])
    ];
  }
};

const proofRepo = "acme/widgets-proof";

const fixProof: ContainerStep = {
  id: "fix-proof",
  shows: "a fix's proof: the reproduction's check, recorded by one run, is re-run by the Worker on the base (red) and the pull request's head (green)",
  repo: { name: proofRepo, files: PROOF_REPO_FILES },
  runs: (ctx) => {
    const reproduced = { outcome: "reproduced", summary: "sum(2, 2) returns 5.", steps: [PROOF_CHECK], evidence: "sum.js adds one too many.", check: PROOF_CHECK };
    const opened = {
      outcome: "pr-opened",
      summary: "sum adds again.",
      pullRequestUrl: `https://github.com/${ctx.repo}/pull/1`,
      changes: ["sum.js: a + b"],
      verification: "The reproduction's check passes on the head."
    };
    return [
      ["reproduce this issue", `TEST: result-json ${JSON.stringify(reproduced)}`, REPLY].join("\n"),
      [
        "open a PR fixing this",
        "TEST: edit /workspace/repo/sum.js a + b + 1 => a + b",
        `TEST: container cd /workspace/repo && git -c user.name=suite -c user.email=suite@example.invalid commit -qam "sum adds" && git push -q origin HEAD:refs/heads/${ctx.branch}`,
        `TEST: call open_pull_request ${JSON.stringify({ title: "sum adds again", body: `Fixes #${ctx.issueNumber}` })}`,
        `TEST: result-json ${JSON.stringify(opened)}`,
        REPLY
      ].join("\n")
    ];
  },
  judge: (observed, ctx) => {
    const [pushed] = observed.commands;
    const [body] = observed.pullRequests;
    return [
      ...ranProblems(observed, 2),
      ...expectExit(pushed, 0, "the fix's push"),
      ...(observed.refs.after[heads(ctx.branch)] !== undefined ? [] : [`${ctx.branch} is not on the server`]),
      ...(observed.pullRequests.length === 1 ? [] : [`${observed.pullRequests.length} pull requests were opened, not 1`]),
      ...(body?.includes("✅ **Proven:**") ? [] : [`the pull request's body should say the fix is proven: ${JSON.stringify(body?.slice(-1_500))}`]),
      ...(body && /\*\*Before \(base\)\*\*, `[0-9a-f]+`: exit 1/.test(body) && /\*\*After \(head\)\*\*, `[0-9a-f]+`: exit 0/.test(body) ? [] : ["the proof should show exit 1 on the base and exit 0 on the head"])
    ];
  }
};

/** Every step, in the order the suite runs them. */
export const CONTAINER_STEPS: readonly ContainerStep[] = [command, clone, push, mainRefused, forceRefused, noToken, allowlist, dnsUdp, template, fixProof];

/** A step's context for one issue: the step's repository, its branch, and what the suite set up. */
export function stepContext(step: ContainerStep, issueNumber: number, suite: Pick<StepContext, "tokenMark" | "udp" | "blockedUrl">): StepContext {
  return { repo: step.repo?.name ?? DEFAULT_STEP_REPO, issueNumber, branch: `agent-think/issue-${issueNumber}`, ...suite };
}
