/**
 * The workspace client as the agent's file tools use it, with "no such path" answered
 * here instead of thrown across RPC: Think's file tools `lstat` a path before writing a new file,
 * and a missing path thrown by the WorkspaceAgent's RPC method is logged by workerd as an
 * uncaught error on every new file. `stat`, `lstat`, `readFile` and `find` ask the workspace's
 * `statOrNull`/`lstatOrNull` and throw the same ENOENT error locally, where only the tool sees
 * it. Everything else is the client's own. Pure.
 */

type Filesystem = Record<string, unknown> & {
  statOrNull?: (path: string) => Promise<unknown>;
  lstatOrNull?: (path: string) => Promise<unknown>;
};

const QUIET: ReadonlyArray<readonly [string, "statOrNull" | "lstatOrNull"]> = [
  ["stat", "statOrNull"],
  ["lstat", "lstatOrNull"]
];

/** Methods whose first argument must exist, and what the workspace calls it when it does not. */
const CHECKED: Readonly<Record<string, string>> = { readFile: "no such file", find: "no such path" };

/** `client` with its `fs` (and the `fs` of the client it resolves to) answering misses locally. */
export function withLocalMisses<T extends object>(client: T): T {
  const fsCache = new WeakMap<object, object>();
  const quietFs = (fs: Filesystem): Filesystem => {
    const cached = fsCache.get(fs);
    if (cached) return cached as Filesystem;
    const wrapped = new Proxy(fs, {
      get(target, property) {
        const pair = QUIET.find(([name]) => name === property);
        const orNull = pair ? target[pair[1]] : undefined;
        if (pair && typeof orNull === "function") {
          return async (path: string) => {
            const found = await (orNull as (path: string) => Promise<unknown>).call(target, path);
            if (found === null) throw missing(path);
            return found;
          };
        }
        const value = Reflect.get(target, property, target);
        const checked = typeof property === "string" ? CHECKED[property] : undefined;
        const statOrNull = target.statOrNull;
        if (checked && typeof value === "function" && typeof statOrNull === "function") {
          return async (path: string, ...rest: unknown[]) => {
            if ((await statOrNull.call(target, path)) === null) throw missing(path, checked);
            return (value as (...args: unknown[]) => unknown).call(target, path, ...rest);
          };
        }
        return typeof value === "function" ? value.bind(target) : value;
      }
    });
    fsCache.set(fs, wrapped);
    return wrapped;
  };
  const wrap = <C extends object>(target: C): C =>
    new Proxy(target, {
      get(inner, property) {
        const value = Reflect.get(inner, property, inner);
        if (property === "fs" && value !== null && typeof value === "object") return quietFs(value as Filesystem);
        if (property === "then" && typeof value === "function") {
          // Awaiting the lazy client gives the loaded client: its fs answers misses locally too.
          return (onFulfilled?: (loaded: unknown) => unknown, onRejected?: (error: unknown) => unknown) =>
            (value as PromiseLike<unknown>["then"]).call(
              inner,
              (loaded) => (onFulfilled ? onFulfilled(loaded !== null && typeof loaded === "object" ? wrap(loaded) : loaded) : loaded),
              onRejected
            );
        }
        return typeof value === "function" ? value.bind(inner) : value;
      }
    });
  return wrap(client);
}

function missing(path: string, what = "no such path"): Error {
  const error = new Error(`${what}: ${path}`) as Error & { code: string; path: string };
  error.name = "WorkspaceFsError";
  error.code = "ENOENT";
  error.path = path;
  return error;
}
