/**
 * The issue a reproduction page was published for, as the publication
 * records it: R2 custom metadata on each of its objects, written by
 * publish.ts and read back by the page's wrapper (src/http/repro-wrapper.ts)
 * for its header. What is read back is checked again, so a record that is
 * missing (a page published before pages recorded it) or malformed gives a
 * generic header, never text the wrapper did not vet. Pure.
 */
import { issueUrl } from "../shared/github-urls";
import { parseRepo } from "../shared/repo";

export type ReproIssue = {
  /** `owner/name`. */
  repo: string;
  number: number;
  /** The issue's page on GitHub, linked from the header. */
  url?: string;
};

/** The issue of a run's context, linked on `githubWebUrl` (the deploy's GitHub) when there is one. */
export function reproIssue(run: { repo: string; issueNumber: number }, githubWebUrl: string | undefined): ReproIssue {
  return { repo: run.repo, number: run.issueNumber, ...(githubWebUrl ? { url: issueUrl(githubWebUrl, run.repo, run.issueNumber) } : {}) };
}

const REPO_KEY = "agent-think-repo";
const NUMBER_KEY = "agent-think-issue";
const URL_KEY = "agent-think-issue-url";
const MAX_ISSUE_NUMBER = 2 ** 31 - 1;
const MAX_URL_CHARS = 500;

/** The custom metadata a publication's objects carry for `issue`; nothing for none. */
export function issueMetadata(issue: ReproIssue | undefined): Record<string, string> {
  const checked = issue ? checkedIssue(issue.repo, String(issue.number), issue.url) : undefined;
  if (!checked) return {};
  return { [REPO_KEY]: checked.repo, [NUMBER_KEY]: String(checked.number), ...(checked.url ? { [URL_KEY]: checked.url } : {}) };
}

/** The issue recorded in an object's custom metadata, or undefined when there is none or it does not hold. */
export function issueFromMetadata(metadata: Readonly<Record<string, string>> | undefined): ReproIssue | undefined {
  const repo = metadata?.[REPO_KEY];
  const number = metadata?.[NUMBER_KEY];
  if (repo === undefined || number === undefined) return undefined;
  return checkedIssue(repo, number, metadata?.[URL_KEY]);
}

function checkedIssue(repo: string, numberText: string, url: string | undefined): ReproIssue | undefined {
  if (!parseRepo(repo).ok || !/^[1-9][0-9]{0,9}$/.test(numberText)) return undefined;
  const number = Number(numberText);
  if (number > MAX_ISSUE_NUMBER) return undefined;
  return { repo, number, ...(url !== undefined && isWebUrl(url) ? { url } : {}) };
}

function isWebUrl(text: string): boolean {
  if (text.length > MAX_URL_CHARS) return false;
  try {
    const url = new URL(text);
    return (url.protocol === "https:" || url.protocol === "http:") && url.username === "" && url.password === "";
  } catch {
    return false;
  }
}
