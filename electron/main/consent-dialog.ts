// The text of the desktop app's native consent dialogs: exactly what would start or change, every
// argument on its own line, the folder, the names (never the values) of environment variables and
// headers. Everything a config or a server supplied is escaped, so it cannot hide or restyle a line.
// Pure: the consent guard builds a request, this turns it into dialog.showMessageBox options.
import { escapeControl } from '../../shared/escape.js';
import { summarizeLimits, type LimitsProfile } from '../../shared/limits.js';

/** What will run, as the dialog shows it. */
export interface LaunchShown {
  commandLine?: string[];
  cwd?: string;
  envNames: string[];
  url?: string;
  headerNames: string[];
  /** A local server's limits (part of the hash). */
  limits?: LimitsProfile;
  hash?: string;
}

export type ConsentRequest =
  | { kind: 'add-server'; name: string; launch: LaunchShown }
  | { kind: 'import-servers'; servers: Array<{ name: string; launch: LaunchShown }> }
  | { kind: 'approve-launch'; name: string; launch: LaunchShown }
  | { kind: 'loosen-limits'; name: string; launch: LaunchShown; from: LimitsProfile; to: LimitsProfile }
  | { kind: 'run-without-limits'; name: string; launch: LaunchShown; reason: string }
  | { kind: 'trust'; name: string; launch: LaunchShown; tools: Array<{ name: string; readOnly: boolean }> }
  | { kind: 'pin'; name: string; launch: LaunchShown; tools: string[] }
  | { kind: 'unpin-quarantined'; name: string; reasons: string[] }
  | { kind: 'accept-changes'; server: string; tools: Array<{ name: string; kind: string }>; identity: boolean }
  | { kind: 'always-allow'; server: string; tool: string }
  /** A scoped or expiring rule, in the words of shared/rules ruleText (already escaped). */
  | { kind: 'allow-rule'; server: string; tool: string; rule: string; change?: boolean }
  /** `path: null` removes the policy (its blocks, pins and "always ask" go with it). */
  | { kind: 'policy-path'; path: string | null; from?: string }
  /** Where the audit log is sent (`to: null`: no longer sent), each destination as one line without credentials. */
  | { kind: 'audit-export'; to: string[] | null; from: string[] }
  | { kind: 'inline-approval'; client: string }
  | {
      kind: 'wrap-client';
      client: string;
      files: Array<{ path: string; entries: Array<{ entry: string; action: string; server?: string; launch?: LaunchShown }> }>;
    }
  | { kind: 'unwrap-client'; client: string; files: Array<{ path: string; how: string; entries: Array<{ entry: string; outcome: string }> }> }
  | { kind: 'undo'; calls: string[]; files: Array<{ path: string; action: string; conflict?: string; blocked?: string }> }
  | { kind: 'other'; method: string; args: unknown[] };

export interface ConsentDialogOptions {
  type: 'warning';
  title: string;
  message: string;
  detail: string;
  buttons: [string, string];
  defaultId: 0;
  cancelId: 0;
  noLink: true;
  checkboxLabel?: string;
  checkboxChecked?: false;
}

const e = (text: string): string => escapeControl(text);
const q = (name: string): string => `'${e(name)}'`;

export function launchLines(launch: LaunchShown): string[] {
  const lines: string[] = [];
  if (launch.commandLine) {
    lines.push('Command, one argument per line:');
    launch.commandLine.forEach((arg, i) => lines.push(`  [${i}] ${arg === '' ? '(empty)' : e(arg)}`));
    lines.push(`Folder: ${launch.cwd ? e(launch.cwd) : '(Countersign’s own folder)'}`);
    lines.push(`Environment variables: ${launch.envNames.length ? launch.envNames.map(e).join(', ') + ' (values not shown)' : 'none added'}`);
    lines.push(`Limits: ${launch.limits ? e(summarizeLimits(launch.limits)) : 'none (it reaches your files and the network as you do)'}`);
  } else if (launch.url) {
    lines.push(`Remote server: ${e(launch.url)} (nothing runs on this computer)`);
    if (launch.headerNames.length) lines.push(`Headers: ${launch.headerNames.map(e).join(', ')} (values not shown)`);
  }
  if (launch.hash) lines.push(`Launch hash: ${launch.hash}`);
  return lines;
}

