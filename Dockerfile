# The Sandbox container image: the workspace daemon (computerd) plus the
# tools the agent's container shell runs: gh, git, Node 22, npm, wrangler,
# curl, jq, a C/C++ toolchain with python3 for node-gyp builds of users'
# dependencies, the Python (venv, pip) and Go toolchains the reproduce skill
# names for checks in those languages, and the reproduction page's template
# with its dependencies installed. wrangler builds it from wrangler.jsonc
# (`containers[].images.app`). See docs/containers.md; the build context is
# only ca/ and the template's directory (.dockerignore).

# computerd is pinned to the version of @cloudflare/computer in package.json
# (0.8.0). The Durable Object and computerd speak an RPC and sync protocol
# that changes between releases, and the cloudflare/computer monorepo
# publishes the package and this image under the same version. Bump the tag
# together with the package; never use :latest or :next here. The image is a
# single layer over scratch holding only the binary, so it is a build stage.
FROM ghcr.io/cloudflare/computer-computerd-linux-x64:0.8.0 AS computerd

# Debian trixie: computerd links the system libfuse 3 and needs 3.17 or
# newer. The node image brings Node 22 and npm. amd64: the binary is x64.
FROM --platform=linux/amd64 node:22-trixie-slim

# computerd hands a shell command only PATH, HOME, TMPDIR, TZ, LANG, TERM,
# LC_* and the variables prefixed COMPUTER_VAR_ (prefix stripped, applied
# last); everything else in its environment configures the daemon and stops
# there. So a variable meant for commands is set twice: the plain name for
# this build and the daemon, the COMPUTER_VAR_ twin for the commands.
#
# Node reads only its own CA bundle unless told otherwise; pointing it at the
# system bundle makes npm and wrangler, in this build and in the container,
# trust an optional proxy CA from ca/.
#
# HOME: `git config --global` (the App's identity, src/run/git-auth.ts), gh's
# login, npm's cache and most tools write under it, and fail or scatter files
# without one. It is on computerd's pass-through list, but the daemon only
# has it when the container runtime keeps the image's HOME; the twin gives
# commands /root (the user they run as) whatever the runtime sets.
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
    COMPUTER_VAR_NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
    HOME=/root \
    COMPUTER_VAR_HOME=/root \
    DEBIAN_FRONTEND=noninteractive

