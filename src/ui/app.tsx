/**
 * The SPA's routes: `/` the command center, `/thread/:session` a live
 * thread. The thread view loads as its own chunk (it brings the transcript
 * code and zod, through the envelope parser), so the command center paints
 * without it.
 */
import { lazy, Suspense } from "react";
import { BrowserRouter, Route, Routes } from "react-router";
import { ErrorBoundary } from "./components/error-boundary";
import { Loading } from "./components/state-views";
import { ThemeProvider } from "./components/theme-context";
import { CommandCenterPage } from "./pages/command-center-page";
import { NotFoundPage } from "./pages/not-found-page";

const ThreadPage = lazy(() => import("./pages/thread-page").then((module) => ({ default: module.ThreadPage })));

export function App() {
  return (
    <ThemeProvider>
      <BrowserRouter>
        <ErrorBoundary>
          <Suspense fallback={<Loading what="the thread" />}>
            <Routes>
              <Route path="/" element={<CommandCenterPage />} />
              <Route path="/thread/:session" element={<ThreadPage />} />
              <Route path="*" element={<NotFoundPage />} />
            </Routes>
          </Suspense>
        </ErrorBoundary>
      </BrowserRouter>
    </ThemeProvider>
  );
}
