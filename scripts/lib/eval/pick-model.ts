/**
 * `--model`: the cases run on one model by way of the repository's own
 * choice, `model:` in its `.github/agent-think.yml` (the Worker reads it
 * from the default branch before the model starts; MODELS_ALLOWED must
 * allow the model, else every case ends with the setup-failed comment).
 * `withModel` puts the field into a file's text, keeping the rest; the two
 * writers put the file where each target's Worker reads it and return what
 * puts it back:
 * - github: the sandbox repository, through the contents API, as one commit
 *   on the default branch, and the file as it was (or none) after the last case;
 * - local: the GitHub stand-in the local Worker reads (`--standin`,
 *   `POST /_standin/files`), for each case's repository; the stand-in cannot
 *   delete a file, so one that was not there is put back as `version: 1`,
 *   which asks for nothing.
 */
import type { Octokit } from "@octokit/rest";
import { REPO_CONFIG_PATH } from "../../../src/run/repo-config";

/** The config's text with `model: <model>`: its top-level `model:` line replaced, or one added; a new file when there was none. */
export function withModel(text: string | null, model: string): string {
  if (text === null || text.trim() === "") return `version: 1\nmodel: ${model}\n`;
  const line = /^model:.*$/m;
  if (line.test(text)) return text.replace(line, `model: ${model}`);
  return `${text.endsWith("\n") ? text : `${text}\n`}model: ${model}\n`;
}

/** Into the sandbox repository's default branch; returns what puts the file back as it was. */
export async function pickModelOnGitHub(octokit: Octokit, repo: string, model: string): Promise<() => Promise<void>> {
  const [owner, name] = repo.split("/") as [string, string];
  const path = REPO_CONFIG_PATH;
  const before = await current(octokit, owner, name);
  const message = (what: string) => `agent-think eval: ${what}`;
  const { data } = await octokit.rest.repos.createOrUpdateFileContents({
    owner,
    repo: name,
    path,
    message: message(`run the cases on ${model}`),
    content: Buffer.from(withModel(before?.text ?? null, model)).toString("base64"),
    ...(before ? { sha: before.sha } : {})
  });
  const sha = data.content?.sha;
  return async () => {
    if (!sha) return;
    if (before) {
      await octokit.rest.repos.createOrUpdateFileContents({ owner, repo: name, path, message: message("put the config back"), content: Buffer.from(before.text).toString("base64"), sha });
    } else {
      await octokit.rest.repos.deleteFile({ owner, repo: name, path, message: message("remove the config it added"), sha });
    }
  };
}

async function current(octokit: Octokit, owner: string, repo: string): Promise<{ text: string; sha: string } | null> {
  try {
    const { data } = await octokit.rest.repos.getContent({ owner, repo, path: REPO_CONFIG_PATH });
    if (Array.isArray(data) || data.type !== "file" || !("content" in data)) throw new Error(`${REPO_CONFIG_PATH} in ${owner}/${repo} is not a file`);
    return { text: Buffer.from(data.content, "base64").toString("utf8"), sha: data.sha };
  } catch (error) {
    if ((error as { status?: number }).status === 404) return null;
    throw error;
  }
}

/** Into the GitHub stand-in at `standin` (its origin), for each of `repos`; returns what puts each back. */
export async function pickModelOnStandin(standin: string, repos: readonly string[], model: string, fetcher: typeof fetch = fetch): Promise<() => Promise<void>> {
  const api = (path: string) => new URL(path, standin).toString();
  const before = new Map<string, string | null>();
  for (const repo of repos) {
    const response = await fetcher(api(`/repos/${repo}/contents/${REPO_CONFIG_PATH}`), { headers: { accept: "application/vnd.github.raw" }, signal: AbortSignal.timeout(10_000) });
    const text = response.status === 200 ? await response.text() : (await response.body?.cancel(), null);
    before.set(repo, text);
    await seed(fetcher, api("/_standin/files"), repo, withModel(text, model));
  }
  return async () => {
    for (const [repo, text] of before) await seed(fetcher, api("/_standin/files"), repo, text ?? "version: 1\n");
  };
}

async function seed(fetcher: typeof fetch, url: string, repo: string, content: string): Promise<void> {
  const response = await fetcher(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ repo, path: REPO_CONFIG_PATH, content }),
    signal: AbortSignal.timeout(10_000)
  });
  if (response.status !== 204) throw new Error(`the GitHub stand-in answered ${response.status} to seeding ${repo}'s ${REPO_CONFIG_PATH}: ${(await response.text()).slice(0, 200)}`);
}
