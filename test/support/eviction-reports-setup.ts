/**
 * The Workers suites' global setup (in Node) for workerd's reports of the
 * evictions the tests cause (test-eviction.ts). The pool writes workerd's
 * log lines to this process's stdout or stderr one message at a time; a line
 * that is such a report is counted instead of printed, and the count is said
 * once at the end. Every other line, including any uncaught exception a test
 * did not cause on purpose, is printed as before.
 */
import { isTestEvictionReport } from "./test-eviction";

export default function setup(): () => void {
  let captured = 0;
  const restore = [process.stdout, process.stderr].map((stream) => {
    const write = stream.write;
    stream.write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]): boolean {
      if (typeof chunk === "string" && isTestEvictionReport(chunk)) {
        captured++;
        return true;
      }
      return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    } as typeof stream.write;
    return () => {
      stream.write = write;
    };
  });
  return () => {
    for (const undo of restore) undo();
    if (captured > 0) process.stdout.write(`workerd reported ${captured} events cut off by evictions the tests caused on purpose (not printed)\n`);
  };
}
