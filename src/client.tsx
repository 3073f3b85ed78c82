/**
 * The dashboard SPA's entry: the command center at `/` and the live thread
 * view at `/thread/:session`, built by Vite into `dist/client` and served
 * by the Worker as assets. What it renders lives in `src/ui/`.
 */
import { StrictMode } from "react";
import { flushSync } from "react-dom";
import { createRoot } from "react-dom/client";
import { App } from "./ui/app";
import { applyStoredTheme } from "./ui/hooks/use-theme";
import "./ui/styles.css";

applyStoredTheme();
const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root element");
// Rendered now, not in a later task: the data `/` came with is in the first frame after the script.
flushSync(() =>
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>
  )
);
