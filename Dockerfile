# syntax=docker/dockerfile:1
# ONE image for every role: the migration, the API, the worker and the operator
# CLI. The command picks the role (docker-compose.yml builds it once and runs
# it three ways). Node 22 LTS; the runtime stage holds production dependencies,
# dist/ and the migrations only: no compiler, no test tools.
ARG NODE_IMAGE=node:22-bookworm-slim

# Production dependencies. The root postinstall (patch-package, itself a
# production dependency) applies patches/postgres+3.4.9.patch here, so the
# runtime gets the fixed driver (docs/decisions.md, "postgres.js patched").
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --omit=dev && npm cache clean --force

# Compile TypeScript with the dev dependencies.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY api ./api
COPY core ./core
COPY cli ./cli
COPY worker ./worker
COPY shared ./shared
# Build info and declarations serve only the type-check of the tests.
RUN npx tsc -b tsconfig.build.json && rm -rf dist/.types dist/.tsbuildinfo

FROM ${NODE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY --from=build /app/dist ./dist
COPY drizzle ./drizzle
# The operator CLI on PATH: `docker compose run --rm api quest-chains --json providers list`.
RUN chmod +x dist/cli/main.js && ln -s /app/dist/cli/main.js /usr/local/bin/quest-chains
USER node
EXPOSE 3000 3001
# The API by default; several API processes on one port are `node dist/api/cluster-main.js` with API_PROCESSES,
# the worker is `node dist/worker/main.js`, the migration `node dist/shared/db/migrate-main.js`.
CMD ["node", "dist/api/main.js"]
