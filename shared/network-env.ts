// The environment variables that say how a process reaches the network and which certificates it
// trusts. They are not secrets in kind, and a server without them may crawl (npx behind TLS inspection
// retries for a minute) or fail, so they pass to servers by default. Proxy and index URLs can hold
// credentials (user:pass@): Countersign shows their names only, never their values.

export type NetworkEnvKind = 'ca' | 'proxy' | 'registry';

/** Each name, what it is, and for CA variables whether it names a file or a folder (made readable in a sandbox). */
export const NETWORK_ENV: ReadonlyArray<{ name: string; kind: NetworkEnvKind; path?: 'file' | 'dir' | 'either' }> = [
  // Certificates: Node, OpenSSL (Python, curl, uv, git…), requests, curl, npm, pip.
  { name: 'NODE_EXTRA_CA_CERTS', kind: 'ca', path: 'file' },
  { name: 'NODE_USE_SYSTEM_CA', kind: 'ca' },
  { name: 'SSL_CERT_FILE', kind: 'ca', path: 'file' },
  { name: 'SSL_CERT_DIR', kind: 'ca', path: 'dir' },
  { name: 'REQUESTS_CA_BUNDLE', kind: 'ca', path: 'either' },
  { name: 'CURL_CA_BUNDLE', kind: 'ca', path: 'file' },
  { name: 'npm_config_cafile', kind: 'ca', path: 'file' },
  { name: 'NPM_CONFIG_CAFILE', kind: 'ca', path: 'file' },
  { name: 'PIP_CERT', kind: 'ca', path: 'file' },
  { name: 'UV_NATIVE_TLS', kind: 'ca' },
  // Proxies, in both cases (curl and Python read the lower case, Node's fetch and npm either).
  ...['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'NO_PROXY'].flatMap((n) => [
    { name: n, kind: 'proxy' as const },
    { name: n.toLowerCase(), kind: 'proxy' as const },
  ]),
  { name: 'npm_config_proxy', kind: 'proxy' },
  { name: 'npm_config_https_proxy', kind: 'proxy' },
  { name: 'npm_config_noproxy', kind: 'proxy' },
  { name: 'NPM_CONFIG_PROXY', kind: 'proxy' },
  { name: 'NPM_CONFIG_HTTPS_PROXY', kind: 'proxy' },
  { name: 'NPM_CONFIG_NOPROXY', kind: 'proxy' },
  // Package indexes: where npx, pip and uv fetch from (a company mirror).
  { name: 'npm_config_registry', kind: 'registry' },
  { name: 'NPM_CONFIG_REGISTRY', kind: 'registry' },
  { name: 'PIP_INDEX_URL', kind: 'registry' },
  { name: 'PIP_EXTRA_INDEX_URL', kind: 'registry' },
  { name: 'UV_INDEX_URL', kind: 'registry' },
  { name: 'UV_EXTRA_INDEX_URL', kind: 'registry' },
  { name: 'UV_DEFAULT_INDEX', kind: 'registry' },
  { name: 'UV_INDEX', kind: 'registry' },
];

export const NETWORK_ENV_NAMES: readonly string[] = NETWORK_ENV.map((v) => v.name);

/** In `noPassEnv`: none of the network variables pass (also those added to the list later). */
export const ALL_NETWORK_ENV = '*';

/** The network variables a server with this `noPassEnv` gets by default (before looking at what is set). */
export function defaultNetworkEnv(noPassEnv: readonly string[] | undefined): string[] {
  if (noPassEnv?.includes(ALL_NETWORK_ENV)) return [];
  return NETWORK_ENV_NAMES.filter((n) => !noPassEnv?.includes(n));
}

/**
 * Every name a server may get besides the essentials: its `passEnv`, and the network variables not
 * taken away by `noPassEnv`. (Which of them it really gets depends on what is set where Countersign runs.)
 */
export function passedEnvNames(limits: { passEnv: readonly string[]; noPassEnv?: readonly string[] }): string[] {
  return [...new Set([...defaultNetworkEnv(limits.noPassEnv), ...limits.passEnv])];
}

/** Of `set` (the names in Countersign's environment), the network variables a server gets. */
export function networkEnvSet(set: Iterable<string>, limits: { passEnv: readonly string[]; noPassEnv?: readonly string[] }, platform: string): string[] {
  const fold = (n: string) => (platform === 'win32' ? n.toUpperCase() : n);
  const passed = new Set(passedEnvNames(limits).map(fold));
  const network = new Set(NETWORK_ENV_NAMES.map(fold));
  return [...set].filter((n) => passed.has(fold(n)) && network.has(fold(n))).sort();
}
