// The least any relay can cost: one extra process that copies bytes between the client and the server it
// starts, reading nothing. The mcp benchmark runs it beside `connect` so their ratios can be compared.
import { spawn } from 'node:child_process';

const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
process.stdin.pipe(child.stdin);
child.stdout.pipe(process.stdout);
process.stdin.on('end', () => child.kill());
child.on('exit', (code) => process.exit(code ?? 1));
