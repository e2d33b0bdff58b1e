// The usage text of `countersign servers`, apart from its code so `--help` need not load the command.
export const SERVERS_USAGE = `countersign servers add <name> [--env K=V]… [--cwd DIR] -- <command> [args…]
countersign servers add <name> --url URL [--header K=V]…
countersign servers list [--json]
countersign servers remove <name>
countersign servers approve <name>     (lets its exact command line run)
countersign servers trust <name>
countersign servers untrust <name>`;
