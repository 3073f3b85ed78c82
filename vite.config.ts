/**
 * Builds the dashboard SPA (index.html → src/client.tsx) into dist/client,
 * which the Worker serves as static assets. Only the SPA: the Worker itself
 * is built and run by wrangler.
 *
 * `npx vite` serves the SPA with hot reload and forwards the API and agent
 * sockets to `wrangler dev` on 127.0.0.1:8787 (started separately).
 */
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";

const WORKER = "http://127.0.0.1:8787";

/** The entry's stylesheet written into index.html as a `<style>`, its file dropped (docs/dashboard.md, First paint). */
function inlineStylesheet(): Plugin {
  const inlined = new Set<string>();
  return {
    name: "agent-think:inline-stylesheet",
    apply: "build",
    enforce: "post",
    transformIndexHtml: {
      order: "post",
      handler(html, { bundle }) {
        return html.replace(/<link rel="stylesheet"(?: crossorigin)? href="\/([^"]+\.css)">/g, (tag, file: string) => {
          const asset = bundle?.[file];
          if (asset?.type !== "asset") return tag;
          const css = String(asset.source);
          if (/<\/style/i.test(css)) throw new Error(`${file} holds "</style": it cannot be inlined`);
          inlined.add(file);
          return `<style>${css}</style>`;
        });
      }
    },
    generateBundle(_options, bundle) {
      for (const file of inlined) delete bundle[file];
    }
  };
}

export default defineConfig({
  plugins: [react(), inlineStylesheet()],
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
