/** Where a repository's record is on the dashboard: `/repositories/<owner>/<name>`. Its own module, so the command center's links cost its first paint nothing else. Pure. */
export function repositoryHref(repo: string): string {
  const [owner = "", name = ""] = repo.split("/");
  return `/repositories/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
}

/** The page listing every repository's record. */
export const REPOSITORIES_HREF = "/repositories";
