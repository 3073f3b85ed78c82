import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// Relative asset URLs: the page is served under /repro/<id>/ (or at the
// root of a workers.dev preview) and must work at either.
export default defineConfig({ base: "./", plugins: [react()] });
