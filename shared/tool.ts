// MCP tool definitions as servers send them. Every field is a claim by the server.

export interface ToolAnnotations {
  title?: unknown;
  readOnlyHint?: unknown;
  destructiveHint?: unknown;
  idempotentHint?: unknown;
  openWorldHint?: unknown;
  [extra: string]: unknown;
}

export interface ToolDefinition {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: ToolAnnotations;
  [extra: string]: unknown;
}

/** Hints after cautious defaults: a missing field, or one of the wrong type, takes the safe value. */
export interface EffectiveHints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
  /** Which of the four the server actually supplied with a boolean. */
  supplied: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
}
