/**
 * A workspace's way out for its container (src/egress/workspace-egress.ts):
 * a request stamped with the container the running turn holds goes on to
 * the backend without the stamp; one from any other container, or with no
 * turn running, or with no stamp at all, is refused before the backend and
 * the gateway, its body read, and counted for the running run; the
 * container's gateway asks as the turn that holds it.
 */
import { describe, expect, it } from "vitest";
import { NO_TURN, OTHER_TURN_REFUSAL, SANDBOX_HEADER, WorkspaceEgress, isContainerEgress } from "../../src/egress/workspace-egress";
import type { SandboxEgressProps } from "../../src/egress/sandbox-egress";

function egress(held: { submissionId?: string; sandboxId?: string }) {
  const counted: string[] = [];
  const asked: SandboxEgressProps[] = [];
  const passed: Request[] = [];
  const deps = {
    session: () => "acme-widgets-7",
    binding: () => "ThinkAgent",
    gateway: (props: SandboxEgressProps) => {
      asked.push(props);
      return { fetch: async () => new Response("granted") } as unknown as Fetcher;
    },
    issueAgent: async () => ({
      egressGrant: async () => {
        throw new Error("not asked");
      },
      egressRefused: async (refusal: { submissionId?: string; host: string; method: string }) => void counted.push(`${refusal.submissionId} ${refusal.method} ${refusal.host}`)
    }),
    holding: async () => held,
    log: () => {}
  };
  const backend = { handleFetch: async (request: Request) => (passed.push(request), new Response("through")) };
  return { egress: new WorkspaceEgress(deps), counted, asked, passed, backend };
}

const fromContainer = (sandbox: string | null, body?: string) =>
  new Request("http://computer.internal/api", {
    method: body ? "POST" : "GET",
    headers: {
      "x-workspace-egress-token": "token",
      "x-workspace-egress-url": "https://github.com/acme/widgets.git/git-receive-pack",
      ...(sandbox ? { [SANDBOX_HEADER]: sandbox } : {})
    },
    ...(body ? { body } : {})
  });

describe("a container's way out", () => {
  it("is the container's own request only with the backend's egress token", () => {
    expect(isContainerEgress(fromContainer("a"))).toBe(true);
    expect(isContainerEgress(new Request("http://computer.internal/api"))).toBe(false);
  });

  it("goes on, unstamped, when the running turn holds that container", async () => {
    const { egress: way, passed, backend, counted } = egress({ submissionId: "turn-2", sandboxId: "box-2" });
    const answer = await way.fromContainer(fromContainer("box-2"), backend);
    expect(await answer.text()).toBe("through");
    expect(passed[0]!.headers.has(SANDBOX_HEADER)).toBe(false);
    expect(counted).toEqual([]);
  });

  it("is refused from another container, unstamped, or with no turn, and counted for the running run", async () => {
    for (const [held, sandbox, counts] of [
      [{ submissionId: "turn-2", sandboxId: "box-2" }, "box-1", ["turn-2 POST github.com"]],
      [{ submissionId: "turn-2", sandboxId: "box-2" }, null, ["turn-2 POST github.com"]],
      [{ submissionId: "turn-2" }, "box-1", ["turn-2 POST github.com"]],
      [{}, "box-1", []]
    ] as const) {
      const { egress: way, passed, backend, counted } = egress(held);
      const answer = await way.fromContainer(fromContainer(sandbox, "0000PACK"), backend);
      expect(answer.status).toBe(403);
      expect(await answer.text()).toBe(`${OTHER_TURN_REFUSAL}\n`);
      expect(passed).toEqual([]);
      expect(counted).toEqual(counts);
    }
  });

  it("asks the gateway as the turn holding the container, or as no turn at all", async () => {
    const held: { submissionId?: string } = { submissionId: "turn-3" };
    const { egress: way, asked } = egress(held);
    await way.containerGateway().fetch("https://registry.npmjs.org/x");
    delete held.submissionId;
    await way.containerGateway().fetch("https://registry.npmjs.org/x");
    await way.shellGateway().fetch("https://registry.npmjs.org/x");
    expect(asked).toEqual([
      { session: "acme-widgets-7", binding: "ThinkAgent", submissionId: "turn-3" },
      { session: "acme-widgets-7", binding: "ThinkAgent", submissionId: NO_TURN },
      { session: "acme-widgets-7", binding: "ThinkAgent" }
    ]);
  });
});
