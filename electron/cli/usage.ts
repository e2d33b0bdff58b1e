// Usage texts, apart from the commands' code so `--help` need not load them.
export const SERVERS_USAGE = `countersign servers add <name> [--env K=V]… [--cwd DIR] -- <command> [args…]
countersign servers add <name> --url URL [--header K=V]…
countersign servers list [--json]
countersign servers remove <name>
countersign servers approve <name>     (lets its exact command line run)
countersign servers trust <name>
countersign servers untrust <name>`;

export const CLIENTS_USAGE = `countersign clients [--json] [--project DIR]
countersign wrap <client> [--only a,b] [--dry-run] [--yes] [--project DIR]
countersign unwrap <client> [--yes] [--project DIR]
  (clients: claude-desktop, claude-code, cursor, vscode, windsurf, codex, gemini;
   project files are looked for in the current folder, or in --project DIR)`;
