// What client-configs.ts needs to read, plan and write client config files, in one module it imports
// on first use: the parsers and the diff (jsonc-parser, smol-toml, diff) cost the broker ~2 MB of
// resident memory for as long as it runs, and most brokers never open a client's config.
export { scanFile, sha256 } from './detect.js';
export { planWrap } from './plan.js';
export { planUnwrap } from './unwrap-plan.js';
export { fileView } from './views.js';
export { applyWrap, wrapAudit } from './wrap-apply.js';
export { replaceConfig } from './write-config.js';
export { readOnlyReason } from './file-access.js';
