/**
 * The dashboard SPA's entry: the command center at `/` and the live thread
 * view at `/thread/:session`, built by Vite into `dist/client` and served
 * by the Worker as assets. What it renders lives in `src/ui/`.
 */
import { StrictMode } from "react";
import { flushSync } from "react-dom";
import { createRoot, hydrateRoot } from "react-dom/client";
import { BrowserRouter } from "react-router";
import { App } from "./ui/app";
import { applyStoredTheme } from "./ui/hooks/use-theme";
import { takeFirstView } from "./ui/inline-snapshot";
import "./ui/styles.css";

applyStoredTheme();
const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root element");
const first = takeFirstView();
const app = (
  <StrictMode>
    <App firstView={first} router={BrowserRouter} />
  </StrictMode>
);
// The Worker drew `/`'s first view into #root: it is already on screen, and React takes it over.
if (first.renderedAt !== null) hydrateRoot(root, app);
// Rendered now, not in a later task: the data `/` came with is in the first frame after the script.
else flushSync(() => createRoot(root).render(app));
