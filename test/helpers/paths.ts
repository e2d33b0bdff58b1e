import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLI = `${ROOT}bin/countersign.mjs`;
export const FIXTURE = `${ROOT}test/fixtures/fixture-server.mjs`;
export const NODE = process.execPath;

const serverPkg = (name: string) => `${ROOT}node_modules/@modelcontextprotocol/server-${name}/dist/index.js`;
export const FILESYSTEM_SERVER = serverPkg('filesystem');
export const EVERYTHING_SERVER = serverPkg('everything');
export const MEMORY_SERVER = serverPkg('memory');