# Everything from Debian in one step. Its mirrors are plain HTTP with signed
# indexes, so this works before any proxy CA is trusted.
#   fuse3 libfuse2t64    computerd links the FUSE libraries to mount the
#                        workspace (as cloudflare/computer's example image)
#   coreutils            always in Debian; named because the output wrapper
#                        (src/run/command-report.ts) needs GNU `timeout
#                        --verbose -k` and `ls --time-style`
#   ca-certificates      update-ca-certificates: the identity script
#   diffutils            (src/run/git-identity.ts) trusts the egress
#                        gateway's interception CA with them (cmp, then
#                        update-ca-certificates) once the platform writes it
#   build-essential      gcc, g++, make: node-gyp builds of users' native
#   python3 pkg-config   dependencies (node-gyp runs python3; pkg-config finds
#                        system libraries), and checks in C and C++
#   python3-venv         checks in Python and projects' own Python tests: a
#   python3-pip          venv (Debian's Python refuses pip outside one) and
#                        pip; about 15 MB with setuptools and wheel
#   golang-go            checks in Go: go and its standard library (not the
#                        `golang` metapackage, whose docs nothing reads);
#                        roughly 250 MB with its sources
#   (sizes: Debian's installed sizes, not measured on a build of this image;
#   the reproduce skill names only these languages, references/languages.md)
#   git jq curl          the agent's shell: clones, JSON, HTTP
#   unzip xz-utils tar   unpacking release archives and tarballs
#   procps               ps, pgrep, kill: finding a stuck dev server
#   bash sed grep findutils   always in Debian; named for the same reason as
#                        coreutils: the skills and scripts call them
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      ca-certificates curl \
      fuse3 libfuse2t64 \
      coreutils bash sed grep findutils diffutils \
      build-essential python3 pkg-config \
      python3-venv python3-pip golang-go \
      git jq unzip xz-utils tar procps \
 && rm -rf /var/lib/apt/lists/*

# An optional proxy CA (e.g. WARP): put *.crt files in ca/ before building.
# ca/.keep keeps the directory, so this COPY works when there are none.
COPY ca/ /usr/local/share/ca-certificates/agent-think/
RUN update-ca-certificates

# gh from GitHub's apt repository (HTTPS: after the CA step). Deliberately
# unpinned: the repository serves the current stable channel, and pinning an
# apt version there breaks the build when an old one is dropped. The version
# a build got is in its log (`gh --version` below).
RUN install -d -m 0755 /etc/apt/keyrings \
 && curl -fsSL https://cli.github.com/packages/githubcli-archive-keyring.gpg \
      -o /etc/apt/keyrings/githubcli-archive-keyring.gpg \
 && chmod go+r /etc/apt/keyrings/githubcli-archive-keyring.gpg \
 && echo "deb [arch=amd64 signed-by=/etc/apt/keyrings/githubcli-archive-keyring.gpg] https://cli.github.com/packages stable main" \
      > /etc/apt/sources.list.d/github-cli.list \
 && apt-get update \
 && apt-get install -y --no-install-recommends gh \
 && rm -rf /var/lib/apt/lists/*

# wrangler pinned to the version in this project's package-lock.json
# (test/unit/pool-image.test.ts fails when they differ), for reproductions of
# Workers bugs that need `wrangler dev` (a local workerd), which then behaves
# as it does here. It never deploys: the sandbox holds no Cloudflare
# credential, and pages are published by the Worker. Bump it with the package.
RUN npm install -g wrangler@4.164.0 \
 && npm cache clean --force

COPY --from=computerd /usr/local/bin/computerd /usr/local/bin/computerd

# Fail the build, not a run, when a tool is missing: every command the
# skills, the output wrapper and the git auth script run
# (test/unit/pool-image.test.ts derives the list from them and keeps it equal
# to this one), the GNU `timeout` options the wrapper relies on, and a venv
# with its own pip (python3-venv works, not only python3).
RUN for tool in bash cat cc cmp cp curl cut find g++ gcc gh git go grep head jq ls make \
      mkdir mktemp mv node npm npx pip3 pkg-config ps python3 rm sed tail tar \
      timeout tr unzip update-ca-certificates wc wrangler xz; \
    do command -v "$tool" >/dev/null || { echo "missing: $tool" >&2; exit 1; }; done \
 && timeout --verbose -k 1 5 true \
 && ls --time-style=+%s -lnt / >/dev/null \
 && python3 -m venv /tmp/venv-check && /tmp/venv-check/bin/pip --version && rm -rf /tmp/venv-check \
 && node --version && npm --version && gh --version && git --version && wrangler --version \
 && python3 --version && go version

# /temp: container-local scratch for long logs, never synced to the workspace.
RUN mkdir -p /workspace /temp

# The reproduction page's template (the reproduce skill's asset directory,
# the same files the skill is seeded to R2 with), installed here so a
# reproduction starts with `cp -a /opt/agent-think/repro-app/. /workspace/repro/`
# instead of a minute of npm install. npm ci installs exactly its
# package-lock.json. A build, and check.mjs's answer on the untouched
# template (it says so, then exits 2), fail the image rather than a run when
# the toolchain or Node's type stripping does not work; the build's output is
# not kept. Last of the build steps: it changes most often.
COPY skills/reproduce/assets/repro-app/ /opt/agent-think/repro-app/
RUN cd /opt/agent-think/repro-app \
 && npm ci \
 && npm run build \
 && rm -rf dist \
 && node check.mjs 2>&1 | grep -q "src/repro.ts is still the template" \
 && npm cache clean --force

# computerd's defaults; the launch spec (src/pool/launch-spec.ts) sends the
# same PORT and MOUNT_POINT. FUSE_MOUNT=auto uses real FUSE where /dev/fuse
# exists (Cloudflare Containers) and a userspace shim where it does not.
ENV PORT=8080 \
    MOUNT_POINT=/workspace \
    FUSE_MOUNT=auto
EXPOSE 8080

ENTRYPOINT ["/usr/local/bin/computerd"]
