// What the person approved, per server: tool definitions, identity, held changes, pins and launch
// consent. One JSON file in the data dir, written atomically; an unreadable file is moved aside.
import path from 'node:path';
import { z } from 'zod';
import type { ToolDefinition } from '../../../shared/tool.js';
import { JsonFile } from '../store/json-file.js';
import type { GrantSeal } from '../store/grant-seal.js';

const toolSchema = z.object({ name: z.string() }).passthrough() as unknown as z.ZodType<ToolDefinition>;

const recordedTool = z.object({ definition: toolSchema, hash: z.string(), approvedAt: z.string() });
const heldChange = z.object({
  kind: z.enum(['added', 'changed', 'removed']),
  /** The server's new definition (absent for a removed tool). */
  definition: toolSchema.optional(),
  hash: z.string().optional(),
  detectedAt: z.string(),
  rejected: z.boolean().optional(),
});
const identity = z.object({
  serverInfo: z.object({ name: z.string().optional(), title: z.string().optional(), version: z.string().optional() }).optional(),
  protocolVersion: z.string().optional(),
  instructions: z.string().optional(),
});
const pin = z.object({
  version: z.string().optional(),
  definitionsHash: z.string(),
  package: z
    .object({
      kind: z.enum(['npx', 'uvx', 'docker']),
      spec: z.string(),
      integrity: z.array(z.string()).optional(),
      contentHash: z.string().optional(),
      installedAt: z.string().optional(),
    })
    .optional(),
  rewrite: z.object({ from: z.array(z.string()), to: z.array(z.string()) }).optional(),
  pinnedAt: z.string(),
  by: z.enum(['person', 'policy']),
});

const serverTrust = z.object({
  tools: z.record(recordedTool).default({}),
  held: z.record(heldChange).default({}),
  identity: identity.optional(),
  identityHash: z.string().optional(),
  /** Set when a person approved something for this server before any listing: record the first one. */
  recordNextListing: z.boolean().optional(),
  pin: pin.optional(),
  quarantine: z.array(z.string()).optional(),
  launch: z.object({ hash: z.string(), approvedAt: z.string(), by: z.enum(['person', 'policy']) }).optional(),
  /** The person untrusted it: the organization's trust (a catalogue match) does not apply until they trust it. */
  declined: z.boolean().optional(),
});

const fileSchema = z.object({ version: z.literal(1), servers: z.record(serverTrust) });

export type ServerTrust = z.infer<typeof serverTrust>;
export type HeldChange = z.infer<typeof heldChange>;
export type PinRecord = z.infer<typeof pin>;
export type IdentityRecord = z.infer<typeof identity>;
type TrustFile = z.infer<typeof fileSchema>;

const EMPTY: TrustFile = { version: 1, servers: {} };

export class TrustStore {
  readonly path: string;
  private readonly file: JsonFile<TrustFile>;

  private constructor(
    dataDir: string,
    warn: (text: string) => void,
    private readonly seal?: GrantSeal,
  ) {
    this.path = path.join(dataDir, 'trust.json');
    this.file = new JsonFile<TrustFile>({
      path: this.path,
      schema: fileSchema,
      empty: () => EMPTY, // never changed in place: update() works on a copy
      warn,
      lost: (reason, moved) =>
        `Trust records ${this.path} could not be read (${reason}); ` +
        `${moved ? `the file was moved to ${moved}` : 'the file could not be moved aside and is ignored'}. Countersign starts with no recorded approvals: every changed or new tool will need review again.`,
    });
  }

  /** With a seal, launch consent counts only when sealed too: a hash written by hand grants nothing. */
  static open(dataDir: string, warn: (text: string) => void, seal?: GrantSeal): TrustStore {
    const store = new TrustStore(dataDir, warn, seal);
    store.read();
    return store;
  }

  /** The server's record as it takes effect; a fresh one when there is none. Treat as read-only: change it through update(). */
  get(server: string): ServerTrust {
    const record = this.getRaw(server);
    if (!record.launch || !this.seal || this.seal.launch(server) === record.launch.hash) return record;
    const { launch: _unsealed, ...rest } = record;
    return rest;
  }

  /** The record as the file holds it, unsealed launch consent included. */
  getRaw(server: string): ServerTrust {
    return this.read().servers[server] ?? serverTrust.parse({});
  }

  /** Servers with a record. */
  servers(): string[] {
    return Object.keys(this.read().servers);
  }

  has(server: string): boolean {
    return Object.hasOwn(this.read().servers, server);
  }

  /** Read-modify-write of one server's record. */
  update(server: string, change: (record: ServerTrust) => void): ServerTrust {
    const data = structuredClone(this.read());
    const record = data.servers[server] ?? serverTrust.parse({});
    const before = record.launch;
    change(record);
    data.servers[server] = record;
    // Only the code that sets `launch` (a person's or the policy's approval, a pin) seals it; a
    // launch hash someone wrote into the file stays unsealed through unrelated updates.
    const launch = record.launch;
    if (launch !== before && launch) this.seal?.update((g) => (g.launch[server] = launch.hash));
    this.write(data);
    if (launch !== before && !launch) this.seal?.withdraw((g) => delete g.launch[server]);
    return record;
  }

  forget(server: string): void {
    const data = structuredClone(this.read());
    if (Object.hasOwn(data.servers, server)) {
      delete data.servers[server];
      this.write(data);
    }
    this.seal?.withdraw((g) => delete g.launch[server]);
  }

  private write(data: TrustFile): void {
    this.file.write(data);
  }

  private read(): TrustFile {
    const data = this.file.read();
    // Once per version of the file (the JsonFile keeps the same object until the file changes).
    if (data !== this.prunedFor) {
      this.prunedFor = data;
      this.prune(data);
    }
    return data;
  }

  private prunedFor?: TrustFile;

  /** Sealed consent the file no longer holds is dropped, so writing it back by hand later does not revive it. */
  private prune(data: TrustFile): void {
    const seal = this.seal;
    if (!seal) return;
    const stale = Object.entries(seal.grants().launch).filter(([server, hash]) => data.servers[server]?.launch?.hash !== hash);
    if (stale.length) seal.withdraw((g) => stale.forEach(([server]) => delete g.launch[server]));
  }
}
