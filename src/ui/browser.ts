/**
 * The browser, as the UI reaches it. The Worker renders the same components
 * (src/http/first-view.tsx), so its project compiles this code without DOM
 * types: what the UI needs of the page is typed here. None of it exists on
 * the Worker: effects and event handlers use it, and the one read at render
 * (the stored theme) falls back to "system" without it.
 */
type ScrollListener = (this: unknown) => void;

export type Browser = {
  location: { host: string; reload(): void };
  localStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void; removeItem(key: string): void };
  document: {
    documentElement: { dataset: Record<string, string | undefined>; scrollHeight: number };
    querySelector(selector: string): { getBoundingClientRect(): { bottom: number } } | null;
  };
  innerHeight: number;
  scrollY: number;
  scrollBy(options: { top: number }): void;
  addEventListener(type: "scroll", listener: ScrollListener, options: { passive: boolean }): void;
  removeEventListener(type: "scroll", listener: ScrollListener): void;
};

export const browser = globalThis as unknown as Browser;

/** What a text field holds, from its change event's target. */
export const fieldValue = (target: unknown): string => (target as { value: string }).value;
