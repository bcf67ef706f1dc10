# syntax=docker/dockerfile:1
# The Patient Treatment Service as an image: built in one stage, run in a slim one as the
# unprivileged `node` user, with tini as PID 1 (it forwards SIGTERM to node and reaps children).
#   docker build -t patient-treatment-service .
#   docker run --rm -p 8000:8000 -v pts-data:/data patient-treatment-service          (embedded database)
#   docker compose up --build     (PostgreSQL, Redis, a mail catcher, two replicas behind Caddy)
ARG NODE_VERSION=22

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# The install hook (scripts/postinstall.mjs) builds the web app only where web/ is present: not here.
COPY scripts/postinstall.mjs scripts/
RUN npm ci --no-audit --no-fund
COPY scripts/ scripts/
COPY src/ src/
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini=0.19.* \
  && rm -rf /var/lib/apt/lists/* \
  && mkdir -p /data \
  && chown node:node /data
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8000 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules/ node_modules/
COPY --from=build /app/dist/ dist/
COPY catalogue/ catalogue/
USER node
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8000) + '/readyz').then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/main.js"]
