# syntax=docker/dockerfile:1
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The workspace packages' manifests first: npm ci links them into node_modules.
COPY packages/candidate-documents/package.json ./packages/candidate-documents/
COPY packages/demo-data/package.json ./packages/demo-data/
COPY packages/embedded-mongodb/package.json ./packages/embedded-mongodb/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json codegen.yml ./
COPY packages/tsconfig.base.json ./packages/
COPY packages/candidate-documents/tsconfig.json packages/candidate-documents/tsconfig.build.json ./packages/candidate-documents/
COPY packages/candidate-documents/src ./packages/candidate-documents/src
COPY packages/demo-data/tsconfig.json packages/demo-data/tsconfig.build.json ./packages/demo-data/
COPY packages/demo-data/src ./packages/demo-data/src
COPY packages/embedded-mongodb/tsconfig.json packages/embedded-mongodb/tsconfig.build.json ./packages/embedded-mongodb/
COPY packages/embedded-mongodb/src ./packages/embedded-mongodb/src
COPY schema ./schema
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
# node_modules/<package> links to each workspace package: its manifest and build.
COPY --from=build --chown=node:node /app/packages/candidate-documents/package.json ./packages/candidate-documents/
COPY --from=build --chown=node:node /app/packages/candidate-documents/dist ./packages/candidate-documents/dist
COPY --from=build --chown=node:node /app/packages/demo-data/package.json ./packages/demo-data/
COPY --from=build --chown=node:node /app/packages/demo-data/dist ./packages/demo-data/dist
COPY --from=build --chown=node:node /app/packages/embedded-mongodb/package.json ./packages/embedded-mongodb/
COPY --from=build --chown=node:node /app/packages/embedded-mongodb/dist ./packages/embedded-mongodb/dist
COPY --from=build --chown=node:node /app/dist ./dist
COPY --from=build --chown=node:node /app/schema ./schema
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/src/app/main.js"]
