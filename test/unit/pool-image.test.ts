/**
 * The container image stays coupled to what runs in it and to the package it
 * serves. computerd's tag is the installed @cloudflare/computer version (their
 * RPC and sync protocol must match) and wrangler's pin is the project's own.
 * Every command the skills tell the model to run, and every command the
 * fixed scripts agent-think itself sends (the output wrapper, the git auth
 * script), is a tool the image provides: the words are read out of those
 * texts, each must be a shell builtin or a row of TOOLS naming what installs
 * it, and the Dockerfile's build-time check must test for it. So a skill that
 * starts calling a new tool fails here until the image has it. A variable
 * meant for commands reaches them (computerd passes a command only a few
 * variables and COMPUTER_VAR_ twins), and the build context holds only what
 * the Dockerfile copies. The reproduction page's template is the reproduce
 * skill's asset directory, copied whole and installed with `npm ci` from a
 * lockfile that pins exactly the versions its package.json names. Every
 * programming language the skills name has its toolchain installed and
 * checked at build time (LANGUAGES), and the skills name no other. No Docker
 * here: this reads the files.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { gitIdentityScript } from "../../src/run/git-identity";
import { wrapCommand } from "../../src/run/command-report";

const dockerfile = readFileSync("Dockerfile", "utf8");
/** The reproduce skill's page template, and where the image holds it installed. */
const TEMPLATE_DIR = "skills/reproduce/assets/repro-app";
const TEMPLATE_IN_IMAGE = "/opt/agent-think/repro-app";
const dockerignore = existsSync(".dockerignore") ? readFileSync(".dockerignore", "utf8") : "";
// The package's exports map hides package.json, so read the installed copy.
const installedVersion = (name: string) => (JSON.parse(readFileSync(`node_modules/${name}/package.json`, "utf8")) as { version: string }).version;

/** Where a tool in the image comes from. */
type Source =
  | { apt: string } // named in an `apt-get install` of the Dockerfile
  | { npmGlobal: string } // `npm install -g <name>@<exact version>`
  | "node-image"; // the node:22 base image

/** Every tool the agent's commands rely on, and what installs it. */
const TOOLS: Record<string, Source> = {
  // the agent's shell: GitHub, git and the network
  gh: { apt: "gh" },
  git: { apt: "git" },
  curl: { apt: "curl" },
  jq: { apt: "jq" },
  node: "node-image",
  npm: "node-image",
  npx: "node-image",
  wrangler: { npmGlobal: "wrangler" },
  // node-gyp builds of users' dependencies, and checks in Python
  python3: { apt: "python3" },
  pip3: { apt: "python3-pip" },
  // checks in Go
  go: { apt: "golang-go" },
  cc: { apt: "build-essential" },
  gcc: { apt: "build-essential" },
  "g++": { apt: "build-essential" },
  make: { apt: "build-essential" },
  "pkg-config": { apt: "pkg-config" },
  // unpacking and inspecting
  unzip: { apt: "unzip" },
  xz: { apt: "xz-utils" },
  tar: { apt: "tar" },
  ps: { apt: "procps" },
  // trusting the egress gateway's interception CA (the identity script)
  "update-ca-certificates": { apt: "ca-certificates" },
  cmp: { apt: "diffutils" },
  // the wrapper, the identity script and the skills' pipelines. Debian
  // images always have these; naming the packages keeps it so on any base.
  bash: { apt: "bash" },
  cp: { apt: "coreutils" },
  timeout: { apt: "coreutils" },
  cat: { apt: "coreutils" },
  cut: { apt: "coreutils" },
  head: { apt: "coreutils" },
  tail: { apt: "coreutils" },
  tr: { apt: "coreutils" },
  wc: { apt: "coreutils" },
  ls: { apt: "coreutils" },
  mkdir: { apt: "coreutils" },
  mktemp: { apt: "coreutils" },
  mv: { apt: "coreutils" },
  rm: { apt: "coreutils" },
  sed: { apt: "sed" },
  grep: { apt: "grep" },
  find: { apt: "findutils" }
};

/**
 * The programming languages the skills may name, and what makes each work in
 * the image: the tools (rows of TOOLS) and any further Debian packages they
 * need (`python3 -m venv` needs python3-venv). The reproduce skill's
 * references/languages.md lists exactly these.
 */
