// `npm run repro`: runs triggerBug() from src/repro.ts in Node, as the page's
// button runs it in the browser, prints { expected, actual } as JSON on
// stdout (on stderr the page's verdict and, for examples folded into JSON
// objects, each call that differs) and says by its exit code what it found:
//   0  actual matches expected (the page says "Matches expected")
//   1  they differ ("Differs from expected"). A triggerBug() that throws is
//      such a result, its actual "threw <Name>: <message>" (the error on
//      stderr). Whether a difference is a bug is not the check's to say.
//   2  the check could not run: src/repro.ts is still the template, or it
//      did not load. The error and a one-line hint go to stderr.
// Node runs src/repro.ts by stripping its types (Node 22.18 and later), with
// no bundler: what Vite alone understands fails here to load.

const MATCHES = 0;
const DIFFERS = 1;
const COULD_NOT_RUN = 2;
// The template's triggerBug() throws this (src/repro.ts).
const TEMPLATE_ERROR = "triggerBug() is still the template";
const TEMPLATE_HINT = "fill in src/repro.ts: set REPRO's title and issueUrl, and replace triggerBug()'s body with the reproduction";
const STACK_LINES = 6;

// Until a result is printed, the run could not finish: a triggerBug() whose
// promise never settles ends the process with this code, not with 0.
process.exitCode = COULD_NOT_RUN;
let finished = false;
process.on("exit", () => {
  if (!finished) console.error("check: triggerBug() never settled (a promise nothing resolves?)\nhint: await everything the reproduction starts, and return its result");
});
// An error that escapes triggerBug() (a promise it did not await, a throwing
// callback) says nothing certain about the bug.
for (const event of ["uncaughtException", "unhandledRejection"]) {
  process.on(event, (error) => couldNotRun("an error escaped triggerBug()", error, "await every promise the reproduction starts, so its errors reach triggerBug()"));
}

function couldNotRun(what, error, hint) {
  finished = true;
  console.error(`check: ${what}${error === undefined ? "" : `:\n${describe(error, Infinity)}`}`);
  console.error(`hint: ${hint}`);
  process.exit(COULD_NOT_RUN);
}

// The error and where it came from; Node's own frames say nothing about the reproduction.
function describe(error, lines) {
  if (!(error instanceof Error)) return String(error);
  const stack = (error.stack ?? `${error.name}: ${error.message}`).split("\n").filter((line) => !/^\s+at (.* \()?node:/.test(line));
  return stack.slice(0, lines).join("\n");
}

/** What to do about an error importing src/repro.ts, in one line. */
function loadHint(error) {
  const code = error?.code;
  const message = String(error?.message ?? error);
  if (code === "ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX") {
    return "Node only strips types: write a union or an `as const` object instead of an enum, and no namespace or parameter properties";
  }
  if (code === "ERR_MODULE_NOT_FOUND" && message.startsWith("Cannot find package")) {
    return "install the package in /workspace/repro: npm install --save-exact <package>@<version>";
  }
  if (code === "ERR_MODULE_NOT_FOUND" && /\/src\/repro\.ts'/.test(message)) {
    return "write src/repro.ts: cp -a /opt/agent-think/repro-app/. /workspace/repro/ brings the template";
  }
  if (code === "ERR_MODULE_NOT_FOUND") return "Node needs a relative import's extension: ./helper.ts, not ./helper";
  if (code === "ERR_UNKNOWN_FILE_EXTENSION") {
    return message.includes('".ts"')
      ? "this Node does not strip TypeScript types: run it with Node 22.18 or later (the image's node)"
      : "src/repro.ts runs in Node too: keep JSX, CSS and other files only Vite reads out of it";
  }
  if (/does not provide an export named/.test(message)) return "import a type with `import type { ... }`, and check the name the module exports";
  if (error instanceof SyntaxError) return "src/repro.ts (or a file it imports) does not parse: fix what the error names";
  return "the error came from loading src/repro.ts or what it imports, before triggerBug() ran: move the reproduction into triggerBug()";
}

function jsonObject(text) {
  try {
    const value = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** With several examples folded into JSON objects: each call whose value differs, one a line. */
function differingCalls(result) {
  const expected = jsonObject(result.expected);
  const actual = jsonObject(result.actual);
  if (!expected || !actual) return [];
  return [...new Set([...Object.keys(expected), ...Object.keys(actual)])]
    .filter((key) => JSON.stringify(expected[key]) !== JSON.stringify(actual[key]))
    .map((key) => `  ${key}: expected ${JSON.stringify(expected[key]) ?? "nothing"}, actual ${JSON.stringify(actual[key]) ?? "nothing"}`);
}

/** A returned value, short, whatever it is (a cycle or a BigInt does not stringify). */
function shown(value) {
  let text;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}

function isResult(value) {
  return typeof value === "object" && value !== null && typeof value.expected === "string" && typeof value.actual === "string";
}

async function main() {
  let outcome;
  let repro;
  try {
    outcome = await import("./src/outcome.ts");
    repro = await import("./src/repro.ts");
  } catch (error) {
    couldNotRun("src/repro.ts failed to load", error, loadHint(error));
  }
  if (typeof repro.triggerBug !== "function" || typeof repro.REPRO !== "object" || repro.REPRO === null) {
    couldNotRun("src/repro.ts does not export REPRO and triggerBug()", undefined, "keep the template's exports: REPRO and async function triggerBug()");
  }
  if (String(repro.REPRO.title).startsWith("REPLACE")) couldNotRun("src/repro.ts is still the template (REPRO.title)", undefined, TEMPLATE_HINT);

  let result;
  try {
    result = await repro.triggerBug();
  } catch (error) {
    if (error instanceof Error && error.message.startsWith(TEMPLATE_ERROR)) couldNotRun("src/repro.ts is still the template (triggerBug)", undefined, TEMPLATE_HINT);
    console.error(`triggerBug() threw:\n${describe(error, STACK_LINES)}`);
    result = outcome.thrownResult(error);
  }
  if (!isResult(result)) {
    couldNotRun(
      `triggerBug() returned ${shown(result)}, not { expected: string, actual: string }`,
      undefined,
      "return strings: fold several examples into one with JSON.stringify({ \"<call>\": value, ... })"
    );
  }
  finished = true;
  console.log(JSON.stringify({ expected: result.expected, actual: result.actual }, null, 2));
  console.error([outcome.verdict(result), ...differingCalls(result)].join("\n"));
  process.exitCode = outcome.matches(result) ? MATCHES : DIFFERS;
}

main().catch((error) => couldNotRun("check.mjs failed", error, "this is a fault of check.mjs itself: run src/repro.ts another way and say so"));
