import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// Relative asset URLs: the page is served under /repro/<id>/ (or a private
// page's granted address) and must work at any of them.
export default defineConfig({ base: "./", plugins: [react()] });