function options(title: string, message: string, detail: string[], confirm: string, checkboxLabel?: string): ConsentDialogOptions {
  return {
    type: 'warning',
    title,
    message,
    detail: detail.join('\n'),
    buttons: ['Cancel', confirm],
    defaultId: 0,
    cancelId: 0,
    noLink: true,
    ...(checkboxLabel ? { checkboxLabel, checkboxChecked: false as const } : {}),
  };
}

export function consentDialog(request: ConsentRequest): ConsentDialogOptions {
  switch (request.kind) {
    case 'add-server':
      return options(
        'Add a server',
        `Add the server ${q(request.name)}?`,
        [...launchLines(request.launch), '', 'It starts untrusted: every call asks you.'],
        'Add server',
        request.launch.commandLine ? 'Also let this exact command run' : undefined,
      );
    case 'import-servers':
      return options(
        'Import servers',
        `Import ${request.servers.length} server${request.servers.length === 1 ? '' : 's'}?`,
        [
          ...request.servers.flatMap((s) => [`${q(s.name)}:`, ...launchLines(s.launch).map((l) => `  ${l}`), '']),
          'Each starts untrusted, and no command runs until you approve it.',
        ],
        'Import',
      );
    case 'approve-launch':
      return options(
        'Let a server run',
        `Let ${q(request.name)} run this on your computer?`,
        [...launchLines(request.launch), '', 'Read every argument: this is exactly what will run, with your permissions.'],
        'Let it run',
      );
    case 'loosen-limits':
      return options(
        'Loosen a server’s limits',
        `Let ${q(request.name)} reach more than before?`,
        [
          `Now: ${e(summarizeLimits(request.from))}`,
          `Then: ${e(summarizeLimits(request.to))}`,
          '',
          ...launchLines({ ...request.launch, limits: request.to }),
          '',
          'It restarts with these limits the next time a client uses it.',
        ],
        'Loosen limits',
      );
    case 'run-without-limits':
      return options(
        'Run a server without its limits',
        `Let ${q(request.name)} run without its limits on this computer?`,
        [
          `Its limits cannot be enforced here: ${e(request.reason)}.`,
          'Without them it reaches your files and the network as you do, and sees Countersign’s own files.',
          '',
          ...launchLines(request.launch),
          '',
          'This holds for this exact command and these limits; any change asks again. Where the sandbox works, its limits apply.',
        ],
        'Run without limits',
      );
    case 'trust':
      return options(
        'Trust a server',
        `Trust ${q(request.name)}?`,
        [
          ...launchLines(request.launch),
          '',
          request.tools.length
            ? `Its tools (${request.tools.length}); those marked read-only will run without asking:`
            : 'It has not listed its tools yet: Countersign starts it briefly and records what it offers now.',
          ...request.tools.map((t) => `  ${e(t.name)}${t.readOnly ? '  (read-only: runs without asking)' : ''}`),
        ],
        'Trust',
      );
    case 'pin':
      return options(
        'Pin a server',
        `Pin ${q(request.name)} to what it runs now?`,
        [
          ...launchLines(request.launch),
          '',
          request.tools.length
            ? `Its tools: ${request.tools.map(e).join(', ')}`
            : 'It has not listed its tools yet: Countersign starts it briefly to learn them.',
          'An npx, uvx or docker package without an exact version is looked up and the command is rewritten to name it exactly; that command counts as approved.',
        ],
        'Pin',
      );
    case 'unpin-quarantined':
      return options(
        'Lift a quarantine',
        `Unpin ${q(request.name)} and let its calls through again?`,
        ['It is quarantined because:', ...request.reasons.map((r) => `  ${e(r)}`)],
        'Unpin',
      );
    case 'accept-changes':
      return options(
        'Accept changed tools',
        `Accept what changed on ${q(request.server)}?`,
        [
          ...request.tools.map((t) => `  ${e(t.kind)}: ${e(t.name)}`),
          ...(request.identity ? ['  its version or instructions'] : []),
          '',
          'Accepted tools can be called again; on a trusted server, read-only ones run without asking.',
        ],
        'Accept',
      );
    case 'allow-rule':
      return options(
        request.change ? 'Widen a rule' : 'Save a rule',
        `${request.change ? 'Change the rule to allow' : 'Allow'} ${e(request.tool)} on ${q(request.server)} without asking?`,
        [
          `Rule: ${request.rule}`,
          "Matching calls run without asking you while the server is trusted. A changed tool definition, or a call that names Countersign's own files, still asks.",
        ],
        request.change ? 'Change rule' : 'Save rule',
      );
    case 'always-allow':
      return options(
        'Always allow',
        `Always allow ${e(request.tool)} on ${q(request.server)}?`,
        ['Later calls of this tool run without asking you while the server is trusted.'],
        'Always allow',
      );
    case 'inline-approval':
      return options(
        'Approval inside the client',
        `Let ${q(request.client)} answer pending calls in its own form?`,
        [
          `Client: ${e(request.client)} (the name it gives; another program could give the same name)`,
          '',
          'Short calls will also be offered in that client as "Approve … ? [Approve] [Deny]". Only turn this on',
          'if the client shows such forms to you: a client (or agent) that answers them itself approves its own calls.',
          "Large previews, changed tools and Countersign's own files are still only approved here.",
          'This lasts until Countersign stops.',
        ],
        'Turn on',
      );
    case 'policy-path':
      if (request.path === null) {
        return options(
          'Team policy file',
          'Stop using the team policy?',
          [
            `File: ${e(request.from ?? '(none)')}`,
            '',
            'The servers it blocks, the pins it holds and the tools it always asks about would no longer be held back by it.',
          ],
          'Remove the policy',
        );
      }
      return options(
        'Team policy file',
        'Use this file as the team policy?',
        [
          `File: ${e(request.path)}`,
          ...(request.from ? [`Instead of: ${e(request.from)} (what that one blocks, pins or always asks about would no longer apply)`] : []),
          '',
          'A team policy only adds friction: it blocks servers, always asks for tools, pins servers, and holds',
          'servers to the command and limits it lists. It never lets anything run without you.',
        ],
        'Use this policy',
      );
    case 'audit-export':
      if (request.to === null) {
        return options(
          'Audit export',
          'Stop sending the audit log?',
          [...request.from.map((d) => `Now sent to: ${e(d)}`), '', 'Calls and changes would no longer reach that log pipeline.'],
          'Stop sending',
        );
      }
      return options(
        'Audit export',
        'Send the audit log here?',
        [
          ...request.to.map((d) => `Send to: ${e(d)}`),
          ...request.from.map((d) => `Instead of: ${e(d)}`),
          '',
          'Every call (with its arguments, secrets masked) and every change from now on, and the log so far,',
          'go to this destination. Only send it where you mean it to go.',
        ],
        'Send the log',
      );
    case 'wrap-client':
      return options(
        'Put Countersign in front of a client',
        `Rewrite ${q(request.client)}'s config so its servers start through Countersign?`,
        [
          ...request.files.flatMap((f) => [
            `File: ${e(f.path)}`,
            ...f.entries.flatMap((x) => [
              `  ${e(x.entry)} → Countersign server ${q(x.server ?? x.entry)} (${x.action === 'add' ? 'added' : x.action === 'reuse' ? 'already in Countersign' : 'command updated'})`,
              ...(x.launch ? launchLines(x.launch).map((l) => `    ${l}`) : []),
            ]),
            '',
          ]),
          'A backup of each file is kept, and Unwrap puts it back. Added servers start untrusted, and no command runs until you approve it.',
        ],
        'Wrap',
      );
    case 'unwrap-client':
      return options(
        'Undo a wrap',
        `Put ${q(request.client)}'s config back as it was before Countersign?`,
        [
          ...request.files.flatMap((f) => [
            `File: ${e(f.path)} (${f.how === 'exact' ? 'restored byte for byte' : f.how === 'entries' ? 'only Countersign’s entries reverted; your edits kept' : 'missing'})`,
            ...f.entries.map((x) => `  ${e(x.entry)}: ${x.outcome === 'restored' ? 'restored' : 'kept as you changed it'}`),
            '',
          ]),
          'Its servers then start without Countersign: their calls are no longer held for you.',
        ],
        'Unwrap',
      );
    case 'undo':
      return options(
        'Undo',
        `Put back ${request.files.length} file(s) as they were before ${request.calls.length} call(s)?`,
        [
          ...request.calls.map((c) => `Call: ${e(c)}`),
          '',
          ...request.files.map((f) =>
            [
              `${e(f.path)}: ${f.blocked ? `left as it is (${e(f.blocked)})` : f.action}`,
              ...(f.conflict ? [`  changed since the call: ${e(f.conflict)} It will be overwritten.`] : []),
            ].join('\n'),
          ),
        ],
        'Undo',
      );
    case 'other':
      return options(
        'Confirm a change',
        `Allow this change: ${e(request.method)}?`,
        [...request.args.map((a, i) => `  [${i}] ${e(JSON.stringify(a) ?? 'undefined')}`)],
        'Allow',
      );
  }
}
