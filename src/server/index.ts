// Owns: the server module's public surface (`createServer`, its options and defaults).

export { createServer } from "./server.js";
export { serve, type ServeOptions, type Serving } from "./serve.js";
export { SERVER_DEFAULTS, type ServerOptions, type ServerRuntime } from "./defaults.js";
export { ApiError } from "./api-error.js";
export type { SlotStats } from "./slots.js";
