/** Any other path, and a thread the command center does not know (its API answered 404). */
import type { ReactNode } from "react";
import { Link } from "react-router";
import { AppHeader } from "../components/app-header";
import { HealthBanner } from "../components/health-banner";
import { Empty } from "../components/state-views";

/** `session`: a thread's page that found no thread (it keeps the thread page's test id and the health banner). */
export function NotFoundPage(props: { title?: string; children?: ReactNode; session?: string }) {
  return (
    <div className="page" data-testid={props.session ? "thread-page" : "not-found-page"} data-session={props.session}>
      <AppHeader back />
      <main className="thread">
        {props.session ? <HealthBanner /> : null}
        <Empty title={props.title ?? "Nothing here"} heading testId="not-found">
          {props.children ? <p className="not-found-detail">{props.children}</p> : null}
          <Link to="/" data-testid="not-found-back">
            Back to the command center
          </Link>
        </Empty>
      </main>
    </div>
  );
}
