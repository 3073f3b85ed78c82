/**
 * Builds the dashboard SPA (index.html → src/client.tsx) into dist/client,
 * which the Worker serves as static assets. Only the SPA: the Worker itself
 * is built and run by wrangler.
 *
 * `npx vite` serves the SPA with hot reload and forwards the API and agent
 * sockets to `wrangler dev` on 127.0.0.1:8787 (started separately).
 */
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

const WORKER = "http://127.0.0.1:8787";

export default defineConfig({
  plugins: [react()],
  build: {
    outDir: "dist/client",
    emptyOutDir: true,
    // Operators use current browsers: no transforms for old ones.
    target: "es2022"
  },
  server: {
    proxy: {
      "/api": { target: WORKER },
      "/agents": { target: WORKER, ws: true }
    }
  }
});
