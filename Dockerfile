# The Sandbox container image: the workspace daemon (computerd) plus the
# tools the agent's container shell runs: gh, git, Node 22, npm, wrangler,
# curl, jq. wrangler builds it from wrangler.jsonc (`containers[].images.app`).
# See docs/containers.md.

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

# Node reads only its own CA bundle unless told otherwise; pointing it at the
# system bundle makes npm and wrangler, in this build and in the container,
# trust an optional proxy CA from ca/. computerd hands shell commands only
# variables prefixed COMPUTER_VAR_ (prefix stripped), hence the second name.
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
    COMPUTER_VAR_NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
    DEBIAN_FRONTEND=noninteractive

# Debian's mirrors are plain HTTP with signed indexes, so this step works
# before any proxy CA is trusted.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl \
 && rm -rf /var/lib/apt/lists/*

# An optional proxy CA (e.g. WARP): put *.crt files in ca/ before building.
# ca/.keep keeps the directory, so this COPY works when there are none.
COPY ca/ /usr/local/share/ca-certificates/agent-think/
RUN update-ca-certificates

# gh from GitHub's apt repository (HTTPS: after the CA step).
RUN install -d -m 0755 /etc/apt/keyrings \
 && curl -fsSL https://cli.github.com/packages/githubcli-archive-keyring.gpg \
      -o /etc/apt/keyrings/githubcli-archive-keyring.gpg \
 && chmod go+r /etc/apt/keyrings/githubcli-archive-keyring.gpg \
 && echo "deb [arch=amd64 signed-by=/etc/apt/keyrings/githubcli-archive-keyring.gpg] https://cli.github.com/packages stable main" \
      > /etc/apt/sources.list.d/github-cli.list \
 && apt-get update \
 && apt-get install -y --no-install-recommends fuse3 git jq gh \
 && rm -rf /var/lib/apt/lists/*

RUN npm install -g wrangler@4 \
 && npm cache clean --force

COPY --from=computerd /usr/local/bin/computerd /usr/local/bin/computerd

# /temp: container-local scratch for long logs, never synced to the workspace.
RUN mkdir -p /workspace /temp

# computerd's defaults; the launch spec (src/pool/launch-spec.ts) sends the
# same PORT and MOUNT_POINT. FUSE_MOUNT=auto uses real FUSE where /dev/fuse
# exists (Cloudflare Containers) and a userspace shim where it does not.
ENV PORT=8080 \
    MOUNT_POINT=/workspace \
    FUSE_MOUNT=auto
EXPOSE 8080

ENTRYPOINT ["/usr/local/bin/computerd"]
