# syntax=docker/dockerfile:1
# Agent Teams server image: built JavaScript only, non-root, SQLite data on a volume.
# Build: docker build -t agent-teams .   Run: see docs/deployment.md (and compose.yaml).
ARG NODE_IMAGE=node:20.20.2-bookworm-slim

# 1. Build the workspace and pack the packages exactly as npm users get them.
FROM ${NODE_IMAGE} AS build
WORKDIR /src
RUN npm install -g pnpm@12.4.2
COPY . .
# Scripts off: the build needs no native addon (the install stage compiles the one the server runs).
RUN pnpm install --frozen-lockfile --ignore-scripts && tools/container/pack-all.sh /tarballs

# 2. Install the tarballs with production dependencies only (compiles better-sqlite3 here).
FROM ${NODE_IMAGE} AS install
# node-gyp uses the image's Node headers instead of downloading them.
ENV npm_config_nodedir=/usr/local
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY --from=build /tarballs /tarballs
COPY tools/container/install-app.sh /usr/local/bin/install-app.sh
RUN install-app.sh /tarballs /app

# 3. The runtime: Node and the installed application, nothing else.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    AGENT_TEAMS_HOST=0.0.0.0 \
    AGENT_TEAMS_PORT=4000 \
    AGENT_TEAMS_DATABASE=/data/teams.sqlite
WORKDIR /app
COPY --from=install --chown=root:root /app /app
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.AGENT_TEAMS_PORT||4000)+'/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "/app/node_modules/@agent-teams/api/bin/agent-teams.js"]
CMD ["serve"]
