// Usage texts, apart from the commands' code so `--help` need not load them.
export const SERVERS_USAGE = `countersign servers add <name> [--env K=V]… [--cwd DIR] [LIMITS] -- <command> [args…]
countersign servers add <name> --url URL [--header K=V]…
countersign servers list [--json]
countersign servers show <name> [--json]  (the exact command, its hash, tools, pin)
countersign servers remove <name>
countersign servers approve <name> [--hash H] [--yes]   (lets its exact command line run)
countersign servers trust <name> [--hash H] [--listing H] [--yes]
countersign servers untrust <name>
countersign servers pin <name> [--hash H] [--listing H] [--yes]
countersign servers unpin <name>
countersign servers review <name> [accept|reject [tool…]] [--hash TOOL=H]… [--identity H] [--yes]
countersign servers limits <name> [--json]            (its limits, and whether this machine enforces them)
countersign servers limits <name> [LIMITS] [--offered] [--hash H] [--yes]
  LIMITS: --no-network | --network, --read-only DIR… --write DIR… | --no-files | --all-files,
          --pass-env NAME… | --no-pass-env. Tighter limits apply at once; looser ones ask again.
countersign servers limits <name> --run-without-limits [--hash H] [--yes] | --require-limits
  (a server whose limits this machine cannot enforce does not start, unless you let it run without them)
  --hash binds the decision to what you saw earlier (from show or review); without it, to what is printed now.
  Without a terminal nothing is granted unless the command names it: --yes with every hash it printed
  (--hash, and --listing or --identity where shown). --yes alone grants nothing.`;

export const POLICY_USAGE = `countersign policy [--json]           (the effective policy: each setting with its source, what it does to each server)
countersign policy check <file> [--user] [--json]   (validate a managed (or --user: team) policy before deploying it; line:column per error)
countersign policy set <file> [--hash H] [--yes]   (an absolute path to a valid policy; it only adds friction)
countersign policy unset [--hash H] [--yes]
countersign policy confirm [--hash H] [--yes] | discard   (a path written into settings.json by hand)
countersign policy hash <package folder | docker image>   (the content hash or digest for a catalogue entry)`;

export const EXPORT_USAGE = `countersign export [--json]           (where the audit log is exported: each destination, its state, cursor, backlog)
countersign export set [--otlp URL [--protocol http/protobuf|http/json] [--header K=V]…]
                       [--syslog tcp://host:port | tls://host:port [--ca FILE] | udp://host:port | unix:/path [--facility N]]
                       [--hash H] [--yes]   (the whole log goes there: without a terminal, --yes --hash of the change printed)
countersign export unset [--hash H] [--yes]
  (header values are never printed; a destination the organization's managed policy sets cannot be changed here)`;

export const CLIENTS_USAGE = `countersign clients [--json] [--project DIR]
countersign wrap <client> [--only a,b] [--dry-run] [--yes] [--project DIR]
countersign unwrap <client> [--hash H] [--yes] [--project DIR]   (without a terminal: --yes --hash of the plan printed)
  (clients: claude-desktop, claude-code, cursor, vscode, windsurf, codex, gemini, cline, roo-code,
   continue, crush, goose, kiro, lmstudio, opencode, zed, amazon-q, copilot-cli;
   project files are looked for in the current folder, or in --project DIR)`;

export const UNDO_USAGE = `countersign undo --list [--json]            (calls whose file changes can be undone, with their log #)
countersign undo <seq|snapshot> [--dry-run] [--hash H] [--yes] [--confirm-conflicts]
countersign undo --client <id> [--session <id>] [--server <name>] [--since <14:05|ISO time>] [...]
  (prints every file and what it becomes; without a terminal: --yes --hash of the preview printed,
   and --confirm-conflicts when a file changed since the call)`;
