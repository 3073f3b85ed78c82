/**
 * The SPA's routes: `/` the command center, `/thread/:session` a live
 * thread, `/repositories[/:owner/:name]` the repositories' records, inside
 * the router the caller gives (the browser's, or the Worker's static one for
 * `/`'s first view: src/http/first-view.tsx). The thread view loads as its
 * own chunk (it brings the transcript code and zod, through the envelope
 * parser), as does the repository view, so the command center paints
 * without them.
 */
import { lazy, Suspense, type ComponentType, type ReactNode } from "react";
import { Route, Routes } from "react-router";
import { ErrorBoundary } from "./components/error-boundary";
import { Loading } from "./components/state-views";
import { ThemeProvider } from "./components/theme-context";
import { FirstViewContext, type FirstView } from "./first-view";
import { CommandCenterPage } from "./pages/command-center-page";
import { NotFoundPage } from "./pages/not-found-page";

const ThreadPage = lazy(() => import("./pages/thread-page").then((module) => ({ default: module.ThreadPage })));
const RepositoriesPage = lazy(() => import("./pages/repositories-page").then((module) => ({ default: module.RepositoriesPage })));

export function App(props: { firstView: FirstView; router: ComponentType<{ children?: ReactNode }> }) {
  const Router = props.router;
  return (
    <FirstViewContext value={props.firstView}>
      <ThemeProvider>
        <Router>
          <ErrorBoundary>
            <Suspense fallback={<Loading what="the page" />}>
              <Routes>
                <Route path="/" element={<CommandCenterPage />} />
                <Route path="/thread/:session" element={<ThreadPage />} />
                <Route path="/repositories" element={<RepositoriesPage />} />
                <Route path="/repositories/:owner/:name" element={<RepositoriesPage />} />
                <Route path="*" element={<NotFoundPage />} />
              </Routes>
            </Suspense>
          </ErrorBoundary>
        </Router>
      </ThemeProvider>
    </FirstViewContext>
  );
}
