/**
 * Repositories' files, once a test seeds them (`seedFile`, on one ref or on
 * every ref), answered as the contents API answers: the text itself for
 * GitHub's raw media type, else GitHub's file object with base64 content.
 * A seeded directory is not listed (501); any other path is GitHub's 404.
 */

import { createHash } from "node:crypto";
import { notFound, notModelled, type StandinAnswer, type StandinBasics, type StandinCall } from "./github-standin-answers";

/** A file as a test seeds it (`POST /_standin/files`, `seedFile`). Without `ref` it is on every ref a seed for that ref does not replace. */
export type FileSeed = { repo: string; path: string; ref?: string; content: string };

/** GitHub's media types that ask the contents API for the file itself. */
const RAW_MEDIA_TYPE = /application\/vnd\.github(?:\.v3)?\.raw(?:\+json)?(?:\s*[;,]|\s*$)/i;
const CONTENTS_DOCS_URL = "https://docs.github.com/rest/repos/contents#get-repository-content";

export class StandinContents {
  readonly #basics: StandinBasics;
  readonly #files = new Map<string, string>();

  constructor(basics: StandinBasics) {
    this.#basics = basics;
  }

  /** Adds or replaces a file of `repo` at `path` (on `ref`, or on every ref). */
  seed(seed: FileSeed): void {
    this.#files.set(fileKey(seed.repo, seed.ref, seed.path), seed.content);
  }

  get(call: StandinCall): StandinAnswer {
    const repo = `${call.params.owner}/${call.params.repo}`;
    const path = call.params.path!.replace(/^\/+|\/+$/g, "");
    const ref = call.query.get("ref") ?? undefined;
    const content = (ref === undefined ? undefined : this.#files.get(fileKey(repo, ref, path))) ?? this.#files.get(fileKey(repo, undefined, path));
    if (content === undefined) {
      const prefix = `${repo.toLowerCase()}/${path}/`;
      const isDirectory = [...this.#files.keys()].some((key) => key.slice(key.indexOf(" ") + 1).startsWith(prefix));
      if (isDirectory) return notModelled(`The GitHub stand-in does not list directories (repos/get-content on ${repo}/${path}): seed and ask for files`, CONTENTS_DOCS_URL);
      return notFound(CONTENTS_DOCS_URL);
    }
    if (RAW_MEDIA_TYPE.test(call.accept ?? "")) {
      return { status: 200, raw: content, headers: { "content-type": "text/plain; charset=utf-8", "x-github-media-type": "github.v3; param=raw; format=json" } };
    }
    const base = this.#basics.baseUrl();
    const bytes = Buffer.from(content, "utf8");
    const sha = gitBlobSha(bytes);
    const at = ref ?? "main";
    const encodedPath = path.split("/").map(encodeURIComponent).join("/");
    const self = `${base}/repos/${repo}/contents/${encodedPath}?ref=${encodeURIComponent(at)}`;
    const git = `${base}/repos/${repo}/git/blobs/${sha}`;
    const html = `${base}/${repo}/blob/${encodeURIComponent(at)}/${encodedPath}`;
    return {
      status: 200,
      body: {
        type: "file",
        encoding: "base64",
        size: bytes.length,
        name: path.split("/").at(-1)!,
        path,
        // GitHub wraps its base64 at 60 characters, each line ended by \n.
        content: (bytes.toString("base64").match(/.{1,60}/g) ?? []).map((line) => `${line}\n`).join(""),
        sha,
        url: self,
        git_url: git,
        html_url: html,
        download_url: `${base}/raw/${repo}/${encodeURIComponent(at)}/${encodedPath}`,
        _links: { self, git, html }
      }
    };
  }
}

/** Repository names are case-insensitive on GitHub, paths and refs are not. */
function fileKey(repo: string, ref: string | undefined, path: string): string {
  return `${ref ?? ""} ${repo.toLowerCase()}/${path.replace(/^\/+|\/+$/g, "")}`;
}

/** Git's blob id of `bytes`, as GitHub's `sha` for a file. */
function gitBlobSha(bytes: Buffer): string {
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}