const LANGUAGES: Record<string, { tools: string[]; apt: string[] }> = {
  JavaScript: { tools: ["node", "npm", "npx"], apt: [] },
  TypeScript: { tools: ["node", "npm", "npx"], apt: [] },
  Python: { tools: ["python3", "pip3"], apt: ["python3", "python3-venv", "python3-pip"] },
  Go: { tools: ["go"], apt: ["golang-go"] },
  C: { tools: ["cc", "gcc", "make"], apt: ["build-essential"] },
  "C++": { tools: ["g++", "make"], apt: ["build-essential"] }
};

/** Languages a skill might name: naming one outside LANGUAGES promises a toolchain the image lacks. */
const KNOWN_LANGUAGES = [
  ...Object.keys(LANGUAGES),
  "Rust", "Java", "Kotlin", "Scala", "Clojure", "Groovy", "Ruby", "PHP", "Perl", "C#", "F#", "Swift", "Objective-C",
  "Elixir", "Erlang", "Haskell", "OCaml", "Dart", "Lua", "Julia", "Zig", "Nim", "Crystal", "Fortran", "COBOL"
];

/** The languages a text names, by whole name and case (JavaScript is not Java, C++ and C# are not C). */
function languagesNamed(text: string): Set<string> {
  const escape = (name: string) => name.replace(/[.*+?^${}()|[\]\\#]/g, "\\$&");
  return new Set(KNOWN_LANGUAGES.filter((name) => new RegExp(`(?<![\\w#+-])${escape(name)}(?![\\w#+])`).test(text)));
}

/** Words a POSIX shell or bash runs itself. */
const BUILTINS = new Set([
  ".", ":", "[", "break", "cd", "command", "continue", "echo", "eval", "exec", "exit", "export", "false",
  "kill", "local", "printf", "pwd", "read", "return", "set", "shift", "source", "test", "trap", "true",
  "type", "umask", "unset", "wait"
]);

// --- Dockerfile -------------------------------------------------------------

/** Instructions with continuation lines joined and comment lines dropped. */
function instructions(text: string): Array<{ keyword: string; args: string }> {
  const lines = text.split("\n").filter((line) => !/^\s*#/.test(line));
  const joined: string[] = [];
  let current = "";
  for (const line of lines) {
    if (/\\\s*$/.test(line)) current += `${line.replace(/\\\s*$/, "")} `;
    else {
      current += line;
      if (current.trim()) joined.push(current.trim());
      current = "";
    }
  }
  return joined.map((line) => {
    const [keyword = "", ...rest] = line.split(/\s+/);
    return { keyword: keyword.toUpperCase(), args: rest.join(" ") };
  });
}

const steps = instructions(dockerfile);
const runs = steps.filter((step) => step.keyword === "RUN").map((step) => step.args);
const env = new Map(
  steps
    .filter((step) => step.keyword === "ENV")
    .flatMap((step) => [...step.args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=(\S+)/g)].map((m) => [m[1]!, m[2]!] as const))
);
const aptPackages = new Set(
  runs.flatMap((run) =>
    [...run.matchAll(/apt-get install ((?:[^&;|]|&(?!&))+)/g)].flatMap((m) => m[1]!.split(/\s+/).filter((w) => w && !w.startsWith("-")))
  )
);
const npmGlobals = new Map(
  runs.flatMap((run) =>
    [...run.matchAll(/npm install (?:-g|--global) ((?:[^&;|]|&(?!&))+)/g)].flatMap((m) =>
      m[1]!
        .split(/\s+/)
        .filter((w) => w && !w.startsWith("-"))
        .map((spec) => {
          const at = spec.lastIndexOf("@");
          return at > 0 ? ([spec.slice(0, at), spec.slice(at + 1)] as const) : ([spec, ""] as const);
        })
    )
  )
);
/** The tools the build itself checks for (`for tool in …; do command -v`). */
const buildChecked = new Set(runs.flatMap((run) => /for tool in ([^;]+);\s*do command -v/.exec(run)?.[1]!.split(/\s+/).filter(Boolean) ?? []));

// --- shell words ------------------------------------------------------------

/** Replaces quoted strings with empty quotes (commands inside "$(…)" are not read). */
function stripQuotes(script: string): string {
  let out = "";
  for (let i = 0; i < script.length; i++) {
    const c = script[i]!;
    if (c === "\\") {
      out += script.slice(i, i + 2);
      i++;
    } else if (c === "'") {
      const end = script.indexOf("'", i + 1);
      out += "''";
      i = end < 0 ? script.length : end;
    } else if (c === '"') {
      let j = i + 1;
      while (j < script.length && script[j] !== '"') j += script[j] === "\\" ? 2 : 1;
      out += '""';
      i = j;
    } else out += c;
  }
  return out;
}

const PREFIX_KEYWORDS = new Set(["if", "then", "else", "elif", "do", "while", "until", "!", "{", "time"]);
const CLOSING_KEYWORDS = new Set(["fi", "done", "esac", "}"]);

/** The command words of a shell script: what must be on PATH, or a builtin, for it to run. */
function commandWords(script: string): Set<string> {
  const text = stripQuotes(script.replace(/\\\n/g, " "))
    .replace(/(^|\s)#.*$/gm, "$1")
    // arithmetic: names, not commands
    .replace(/\$\(\([^()]*\)\)/g, "0")
    // a case arm's pattern, after `in` or `;;`
    .replace(/(\bin|;;)\s+\(?[^\s()]+\)/g, "$1 ");
  const words = new Set<string>();
  for (const segment of text.split(/\n|;;|;|&&|\|\||\||(?<![<>])&|\$\(|\(|\)|`/)) {
    const tokens = segment.trim().split(/\s+/).filter(Boolean);
    let i = 0;
    const skipRedirectsAndAssignments = () => {
      while (i < tokens.length) {
        const token = tokens[i]!;
        if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(token)) i++;
        else if (/^\d*(<|>)/.test(token)) i += /^\d*(<<?|>>?|>&|<&|>\|)$/.test(token) ? 2 : 1;
        else break;
      }
    };
    for (;;) {
      skipRedirectsAndAssignments();
      const word = tokens[i];
      if (word === undefined || CLOSING_KEYWORDS.has(word) || word === "for") break;
      if (PREFIX_KEYWORDS.has(word)) {
        i++;
        continue;
      }
      if (word === "case") {
        const inAt = tokens.indexOf("in", i);
        if (inAt < 0) break;
        i = inAt + 1;
        continue;
      }
      // a quoted or expanded command word cannot be read statically
      if (word.startsWith('"') || word.startsWith("'") || word.startsWith("$")) break;
      words.add(word);
      if (word === "exec" || word === "command") {
        i++;
        while (tokens[i]?.startsWith("-")) i++;
        continue;
      }
      if (word === "timeout") {
        i++;
        while (tokens[i]?.startsWith("-")) i += /^-[ks]$|^--(kill-after|signal)$/.test(tokens[i]!) ? 2 : 1;
        i++; // the duration
        continue;
      }
      break;
    }
  }
  return words;
}

// --- what the agent runs ----------------------------------------------------

const SKILLS_DIR = "skills";
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? (entry.name === "node_modules" ? [] : filesUnder(join(dir, entry.name))) : [join(dir, entry.name)]
  );
}
const skillFiles = filesUnder(SKILLS_DIR);

/** Each shell block of the skills' Markdown, and each npm script of their assets, by where it is. */
const agentScripts: Array<{ where: string; script: string; provided: Set<string> }> = [
  ...skillFiles
    .filter((file) => file.endsWith(".md"))
    .flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```/gm)].map((m, n) => ({
        where: `${file} shell block ${n + 1}`,
        script: m[1]!,
        provided: new Set<string>()
      }))
    ),
  ...skillFiles
    .filter((file) => file.endsWith("package.json"))
    .flatMap((file) => {
      const pkg = JSON.parse(readFileSync(file, "utf8")) as {
        scripts?: Record<string, string>;
        dependencies?: Record<string, string>;
        devDependencies?: Record<string, string>;
      };
      // npm puts the package's own dependencies' binaries on PATH for its scripts
      const provided = new Set(Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }));
      return Object.entries(pkg.scripts ?? {}).map(([name, script]) => ({ where: `${file} script ${name}`, script, provided }));
    }),
  {
    where: "src/run/command-report.ts wrapCommand",
    script: wrapCommand("true", { id: "x", nonce: "n", maxBytes: 100, timeoutSeconds: 1 }),
    provided: new Set<string>()
  },
  { where: "src/run/git-identity.ts gitIdentityScript", script: gitIdentityScript({ login: "agent-think[bot]" }), provided: new Set<string>() }
];

// --- .dockerignore ----------------------------------------------------------

/** Docker's rule: the last pattern matching a path, or one of its parent directories, decides. */
function inContext(path: string): boolean {
  const patterns = dockerignore
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"));
  const prefixes = path.split("/").map((_, i, parts) => parts.slice(0, i + 1).join("/"));
  let included = true;
  for (const line of patterns) {
    const exception = line.startsWith("!");
    const pattern = (exception ? line.slice(1) : line).replace(/^\/+/, "").replace(/\/+$/, "");
    const source = pattern
      .split("/")
      .map((part) => (part === "**" ? "(?:.*)" : part.replace(/[.+^${}()|\\]/g, "\\$&").replaceAll("*", "[^/]*").replaceAll("?", "[^/]")))
      .join("/")
      .replaceAll("(?:.*)/", "(?:.*/)?");
    const regex = new RegExp(`^${source}$`);
    if (prefixes.some((prefix) => regex.test(prefix))) included = exception;
  }
  return included;
}

// Directories .dockerignore's last lines (`**/<name>`) keep out at any depth:
// not walked, since nothing under them is sent (and tests write there).
const neverSent = new Set(dockerignore.split("\n").flatMap((line) => /^\*\*\/([\w.-]+)$/.exec(line.trim())?.[1] ?? []));

/** Every file of the project a build could send. */
function projectFiles(dir = "."): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = dir === "." ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) return neverSent.has(entry.name) ? [] : projectFiles(path);
    return entry.isFile() ? [path] : [];
  });
}

