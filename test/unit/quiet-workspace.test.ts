/**
 * The workspace client with misses answered locally (src/run/quiet-workspace.ts):
 * stat and lstat of a missing path, and readFile and find of one, fail here
 * with ENOENT as the workspace would, without the workspace throwing; what
 * exists is the workspace's own answer, and awaiting the lazy client gives
 * a client that does the same.
 */
import { describe, expect, it } from "vitest";
import { withLocalMisses } from "../../src/run/quiet-workspace";

function fakeClient(files: Record<string, string>) {
  const thrown: string[] = [];
  const stat = (path: string) => (path in files ? { type: "file", size: files[path]!.length } : null);
  const fs = {
    statOrNull: async (path: string) => stat(path),
    lstatOrNull: async (path: string) => stat(path),
    stat: async (path: string) => stat(path) ?? (thrown.push(`stat ${path}`), Promise.reject(new Error("remote throw"))),
    lstat: async (path: string) => stat(path) ?? (thrown.push(`lstat ${path}`), Promise.reject(new Error("remote throw"))),
    readFile: async (path: string, encoding?: string) => (path in files ? `${files[path]}${encoding ? ` (${encoding})` : ""}` : (thrown.push(`read ${path}`), Promise.reject(new Error("remote throw")))),
    find: async (dir: string, pattern?: string) => [`${dir}/${pattern}`],
    writeFile: async (path: string, text: string) => void (files[path] = text)
  };
  const loaded = { fs, name: "loaded" };
  const client = { fs, then: (resolve: (value: unknown) => unknown) => resolve(loaded) };
  return { client, thrown, files };
}

describe("a workspace client whose misses are local", () => {
  it("fails stat, lstat, readFile and find of a missing path with ENOENT, the workspace never throwing", async () => {
    const { client, thrown } = fakeClient({ "/workspace/a.txt": "hello" });
    const fs = withLocalMisses(client).fs;
    for (const [call, message] of [
      [() => fs.stat("/workspace/none"), "no such path: /workspace/none"],
      [() => fs.lstat("/workspace/none"), "no such path: /workspace/none"],
      [() => fs.readFile("/workspace/none"), "no such file: /workspace/none"],
      [() => fs.find("/workspace/none", "*.ts"), "no such path: /workspace/none"]
    ] as const) {
      await expect(call()).rejects.toMatchObject({ name: "WorkspaceFsError", code: "ENOENT", message });
    }
    expect(thrown).toEqual([]);
  });

  it("answers what exists as the workspace does, arguments and all", async () => {
    const { client, files } = fakeClient({ "/workspace/a.txt": "hello", "/workspace": "" });
    const fs = withLocalMisses(client).fs;
    expect(await fs.stat("/workspace/a.txt")).toEqual({ type: "file", size: 5 });
    expect(await fs.readFile("/workspace/a.txt", "utf8")).toBe("hello (utf8)");
    expect(await fs.find("/workspace", "*.txt")).toEqual(["/workspace/*.txt"]);
    await fs.writeFile("/workspace/b.txt", "new");
    expect(files["/workspace/b.txt"]).toBe("new");
  });

  it("gives the same behaviour to the client the lazy one resolves to", async () => {
    const { client, thrown } = fakeClient({});
    const loaded = (await withLocalMisses(client)) as unknown as { name: string; fs: { lstat(path: string): Promise<unknown> } };
    expect(loaded.name).toBe("loaded");
    await expect(loaded.fs.lstat("/x")).rejects.toMatchObject({ code: "ENOENT" });
    expect(thrown).toEqual([]);
  });
});
