/**
 * In-memory stand-ins for the Durable Object storage the pure modules take
 * through narrow interfaces, for the unit tests: the run ledger's (a get of
 * one key or several, put, a delete of several) and the outbox's (get, put
 * and a prefix list, every value cloned as storage would).
 */
import type { RunLedgerStorage } from "../../src/run/run-ledger";

/** The ledger's storage, with its map to look into. */
export function memoryLedgerStorage(): RunLedgerStorage & { map: Map<string, unknown> } {
  const map = new Map<string, unknown>();
  const storage = {
    map,
    async get(key: string | string[]) {
      if (Array.isArray(key)) return new Map(key.filter((k) => map.has(k)).map((k) => [k, map.get(k)]));
      return map.get(key);
    },
    async put(key: string, value: unknown) {
      map.set(key, value);
    },
    async delete(keys: string[]) {
      return keys.filter((key) => map.delete(key)).length;
    }
  };
  return storage as typeof storage & RunLedgerStorage;
}

/** Keyed storage that clones what goes in and comes out, with a prefix list (the outbox's and the progress comment's). */
export function memoryClonedStorage() {
  const map = new Map<string, unknown>();
  return {
    get: async <T>(key: string) => structuredClone(map.get(key)) as T | undefined,
    put: async <T>(key: string, value: T) => void map.set(key, structuredClone(value)),
    list: async <T>({ prefix }: { prefix: string }) => new Map([...map].filter(([key]) => key.startsWith(prefix)) as Array<[string, T]>)
  };
}
