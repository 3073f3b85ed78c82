/** Any other path. */
import { Link } from "react-router";
import { AppHeader } from "../components/app-header";
import { Empty } from "../components/state-views";

export function NotFoundPage() {
  return (
    <div className="page">
      <AppHeader back />
      <main className="thread">
        <Empty title="Nothing here" testId="not-found">
          <Link to="/">Back to the command center</Link>
        </Empty>
      </main>
    </div>
  );
}
