# Build stage: compile TypeScript with the dev dependencies.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY api ./api
COPY worker ./worker
COPY shared ./shared
# Build info and declarations serve only the type-check of the tests.
RUN npx tsc -b tsconfig.build.json && rm -rf dist/.types dist/.tsbuildinfo

# Runtime stage: production dependencies, compiled code and migrations only.
FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY drizzle ./drizzle
USER node
EXPOSE 3000 3001
CMD ["node", "dist/api/main.js"]
