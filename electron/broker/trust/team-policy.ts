// An optional team policy file. It can add friction to a person's choices, never remove it:
// block servers, force "always ask" for tools, and pre-approve a server's exact command with a pin.
import fs from 'node:fs';
import { z } from 'zod';
import { limitsSchema } from '../../../shared/api-schema.js';
import { FileVersion } from '../file-version.js';

const policySchema = z.object({
  version: z.literal(1),
  servers: z.record(z.object({
    /** The exact command line the team reviewed; the server starts without asking only when it matches. */
    command: z.array(z.string()).min(1).optional(),
    /**
     * The limits the team approved it with: covered only with these or tighter. Absent: only with the
     * limits of its last approved launch (policy-limits.ts). Looser ones need the person.
     */
    limits: limitsSchema.optional(),
    pin: z.object({
      version: z.string().optional(),
      definitionsHash: z.string().regex(/^[0-9a-f]{64}$/).optional(),
      package: z.string().optional(),
    }).strict().optional(),
  }).strict()).default({}),
  block: z.array(z.string()).default([]),
  alwaysAsk: z.array(z.object({ server: z.string(), tool: z.string() }).strict()).default([]),
}).strict();

export type TeamPolicy = z.infer<typeof policySchema>;

export type PolicyState =
  | { kind: 'none' }
  | { kind: 'loaded'; path: string; policy: TeamPolicy }
  /** Fail closed: a policy that exists but cannot be read blocks every server until it is fixed. */
  | { kind: 'broken'; path: string; error: string };

export function parsePolicy(text: string): TeamPolicy {
  return policySchema.parse(JSON.parse(text));
}

export class TeamPolicySource {
  private cache?: { key: string; state: PolicyState };
  private version?: { path: string; file: FileVersion };

  constructor(private readonly pathOf: () => string | undefined, private readonly warn: (text: string) => void) {}

  current(): PolicyState {
    const path = this.pathOf();
    if (!path) return { kind: 'none' };
    // Asked on every call: a throttled stat, as for the settings and trust files.
    if (this.version?.path !== path) this.version = { path, file: new FileVersion(path) };
    const key = `${path}:${this.version.file.current() ?? 'missing'}`;
    if (this.cache?.key === key) return this.cache.state;
    try {
      this.remember(key, { kind: 'loaded', path, policy: parsePolicy(fs.readFileSync(path, 'utf8')) });
    } catch (err) {
      const first = err instanceof z.ZodError ? err.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') : (err as Error).message;
      this.remember(key, { kind: 'broken', path, error: first });
    }
    return this.cache!.state;
  }

  private remember(key: string, state: PolicyState): void {
    this.cache = { key, state };
    if (state.kind === 'broken') {
      this.warn(`The team policy file ${state.path} could not be read (${state.error}). Until it is fixed, every server is blocked.`);
    }
  }

  blockReason(server: string): string | undefined {
    const s = this.current();
    if (s.kind === 'broken') return `the team policy file ${s.path} could not be read`;
    if (s.kind === 'loaded' && s.policy.block.includes(server)) return `the team policy (${s.path}) blocks '${server}'`;
    return undefined;
  }

  alwaysAsk(server: string, tool: string): boolean {
    const s = this.current();
    return s.kind === 'loaded' && s.policy.alwaysAsk.some((r) => r.server === server && (r.tool === tool || r.tool === '*'));
  }

  serverEntry(server: string): TeamPolicy['servers'][string] | undefined {
    const s = this.current();
    return s.kind === 'loaded' ? s.policy.servers[server] : undefined;
  }
}