type PackageJson = { name: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
type PackageLock = { name: string; lockfileVersion: number; packages: Record<string, { version?: string } & Partial<PackageJson>> };

describe("Dockerfile", () => {
  it("pins computerd to the installed @cloudflare/computer version", () => {
    const tag = /^FROM ghcr\.io\/cloudflare\/computer-computerd-linux-x64:(\S+) AS computerd$/m.exec(dockerfile)?.[1];
    expect(tag).toBe(installedVersion("@cloudflare/computer"));
  });

  it("pins wrangler to the project's installed wrangler version", () => {
    expect(npmGlobals.get("wrangler")).toBe(installedVersion("wrangler"));
  });

  it("copies the daemon into the runtime image and runs it", () => {
    expect(dockerfile).toContain("COPY --from=computerd /usr/local/bin/computerd /usr/local/bin/computerd");
    expect(dockerfile).toMatch(/^ENTRYPOINT \["\/usr\/local\/bin\/computerd"\]$/m);
  });

  it("installs the FUSE packages computerd mounts the workspace with", () => {
    expect(aptPackages).toContain("fuse3");
    expect(aptPackages).toContain("libfuse2t64");
  });

  it("trusts a proxy CA dropped into ca/, for the build and for node", () => {
    expect(dockerfile).toContain("COPY ca/ /usr/local/share/ca-certificates/agent-think/");
    expect(dockerfile.indexOf("RUN update-ca-certificates")).toBeGreaterThan(dockerfile.indexOf("COPY ca/"));
    // Trusted before the first HTTPS fetch of the build.
    expect(dockerfile.indexOf("RUN update-ca-certificates")).toBeLessThan(dockerfile.indexOf("https://"));
    expect(env.get("NODE_EXTRA_CA_CERTS")).toBe("/etc/ssl/certs/ca-certificates.crt");
    expect(existsSync("ca/.keep")).toBe(true);
  });

  it("gives commands a HOME (git config --global and gh's login write there)", () => {
    expect(env.get("HOME")).toBe("/root");
    expect(env.get("COMPUTER_VAR_HOME")).toBe("/root");
  });

  it("hands every variable meant for commands to them through its COMPUTER_VAR_ twin", () => {
    // Read by computerd itself or by the build, never by a command.
    const notForCommands = new Set(["PORT", "MOUNT_POINT", "FUSE_MOUNT", "DEBIAN_FRONTEND"]);
    const meant = [...env.keys()].filter((name) => !name.startsWith("COMPUTER_VAR_") && !notForCommands.has(name));
    expect(meant).toContain("HOME");
    for (const name of meant) expect({ name, twin: env.get(`COMPUTER_VAR_${name}`) }).toEqual({ name, twin: env.get(name) });
  });

  it("has what node-gyp needs to build users' native dependencies", () => {
    for (const pkg of ["build-essential", "python3", "pkg-config"]) expect(aptPackages).toContain(pkg);
  });

  it("installs the package behind every tool, and checks each one at build time", () => {
    expect(dockerfile).toMatch(/^FROM --platform=linux\/amd64 node:22-\S+$/m);
    for (const [tool, source] of Object.entries(TOOLS)) {
      if (source === "node-image") continue;
      if ("apt" in source) expect({ tool, installed: aptPackages.has(source.apt) }).toEqual({ tool, installed: true });
      else expect({ tool, pinned: npmGlobals.get(source.npmGlobal) }).toEqual({ tool, pinned: installedVersion(source.npmGlobal) });
    }
    expect([...buildChecked].sort()).toEqual(Object.keys(TOOLS).sort());
  });

  it("provides every command the skills and agent-think's own scripts run", () => {
    // A path under /workspace or /temp is a program the run itself made there (a venv's python, a built check), not the image's.
    const madeByTheRun = (word: string) => /^\/(workspace|temp)\/[\w.-]/.test(word);
    const unknown = agentScripts.flatMap(({ where, script, provided }) =>
      [...commandWords(script)]
        .filter((word) => !(word in TOOLS) && !BUILTINS.has(word) && !provided.has(word) && !madeByTheRun(word))
        .map((word) => `${where}: ${word}`)
    );
    expect(unknown).toEqual([]);
    // The reading works: these are known to be called.
    const seen = new Set(agentScripts.flatMap(({ script }) => [...commandWords(script)]));
    for (const word of ["gh", "git", "npm", "tail", "timeout", "bash", "update-ca-certificates"]) expect(seen).toContain(word);
  });
});

describe("the languages the skills name", () => {
  const markdown = skillFiles.filter((file) => file.endsWith(".md")).map((file) => ({ file, text: readFileSync(file, "utf8") }));

  it("have their toolchains installed from Debian and checked by the build", () => {
    for (const [language, { tools, apt }] of Object.entries(LANGUAGES)) {
      for (const pkg of apt) expect({ language, pkg, installed: aptPackages.has(pkg) }).toEqual({ language, pkg, installed: true });
      for (const tool of tools) {
        expect({ language, tool, known: tool in TOOLS }).toEqual({ language, tool, known: true });
        expect({ language, tool, checked: buildChecked.has(tool) }).toEqual({ language, tool, checked: true });
      }
    }
    // python3-venv works only when a venv gets its own pip: the build makes one.
    expect(runs.some((run) => /python3 -m venv (\S+) && \1\/bin\/pip --version/.test(run))).toBe(true);
    expect(runs.some((run) => run.includes("go version"))).toBe(true);
  });

  it("are only languages the image has a toolchain for", () => {
    const named = markdown.flatMap(({ file, text }) => [...languagesNamed(text)].map((language) => ({ file, language })));
    expect(named.filter(({ language }) => !(language in LANGUAGES))).toEqual([]);
    // The reading works: the skills name these, and would be caught naming another.
    expect(new Set(named.map(({ language }) => language))).toEqual(new Set(["JavaScript", "TypeScript", "Python", "Go", "C", "C++"]));
    expect([...languagesNamed("a Rust crate, a JavaScript app, Objective-C, C# and C++")].sort()).toEqual(["C#", "C++", "JavaScript", "Objective-C", "Rust"]);
  });

  it("are listed, exactly, in the reproduce skill's table of toolchains", () => {
    const table = readFileSync(join(SKILLS_DIR, "reproduce", "references", "languages.md"), "utf8");
    const rows = [...table.matchAll(/^\| ([^|]+?) \| [^|]+ \|$/gm)].map((m) => m[1]!).filter((cell) => cell !== "language" && !/^-+$/.test(cell));
    expect(rows.flatMap((cell) => cell.split(", ")).sort()).toEqual(Object.keys(LANGUAGES).sort());
  });
});

describe("the reproduction page's template in the image", () => {
  const copies = steps.filter((step) => step.keyword === "COPY" && !step.args.startsWith("--from")).map((step) => step.args.split(/\s+/));

  it("copies exactly the template's directory, and installs it there with npm ci before cleaning npm's cache", () => {
    expect(copies).toContainEqual([`${TEMPLATE_DIR}/`, `${TEMPLATE_IN_IMAGE}/`]);
    const install = runs.find((run) => run.startsWith(`cd ${TEMPLATE_IN_IMAGE} `));
    expect(install).toBeDefined();
    const order = ["npm ci", "npm run build", "rm -rf dist", "node check.mjs", "npm cache clean --force"].map((part) => install!.indexOf(part));
    expect(order.every((at) => at > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // Never a plain install: it could resolve other versions than the lockfile's.
    expect(install).not.toMatch(/npm (install|i)\b/);
  });

  it("pins exactly the versions its package.json names, in its lockfile", () => {
    const pkg = JSON.parse(readFileSync(join(TEMPLATE_DIR, "package.json"), "utf8")) as PackageJson;
    const lock = JSON.parse(readFileSync(join(TEMPLATE_DIR, "package-lock.json"), "utf8")) as PackageLock;
    const named = { ...pkg.dependencies, ...pkg.devDependencies };
    expect(Object.keys(named).length).toBeGreaterThan(0);
    for (const [name, version] of Object.entries(named)) {
      expect({ name, version }).toEqual({ name, version: expect.stringMatching(/^\d+\.\d+\.\d+$/) });
      expect({ name, locked: lock.packages[`node_modules/${name}`]?.version }).toEqual({ name, locked: version });
    }
    // npm ci refuses a lockfile out of step with package.json; this says which.
    expect(lock.name).toBe(pkg.name);
    expect(lock.lockfileVersion).toBe(3);
    expect({ dependencies: lock.packages[""]?.dependencies, devDependencies: lock.packages[""]?.devDependencies }).toEqual({
      dependencies: pkg.dependencies,
      devDependencies: pkg.devDependencies
    });
  });
});

describe("commandWords", () => {
  it("reads pipelines, substitutions, conditions, case arms and wrappers", () => {
    const script = [
      "x=$(printf 'a|b; c' | tr a-z A-Z) && cd /w || exit 1 # not-a-command here",
      "if [ -d /w ]; then FOO=1 npm test >/tmp/log 2>&1; fi",
      'case "$x" in a|b) gh pr list ;; *) git status ;; esac',
      "for f in one two; do sed -n 1p \"$f\"; done",
      "timeout -k 5 10 bash -c 'ignored inside quotes'",
      "{ head -c 3 f; tail -c 3 f; } > out",
      "n=$((n + 1)); ( exec timeout 5 node x.js 2>err )"
    ].join("\n");
    expect([...commandWords(script)].sort()).toEqual(["[", "bash", "cd", "exec", "exit", "gh", "git", "head", "node", "npm", "printf", "sed", "tail", "timeout", "tr"]);
  });
});

describe(".dockerignore", () => {
  it("sends only what the Dockerfile copies: ca/ and its certificates, and the template's directory", () => {
    expect(inContext("ca/.keep")).toBe(true);
    expect(inContext("ca/proxy.crt")).toBe(true);
    const copied = steps.filter((step) => step.keyword === "COPY" && !step.args.startsWith("--from")).map((step) => step.args.split(/\s+/)[0]!);
    expect(copied).toEqual(["ca/", `${TEMPLATE_DIR}/`]);
    const template = filesUnder(TEMPLATE_DIR).map((file) => file.split(sep).join("/"));
    expect(template).toContain(`${TEMPLATE_DIR}/package-lock.json`);
    const sent = projectFiles().filter((path) => inContext(path));
    expect(sent.sort()).toEqual(["ca/.keep", ...template.filter((file) => !/\/(node_modules|dist)\//.test(file))].sort());
  });

  it("never sends dependencies, history, build output or secrets", () => {
    for (const path of [
      "node_modules/wrangler/package.json",
      "ingress/node_modules/x/index.js",
      ".git/config",
      "dist/client/index.html",
      "test-results/run/trace.zip",
      ".wrangler/state/v3/do.sqlite",
      "bench/results/latest.json",
      ".dev.vars",
      ".dev.vars.production",
      "ingress/.dev.vars",
      ".env",
      ".env.local",
      "npm-debug.log",
      "ca/proxy.key",
      "src/index.ts",
      "skills/reproduce/SKILL.md",
      "skills/reproduce/references/repro-page.md",
      "skills/reproduce/assets/repro-app-old/index.html",
      `${TEMPLATE_DIR}/node_modules/react/package.json`,
      `${TEMPLATE_DIR}/dist/index.html`,
      `${TEMPLATE_DIR}/.env`
    ]) {
      expect({ path, inContext: inContext(path) }).toEqual({ path, inContext: false });
    }
  });
});
