// Every success response of the API, as zod schemas (for the routes' `response:` and the OpenAPI
// document) and as types (for clients: the CLI and the dashboard import these with `import type`
// only, so they never load daemon code at run time). Each group's schemas live beside its routes
// (routes/*-responses.ts) and the shared pieces in response-parts.ts; this index re-exports them.
// A handler's answer is typed by its schema (answer.ts), and a test parses live answers with them.
export * from "./response-parts.js";
export * from "./routes/auth-responses.js";
export * from "./routes/account-responses.js";
export * from "./routes/trading-responses.js";
export * from "./routes/proposal-responses.js";
export * from "./routes/vault-responses.js";
export * from "./routes/performance-responses.js";
export * from "./routes/event-responses.js";
export * from "./routes/meta-responses.js";
export * from "./routes/sim-responses.js";
export * from "./routes/webhook-responses.js";
export * from "./routes/verify-responses.js";
